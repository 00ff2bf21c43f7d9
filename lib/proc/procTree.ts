// CPU and memory of a process group, read from /proc (Linux). Elsewhere every reading is null and
// the ledger line reports the CPU time it can get (reaped children) and no peak memory.
import { readdirSync, readFileSync } from 'node:fs';

// /proc reports CPU time in USER_HZ ticks, which Linux fixes at 100 for user space.
const TICKS_PER_SECOND = 100;

export interface TreeSample {
  pids: number;
  /** CPU seconds of the live members plus the children they have reaped. */
  cpuSeconds: number;
  rssBytes: number;
}

interface ProcStat {
  /** R, S, D, Z (a zombie: ended, not yet reaped), ... */
  state: string;
  pgrp: number;
  /** utime + stime + cutime + cstime, in ticks. */
  ticks: number;
  childTicks: number;
}

function readStat(pid: string): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // the process ended between listing and reading
  }
  // The command name (field 2) is in parentheses and may hold spaces; the rest follows the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3] ?? 0);
  return { state: fields[0] ?? '', pgrp: field(5), ticks: field(14) + field(15) + field(16) + field(17), childTicks: field(16) + field(17) };
}

function readRssBytes(pid: string): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function sampleProcessGroup(pgid: number): TreeSample | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const sample: TreeSample = { pids: 0, cpuSeconds: 0, rssBytes: 0 };
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = readStat(pid);
    if (stat === null || stat.pgrp !== pgid) continue;
    sample.pids += 1;
    sample.cpuSeconds += stat.ticks / TICKS_PER_SECOND;
    sample.rssBytes += readRssBytes(pid);
  }
  return sample;
}

/**
 * How many processes of the group are still running (zombies, which only wait to be reaped, are
 * not counted), or null where /proc cannot be read.
 */
export function runningInProcessGroup(pgid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let running = 0;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = readStat(pid);
    if (stat !== null && stat.pgrp === pgid && stat.state !== 'Z') running += 1;
  }
  return running;
}

/** CPU seconds of this process's reaped children and their reaped descendants, or null. */
export function reapedChildrenCpuSeconds(): number | null {
  const stat = readStat('self');
  return stat === null ? null : stat.childTicks / TICKS_PER_SECOND;
}
