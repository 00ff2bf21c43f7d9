// `--since <time>` of `land stats`, `land report` and `land tune`: an ISO date or date and time
// (`2026-11-01`, `2026-11-01T12:00`, `2026-11-01T12:00:00Z`; UTC unless a zone is given), or a
// span back from now: a whole number and a unit, `90m`, `24h`, `7d`, `2w`. Pure: the caller gives
// "now".
import { LandError } from '../errors.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch ms of `text` (see the file's comment); a LandError 'usage' naming what is wrong otherwise. */
export function parseSince(text: string, now: number): number {
  const value = text.trim();
  const span = /^(\d{1,6})([mhdw])$/.exec(value);
  if (span) return now - Number(span[1]) * (UNIT_MS[span[2] as string] as number);
  const iso = ISO.exec(value);
  if (iso) {
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
