// Gate logs are capped at logs.maxBytes: the head is written as it comes, the tail is kept in a
// bounded ring and written at close after a line that says what was cut. Secrets are redacted
// before the cut; land's own lines from the cut part survive; `land log -f` follows the head live
// and prints the tail once the gate is over; `land why` still finds the failing gate's last lines.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, describe, expect, it } from 'vitest';
import { MIN_LOG_MAX_BYTES } from '../../../lib/config/logLimits.js';
import { LogSink, masked, safeSplit } from '../../../lib/landing/gates/logSink.js';
import { land, startLand } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../../helpers/repo.js';
import { FAIL_AT_ONCE, readJobFile, stateDir } from '../../helpers/state.js';
import { waitForFile, waitUntil } from '../../helpers/wait.js';

afterAll(cleanupTempDirs);

const SECRET = 's3cr3t-t0ken-value';
const CUT_LINE =
  /^\[land: ([0-9,]+) bytes cut here \(logs\.maxBytes ([0-9,]+)\); the log keeps its first ([0-9,]+) and last ([0-9,]+) bytes(, and below, the (\d+) line\(s\) land wrote in the cut part)?\]$/m;

/** No piece of the secret of 5 characters or more (a cut must not leave half a secret behind). */
function expectNoSecretPiece(text: string): void {
  for (let i = 0; i + 5 <= SECRET.length; i += 1) expect(text.includes(SECRET.slice(i, i + 5)), `holds ${SECRET.slice(i, i + 5)}`).toBe(false);
}

const num = (text: string | undefined) => Number((text ?? '').replace(/,/g, ''));

async function writeLog(maxBytes: number, feed: (log: LogSink) => void): Promise<string> {
  const path = join(tempDir('land-logcap-'), 'train.log');
  const log = new LogSink(path, { maxBytes });
  log.setSecrets([SECRET]);
  feed(log);
  await log.close();
  return path;
}

describe('LogSink with a cap', () => {
  it('keeps head and tail of 30 MB of lines within the cap, says what was cut, and redacts across the cut', async () => {
    const line = (i: number) => `line ${String(i).padStart(8, '0')} token=${SECRET} ${'x'.repeat(40)}\n`;
    const lines = (30 * 1024 * 1024) / line(0).length;
    const path = await writeLog(MIN_LOG_MAX_BYTES, (log) => {
      log.line('== gate test: ["sh","-c","..."] (timeout 60s)');
      let chunk = '';
      for (let i = 0; i < lines; i += 1) {
        chunk += line(i);
        if (chunk.length > 60_000) {
          log.write(chunk);
          chunk = '';
        }
        if (i === Math.floor(lines / 2)) {
          log.write(chunk);
          chunk = '';
          log.line('== gate test: exit 0 after 1s');
          log.line('== gate lint: ["lint"] (timeout 60s)'); // both in the cut part: written after the cut line
        }
      }
      log.write(`${chunk}the end, token=${SECRET}`); // no newline at the end
      log.line('== gate lint: exit 1 after 2s');
    });
    const text = readFileSync(path, 'utf8');
    const cut = CUT_LINE.exec(text);
    assert.exists(cut, 'the cut line');
    const cutLine = `${cut[0]}\n`;
    const keptLand = '== gate test: exit 0 after 1s\n== gate lint: ["lint"] (timeout 60s)\n';
    expect(statSync(path).size).toBeLessThanOrEqual(MIN_LOG_MAX_BYTES + cutLine.length + keptLand.length);
    expect(cut[6]).toBe('2');
    expect(text.startsWith(`== gate test: ["sh","-c","..."] (timeout 60s)\n${line(0).replace(SECRET, '***')}`)).toBe(true);
    expect(text.endsWith(`${line(lines - 1).replace(SECRET, '***')}the end, token=***\n== gate lint: exit 1 after 2s\n`)).toBe(true); // on a line of its own
    expect(text).toContain(`\n${cutLine}${keptLand}line `); // the tail starts on a whole line
    const [head = '', tail = ''] = text.split(cutLine);
    expect(num(cut[3])).toBe(Buffer.byteLength(head));
    expect(num(cut[4])).toBe(Buffer.byteLength(tail) - keptLand.length);
    expect(num(cut[1]) + Buffer.byteLength(head) + Buffer.byteLength(tail)).toBe(
      Buffer.byteLength(text.replace(cutLine, '')) + num(cut[1]), // what was cut + what was kept = what was written
    );
    expect(head.split('\n').at(-1)).toBe(''); // the head ends on a whole line
    expect(text.split('***').length - 1).toBeGreaterThan(100);
    expectNoSecretPiece(text);
  });

  it('bounds a stream with no newline at all, and a secret split across chunks is still redacted', async () => {
    const unit = `..${SECRET}`; // secrets every 20 characters, chunks of 7001: many straddle a chunk boundary
    const whole = unit.repeat(Math.ceil((4 * 1024 * 1024) / unit.length));
    const path = await writeLog(MIN_LOG_MAX_BYTES, (log) => {
      for (let at = 0; at < whole.length; at += 7001) log.write(Buffer.from(whole.slice(at, at + 7001)));
    });
    const text = readFileSync(path, 'utf8');
    expect(CUT_LINE.test(text)).toBe(true);
    expect(statSync(path).size).toBeLessThan(MIN_LOG_MAX_BYTES + 200);
    expectNoSecretPiece(text.replace(CUT_LINE, ''));
    expect(text.startsWith('..***..***')).toBe(true);
  });

  it('leaves a log under the cap exactly as written, with no cut line', async () => {
    const body = `${'a line of output\n'.repeat(1000)}last words`;
    const path = await writeLog(MIN_LOG_MAX_BYTES, (log) => {
      log.line('== gate test: [] (timeout 1s)');
      log.write(body);
      log.line('== gate test: exit 0 after 1s');
    });
    expect(readFileSync(path, 'utf8')).toBe(`== gate test: [] (timeout 1s)\n${body}\n== gate test: exit 0 after 1s\n`);
  });

  it('splits a long unfinished line only where no secret straddles the split', () => {
    expect(safeSplit('abcSECRETdef', 6, ['SECRET'])).toBe(3);
    expect(safeSplit('abcSECRETdef', 9, ['SECRET'])).toBe(9);
    expect(safeSplit('abcdef', 4, ['SECRET'])).toBe(4);
    expect(safeSplit('abSEC', 4, [])).toBe(4);
  });
});

describe('LogSink redaction of a secret of several lines', () => {
  it('writes one *** per line of the secret whether the value arrives whole or a line at a time', async () => {
    const lines = ['-----BEGIN KEY-----', 'bXVsdGktbGluZS1rZXk=', '-----END KEY-----'];
    const value = lines.join('\n');
    const secrets = [value, ...lines];
    const write = async (feed: (log: LogSink) => void) => {
      const path = join(tempDir('land-logmask-'), 'train.log');
      const log = new LogSink(path, {});
      log.setSecrets(secrets);
      feed(log);
      await log.close();
      return readFileSync(path, 'utf8');
    };
    const whole = await write((log) => log.write(`before\n${value}\nafter\n`));
    const lineByLine = await write((log) => {
      log.write('before\n');
      for (const line of lines) log.write(`${line}\n`);
      log.write('after\n');
    });
    expect(whole).toBe('before\n***\n***\n***\nafter\n');
    expect(lineByLine).toBe(whole);
    expect(masked('a\r\nb')).toBe('***\r\n***');
  });
});

describe('a gate that prints 30 MB, end to end', () => {
  it('the log keeps head and tail within logs.maxBytes; land log -f follows the head, then prints the tail; why and log still work', async () => {
    const scratch = tempDir('land-logcap-');
    const started = join(scratch, 'started');
    const go = join(scratch, 'go');
    const gate = [
      '[ -f loud.txt ] || exit 0', // the target itself passes
      'yes "head $TOKEN" | head -c 200000',
      ': > "$STARTED"',
      'i=0; while [ ! -e "$GO" ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done',
      'yes "tail $TOKEN" | head -c 30000000',
      'echo; echo THE-END; exit 1',
    ].join('\n');
    const repo = makeRepo({
      policy: {
        target: 'main',
        gates: [{ name: 'test', run: gate, timeoutSeconds: 120, env: { STARTED: started, GO: go }, passEnv: ['TOKEN'] }],
        logs: { maxBytes: MIN_LOG_MAX_BYTES },
        // One run: the cap holds per run, and a flaky re-run appends its own capped run.
        ...FAIL_AT_ONCE,
      },
    });
    repo.branch('feature/loud', { 'loud.txt': 'loud\n' });
    const submitted = await land(repo.dir, ['submit', 'feature/loud', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id: string = submitted.json().job.id;
    const drainer = startLand(repo.dir, ['run', '--json'], { env: { TOKEN: SECRET } });
    try {
      await waitForFile(started, 60_000);
      const train = readJobFile(repo, id).batch?.train;
      assert.exists(train);
      const path = join(stateDir(repo), 'logs', `${train}.log`);
      const follower = startLand(repo.dir, ['log', id, '-f']);
      await waitUntil('the follower to print the head', () => follower.output().stdout.includes('head ***\n'), 30_000);
      expect(statSync(path).size).toBeLessThanOrEqual(MIN_LOG_MAX_BYTES / 2); // the head only, while the gate runs
      writeFileSync(go, '');
      const followed = await follower.done;
      expect(followed.code, followed.stderr).toBe(0);
      const run = await drainer.done;
      expect(run.code, run.stderr).toBe(0);

      const text = readFileSync(path, 'utf8');
      const cut = CUT_LINE.exec(text);
      assert.exists(cut, 'the cut line');
      expect(statSync(path).size).toBeLessThanOrEqual(MIN_LOG_MAX_BYTES + cut[0].length + 1);
      // 30.2 MB printed; each 24-byte line is 9 bytes once its secret is redacted: about 11.3 MB written, all but 64 KiB cut.
      expect(num(cut[1]), cut[0]).toBeGreaterThan((30_200_000 * 9) / 24 - MIN_LOG_MAX_BYTES - 100);
      expect(text).toMatch(/^== gate test: .*\n(head \*\*\*\n)+/m);
      expect(text).toMatch(/\n(tail \*\*\*\n)+(tail \*\*\*?|tail \*?|tail|tai|ta|t)?\nTHE-END\n== gate test: exit 1 after [0-9.]+s\n$/);
      expectNoSecretPiece(text);
      expect(followed.stdout).toBe(text); // what -f printed is the log as it ended
      expect((await land(repo.dir, ['log', id])).stdout).toBe(text);

      const why = await land(repo.dir, ['why', id]);
      expect(why.stdout).toMatch(/excerpt of gate test's output:/);
      expect(why.stdout).toContain('| THE-END');
    } finally {
      writeFileSync(go, '');
      await drainer.done;
    }
  }, 120_000);
});
