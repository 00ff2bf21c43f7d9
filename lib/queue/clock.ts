/** Wall-clock time as ISO text; one function so tests and records agree on the format. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** `YYYYMMDD` of a date in UTC, the day part of job and batch ids. */
export function dayStamp(date = new Date()): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}
