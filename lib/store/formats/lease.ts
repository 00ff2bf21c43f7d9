// Who holds the drain: drain.json (a local drain lock's holder) and, for a queue kept in a git
// remote, lease.json (one byte-exact line, read by land and by the server's pre-receive hook).
import { z } from 'zod';

export const drainHolderSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** Names this holding of the lock (not a secret: the landing token is never written). */
  id: z.string(),
  /** The holder's start time (/proc/<pid>/stat field 22), so a reused pid is not taken for it. */
  start: z.string().optional(),
  since: z.string(),
});
export type DrainHolder = z.infer<typeof drainHolderSchema>;

// lease.json has ONE form, byte for byte: `leaseText` below (fixed key order, no whitespace, one
// newline, ASCII only). Land reads a blob as a lease only when it is exactly that form of a lease
// the schema accepts (`parseLeaseText`), and the server's pre-receive hook (lib/hooks/scripts.ts)
// matches the same line with LEASE_LINE_ERE, built here from the same patterns. Anything else (a
// duplicate key, a \u escape, an extra field, another order, other spacing) is unreadable to both,
// so the hook and land can never read two different holders out of one blob.
const HOLDER = '[0-9a-f]{8,64}';
const HOST = '[A-Za-z0-9._-]{1,64}';
/** A whole number of at most 15 digits: exactly a double, written back by JSON.stringify as read. */
const WHOLE = '(0|[1-9][0-9]{0,14})';
const POSITIVE = '[1-9][0-9]{0,14}';
const MAX_WHOLE = 999_999_999_999_999;

const whole = z.number().int().nonnegative().max(MAX_WHOLE);

export const leaseSchema = z.strictObject({
  version: z.literal(1),
  holder: z.string().regex(new RegExp(`^${HOLDER}$`)),
  host: z.string().regex(new RegExp(`^${HOST}$`)),
  pid: whole,
  epoch: whole,
  ttlSeconds: whole.min(1),
  released: z.boolean(),
});
export type Lease = z.infer<typeof leaseSchema>;

/** The one line lease.json holds, as a POSIX extended regular expression (for `grep -Ex` in the hook). */
export const LEASE_LINE_ERE = `^[{]"version":1,"holder":"${HOLDER}","host":"${HOST}","pid":${WHOLE},"epoch":${WHOLE},"ttlSeconds":${POSITIVE},"released":(true|false)[}]$`;

/** lease.json's bytes for `lease`: its fields in the schema's order, compact, one newline. */
export function leaseText(lease: Lease): string {
  const { version, holder, host, pid, epoch, ttlSeconds, released } = lease;
  return `${JSON.stringify({ version, holder, host, pid, epoch, ttlSeconds, released })}\n`;
}

/** The lease a blob holds, or null when it is not byte for byte `leaseText` of a lease the schema accepts. */
export function parseLeaseText(text: string): Lease | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = leaseSchema.safeParse(raw);
  return parsed.success && leaseText(parsed.data) === text && new RegExp(LEASE_LINE_ERE).test(text.slice(0, -1)) ? parsed.data : null;
}

/** A host name as a lease may carry it: what is not a letter, digit, '.', '_' or '-' becomes '-'. */
export function leaseHost(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'unknown';
}

export function leaseMessage(lease: Lease): string {
  return `land: lease epoch ${lease.epoch} ${lease.released ? 'released' : 'held'} by ${lease.holder} on ${lease.host}\n`;
}

/** lease-seen.json in a clone's cache: when this clone first saw the lease at commit `commit`, by its own clock (ms). */
export const leaseSeenSchema = z.object({
  commit: z.string(),
  at: z.number(),
});
export type LeaseSeen = z.infer<typeof leaseSeenSchema>;
