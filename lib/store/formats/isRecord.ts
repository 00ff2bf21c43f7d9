// The one type guard for reading unknown input (a parsed JSON line, a loose field of a record):
// narrowing goes through the formats' schemas or through this, never through a cast.

/** A plain object (not null, not an array): its fields can be read and checked one by one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
