// `--since <time>` of `land stats`, `land report` and `land tune`: an ISO date or date and time
// (`2026-11-01`, `2026-11-01T12:00`, `2026-11-01T12:00:00Z`; UTC unless a zone is given), or a
// span back from now: a whole number and a unit, `90m`, `24h`, `7d`, `2w`. A date or time that does
// not exist (2026-02-30, 25:00) is refused, never rolled over. Pure: the caller gives "now".
import { LandError } from '../errors.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** The calendar fields at the start of an ISO date (and time): year, month, day, hour, minute, second. */
const ISO_FIELDS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function daysIn(year: number, month: number): number {
  if (month !== 2) return [4, 6, 9, 11].includes(month) ? 30 : 31;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/**
 * Why the ISO date (and time) `text` starts with does not exist (`February 2026 has 28 days`,
 * `there is no hour 25`), or null when it does or `text` is no ISO date. JavaScript's Date reads
 * 2026-02-30 as March 2 and 24:00 as the next day's midnight: both are refused here instead.
 */
export function nonexistentDate(text: string): string | null {
  const fields = ISO_FIELDS.exec(text.trim());
  if (!fields) return null;
  const raw = (i: number) => fields[i] ?? '00';
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(raw(i))) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) return `there is no month ${raw(2)}`;
  if (day < 1) return `there is no day ${raw(3)}`;
  if (day > daysIn(year, month)) return `${MONTHS[month - 1]} ${raw(1)} has ${daysIn(year, month)} days`;
  if (hour > 23) return `there is no hour ${raw(4)}`;
  if (minute > 59) return `there is no minute ${raw(5)}`;
  if (second > 59) return `there is no second ${raw(6)}`;
  return null;
}

/** A usage error naming `--since <text>` when it starts with an ISO date (and time) that does not exist. */
export function assertDateExists(text: string): void {
  const missing = nonexistentDate(text);
  if (missing) throw new LandError('usage', `--since: ${JSON.stringify(text)} is not a date that exists (${missing})`);
}

/** Epoch ms of `text` (see the file's comment); a LandError 'usage' naming what is wrong otherwise. */
export function parseSince(text: string, now: number): number {
  const value = text.trim();
  const span = /^(\d{1,6})([mhdw])$/.exec(value);
  if (span) return now - Number(span[1]) * (UNIT_MS[span[2] as string] as number);
  const iso = ISO.exec(value);
  if (iso) {
    assertDateExists(text);
    // A date and time without a zone is UTC, as a date alone is (JavaScript would read it as local time).
    const zoned = iso[1] !== undefined && iso[4] === undefined ? `${value}Z` : value;
    const ms = Date.parse(zoned.replace(' ', 'T'));
    if (!Number.isNaN(ms)) {
      if (ms > now) throw new LandError('usage', `--since: ${JSON.stringify(text)} is in the future`);
      return ms;
    }
  }
  throw new LandError(
    'usage',
    `--since: expected a date (2026-11-01), a date and time (2026-11-01T12:00Z) or a span back from now (90m, 24h, 7d, 2w), got ${JSON.stringify(text)}`,
  );
}
