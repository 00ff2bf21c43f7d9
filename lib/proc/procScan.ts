// Reads the process table from /proc (Linux): each process's parent, group, session and start
// time, and, for this user's processes, its environment and working folder. Elsewhere (no /proc)
// the table is null and callers fall back to the process group.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  /** Start time in clock ticks since boot: with the pid, it names one process (pids are reused). */
  start: string;
  /** R, S, D, T, Z (a zombie: ended, not yet reaped), ... */
  state: string;
}

/** One process's entry, or null when it is gone (or /proc is not there). */
export function readEntry(pid: number | string): ProcEntry | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces; the rest follows the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => fields[n - 3] ?? '';
  return { pid: Number(pid), state: field(3), ppid: Number(field(4)), pgrp: Number(field(5)), sid: Number(field(6)), start: field(22) };
}

/** Every process /proc lists, or null where there is no /proc. */
export function listProcesses(): ProcEntry[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const entries: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(name);
    if (entry !== null) entries.push(entry);
  }
  return entries;
}

/** The value of one variable in a process's environment (this user's processes only), or null. */
export function environValue(pid: number, name: string): string | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return null; // gone, or another user's
  }
  const prefix = `${name}=`;
  for (const pair of text.split('\0')) if (pair.startsWith(prefix)) return pair.slice(prefix.length);
  return null;
}

/** A process's working folder (" (deleted)" removed), or null when it cannot be read. */
export function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

/** Whether `pid` is still the process that had start time `start`, and not a zombie. */
export function stillRunning(pid: number, start: string): boolean {
  const entry = readEntry(pid);
  return entry !== null && entry.start === start && entry.state !== 'Z';
}
