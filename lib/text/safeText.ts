// What a stored, user-controlled string (a title, a branch name, a submitter, a message quoting
// them, a line a gate printed) looks like on a terminal: every character that could move the
// cursor, change colours, set the window title, end a line or reverse the text around it is shown
// as a visible escape instead. Used for human output only; --json stays exact (JSON escapes
// control characters itself). See docs/commands.md#what-the-terminal-shows.

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * C0 controls (U+0000–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F), the bidirectional
 * marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069) and the Unicode line and paragraph separators (U+2028, U+2029).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Same set, but newlines and tabs are kept: for text whose line structure land composed itself. */
const UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One value as it may reach a terminal: `\x1b[31m` shows as the text `\x1b[31m`, a newline as
 * `\n`, a carriage return as `\r`, a right-to-left override as `\u202e`. Everything else is kept.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Like printable(), but the newlines (and tabs) of text that land laid out in lines are kept. */
export function printableLines(text: string): string {
  return text.replace(UNSAFE_KEEP_LINES, visible);
}

/**
 * Every string in a flat event-like object (and in its arrays of strings) passed through
 * printable(): for sentences built from a record's fields by code outside lib/cli.
 */
export function printableFields<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string') out[key] = printable(field);
    else if (Array.isArray(field)) out[key] = field.map((item: unknown) => (typeof item === 'string' ? printable(item) : item));
    else out[key] = field;
  }
  return out as T;
}
