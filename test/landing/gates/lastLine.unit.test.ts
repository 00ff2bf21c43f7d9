// The last non-empty stderr line of a gate, quoted in the message of a gate that could not start.
import { describe, expect, it } from 'vitest';
import { LastLine } from '../../../lib/landing/gates/lastLine.js';
import { runInGroup } from '../../../lib/landing/gates/processGroup.js';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';

describe('LastLine', () => {
  it('keeps the last line that is not blank, across chunks, the unfinished one included', () => {
    const tail = new LastLine();
    tail.write('first\nsec');
    tail.write('ond\n\n   \n');
    expect(tail.last()).toBe('second');
    const open = new LastLine();
    open.write('done\nno newline at the end');
    expect(open.last()).toBe('no newline at the end');
    expect(new LastLine().last()).toBeNull();
  });

  it('decodes a character split between chunks and drops control characters', () => {
    const tail = new LastLine();
    const bytes = Buffer.from('grüße\r\n');
    tail.write(bytes.subarray(0, 3)); // "gr" and half of "ü"
    tail.write(bytes.subarray(3));
    expect(tail.last()).toBe('grüße');
    const colored = new LastLine();
    colored.write('\u001b[31merror\u001b[0m\n');
    expect(colored.last()).toBe('[31merror[0m');
  });

  it('bounds a very long line by its end', () => {
    const tail = new LastLine();
    tail.write(`${'x'.repeat(10_000)}END\n`);
    expect(tail.last()?.endsWith('END')).toBe(true);
    expect(tail.last()?.length).toBe(500);
  });
});

describe('runInGroup', () => {
  it('passes stderr through whole and remembers its last line', async () => {
    let seen = '';
    const output = new Writable({
      write: (chunk, _enc, done) => {
        seen += String(chunk);
        done();
      },
    });
    const result = await runInGroup({
      argv: ['sh', '-c', 'echo out; echo "one" >&2; echo "sh: 1: mytset: not found" >&2; echo later; exit 127'],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutSeconds: 10,
      output,
    });
    expect(result).toMatchObject({ kind: 'exited', code: 127, lastStderrLine: 'sh: 1: mytset: not found' });
    expect(seen).toContain('one\n');
    expect(seen).toContain('later\n');
  });
});
