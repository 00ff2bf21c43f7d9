import { randomBytes } from 'node:crypto';
import { dayStamp } from './clock.js';

/** The next job id for today given the ids already on disk: `j-YYYYMMDD-NNNN`, sortable. */
export function nextJobId(existing: readonly string[], date = new Date()): string {
  // The day part never goes back: after an id of a later day (this clock is behind, or, in a queue
  // kept in a remote, another clone's clock is ahead) ids go on in that day, so they always grow.
  let day = dayStamp(date);
  for (const id of existing) {
    const other = /^j-(\d{8})-\d+$/.exec(id)?.[1];
    if (other && other > day) day = other;
  }
  const prefix = `j-${day}-`;
  let max = 0;
  for (const id of existing) {
    if (!id.startsWith(prefix)) continue;
    const n = Number.parseInt(id.slice(prefix.length), 10);
    if (Number.isFinite(n) && n > max) max = n;
  }
  return `${prefix}${String(max + 1).padStart(4, '0')}`;
}

/** A batch id: unique without a counter, sortable by time. */
export function newBatchId(date = new Date()): string {
  const time = date.toISOString().slice(11, 19).replaceAll(':', '');
  return `b-${dayStamp(date)}-${time}-${randomBytes(3).toString('hex')}`;
}
