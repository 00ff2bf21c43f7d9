// Processes a test started (or a gate it ran wrote down): whether they still run, and a sweep that
// kills whatever is left after each test, whatever happened in it.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const strays: number[] = [];

/** Kills `pid` after the test (see killStrays) if it is still there. */
export function trackStray(pid: number): void {
  strays.push(pid);
}

/** SIGKILLs every tracked process that is still there; for an afterEach. */
export function killStrays(): void {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
}

/** Alive and not a zombie (an orphan nobody reaps yet counts as gone). */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pids a command wrote to `file`, one a line; each is tracked as a stray. */
export function pidsWritten(file: string): number[] {
  const pids = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^\d+$/.test(line.trim()))
    .map(Number);
  for (const pid of pids) trackStray(pid);
  return pids;
}

/**
 * The git processes still running in `dir` (by their working folder in /proc). A drainer killed
 * with SIGKILL leaves its git children running: a lease renewal pushed a moment before the kill
 * still reaches the server after it.
 */
export function gitsRunningIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('git')) continue;
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if ((cwd === dir || cwd.startsWith(`${dir}/`)) && running(Number(entry))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
