// The landing token: a secret made for one move of the target (one CAS, one push) and handed only
// to the git process that makes it, in that process's environment. The state folder keeps its
// sha256 with the pid and start time of the process that made it, so the protecting hook can
// check a LAND_TOKEN without the secret being on disk, and refuse it once that process is gone
// (a pid reused by another process has another start time).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface TokenRecord {
  /** sha256 of the token, lowercase hex. */
  hash: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); '-' without /proc. */
  start: string;
}

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A process's start time from /proc (field 22 of its stat line), or '-' where /proc is not available. */
export function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '-';
  } catch {
    return '-';
  }
}

/** The token file's one line: `<sha256> <pid> <start>`, read by the hook with `read`. */
export function formatTokenRecord(record: TokenRecord): string {
  return `${record.hash} ${record.pid} ${record.start}\n`;
}

export function parseTokenRecord(text: string | null): TokenRecord | null {
  const [hash, pid, start] = (text ?? '').trim().split(/\s+/);
  if (!hash || !/^[0-9a-f]{64}$/.test(hash) || !pid || !/^\d+$/.test(pid) || !start) return null;
  return { hash, pid: Number(pid), start };
}

/** Whether the process a record names still runs (and is the same process, by its start time). */
export function recordProcessAlive(record: { pid: number; start?: string | undefined }): boolean {
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!record.start || record.start === '-') return true;
  return processStart(record.pid) === record.start;
}
