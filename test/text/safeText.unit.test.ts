// printable(): what a stored, user-controlled string looks like on a terminal. Every character that
// can move the cursor, recolour, retitle the window, break a line or reverse text is shown as a
// visible escape; everything else is kept as it is.
import { describe, expect, it } from 'vitest';
import { showName } from '../../lib/cli/output.js';
import { table } from '../../lib/text/table.js';
import { printable, printableFields, printableLines } from '../../lib/text/safeText.js';

/** Characters no human output may carry raw (newline and tab are checked by the caller where they matter). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('printable', () => {
  it('shows C0 controls, DEL and C1 controls as visible escapes', () => {
    expect(printable('\x1b[31mred\x1b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    expect(printable('\x1b]0;owned\x07')).toBe('\\x1b]0;owned\\x07');
    expect(printable('a\r\nb\tc')).toBe('a\\r\\nb\\tc');
    expect(printable('\x00\x7f\u009b2J\u0085')).toBe('\\x00\\x7f\\x9b2J\\x85');
  });

  it('shows bidirectional overrides, isolates and marks, and line separators', () => {
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x2028, 0x2029]) {
      const char = String.fromCharCode(code);
      expect(printable(`x${char}y`)).toBe(`x\\u${code.toString(16).padStart(4, '0')}y`);
    }
  });

  it('keeps everything else: text, accents, emoji, CJK, backslashes', () => {
    const text = 'Fix: café ✓ 日本語 🚀 C:\\path "quoted" \u00a0nbsp';
    expect(printable(text)).toBe(text);
    expect(RAW_CONTROL.test(printable('\x1b\x9b\u202e\u2066\r'))).toBe(false);
  });

  it('printableLines keeps newlines and tabs but escapes the rest', () => {
    expect(printableLines('one\n\ttwo\x1b[2J\r')).toBe('one\n\ttwo\\x1b[2J\\r');
  });

  it('printableFields escapes every string and string array of an event, and nothing else', () => {
    const event = { type: 'member_skipped', job: 'j-1', paths: ['a\x1b[1mb', 'c'], count: 3, flag: null };
    expect(printableFields(event)).toEqual({ type: 'member_skipped', job: 'j-1', paths: ['a\\x1b[1mb', 'c'], count: 3, flag: null });
  });
});

describe('the shared formatters', () => {
  it('showName escapes what JSON quoting leaves raw (DEL, C1, bidi)', () => {
    expect(showName('feature/login')).toBe('feature/login');
    expect(showName('feat/\u202egnp.exe')).toBe('"feat/\\u202egnp.exe"');
    expect(showName('x\u009by\u007f')).toBe('"x\\x9by\\x7f"');
  });

  it('table keeps one row per line whatever a cell holds', () => {
    const out = table(
      ['id', 'note'],
      [
        ['j-1', 'a\nb\x1b[31m'],
        ['j-2', 'ok'],
      ],
    );
    expect(out.split('\n')).toEqual(['id   note', 'j-1  a\\nb\\x1b[31m', 'j-2  ok']);
  });
});
