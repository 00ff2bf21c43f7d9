// Finds and kills everything a run started, including what left its process group or session.
// A run is tagged with an environment marker (LAND_GATE_RUN) that its descendants inherit; a
// process belongs to the run when /proc shows the marker in its environment, or it is in the
// run's process group or session (or in a group or session of a process found so), or it was
// seen descending from the leader while the run went on (the tree is sampled every second, each
// pid kept with its start time so a reused pid is never taken), or its working folder is inside a
// folder the caller names; and so does every process descending from one of those. Jenkins' ProcessTreeKiller uses the same marker idea.
//
// The limit: a process that clears its environment, leaves the group and session, moves out of
// the named folder, and does so before a sample sees it under the leader, is not found. Without
// /proc (not Linux) only the process group is signalled. See docs/drain.md.
import { createHash, randomBytes } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { cwdOf, environValue, listProcesses, readEntry, type ProcEntry } from './procScan.js';

/** The environment variable every gate's processes inherit. */
export const RUN_MARKER_VAR = 'LAND_GATE_RUN';

const TRACK_EVERY_MS = 1_000;
const SWEEP_PAUSE_MS = 25;
const SWEEP_LIMIT_MS = 5_000;

/** What runProcess asks of a containment (lib/proc/runProcess.ts). */
export interface Containment {
  /** The leader started: its tree is followed from now on. */
  watch(leader: number): void;
  /** One signal to every process of the run found now. */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL to every process of the run, again until none is left; resolves then. */
  killAll(): Promise<void>;
  /** Stops following the tree. */
  close(): void;
}

/** What names a run's processes; any one criterion is enough. */
export interface RunSelector {
  /** A prefix of the LAND_GATE_RUN value. */
  marker: string;
  /** The run's process group. */
  pgid?: number;
  /** The run's session (a gate is started as the leader of a new one). */
  sid?: number;
  /** Processes whose working folder is this folder or inside it. */
  cwdUnder?: string;
  /** Processes seen under the leader while it ran: pid to start time. */
  tracked?: ReadonlyMap<number, string>;
  /**
   * The leader's start time (clock ticks since boot): a process started before it cannot have
   * inherited the marker, so its environment is not read (one file less per process per scan).
   */
  startedAt?: number;
}

/**
 * The scope part of a marker for runs whose working folder is inside `dir`'s parent: the same
 * for every drainer of one repository (the trains folder), different across repositories.
 */
export function markerScope(folder: string): string {
  return createHash('sha256').update(resolve(folder)).digest('hex').slice(0, 16);
}

/** A fresh marker for one run: `<scope>:<label>:<random>`. */
export function newRunMarker(scope: string, label: string): string {
  return `${scope}:${label.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64)}:${randomBytes(6).toString('hex')}`;
}

function inside(path: string | null, folder: string): boolean {
  if (path === null) return false;
  const root = resolve(folder);
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * How a process belongs to the run: `born` (it carries the marker, was seen under the leader, or
 * is in the run's group or session: the run started it), `working` (only its folder says so:
 * it may be anyone's), or not at all (null).
 */
function belonging(entry: ProcEntry, sel: RunSelector): 'born' | 'working' | null {
  if (sel.pgid !== undefined && entry.pgrp === sel.pgid) return 'born';
  if (sel.sid !== undefined && entry.sid === sel.sid) return 'born';
  if (sel.tracked?.get(entry.pid) === entry.start) return 'born';
  const older = sel.startedAt !== undefined && Number(entry.start) < sel.startedAt;
  if (!older && environValue(entry.pid, RUN_MARKER_VAR)?.startsWith(sel.marker)) return 'born';
  if (sel.cwdUnder !== undefined && inside(cwdOf(entry.pid), sel.cwdUnder)) return 'working';
  return null;
}

/** This process and its ancestors: never signalled, whatever they carry. */
function spared(table: readonly ProcEntry[]): Set<number> {
  const byPid = new Map(table.map((entry) => [entry.pid, entry]));
  const out = new Set<number>();
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 0 && !out.has(pid); pid = byPid.get(pid)?.ppid) out.add(pid);
  return out;
}

/** Every live process `table` lists under one of `roots` (the roots included). */
function withDescendants(table: readonly ProcEntry[], roots: Set<number>): Set<number> {
  const children = new Map<number, number[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
  const out = new Set(roots);
  const queue = [...roots];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (out.has(child)) continue;
      out.add(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * Every process in a group or session of one the run started (`born`): a process that cleared its
 * environment but stayed in the gate's session. Never the groups and sessions of `keep`.
 */
function groupsAndSessionsOf(live: readonly ProcEntry[], born: readonly ProcEntry[], keep: Set<number>): number[] {
  const kept = live.filter((entry) => keep.has(entry.pid));
  const keptGroups = new Set(kept.map((entry) => entry.pgrp));
  const keptSessions = new Set(kept.map((entry) => entry.sid));
  const groups = new Set(born.map((entry) => entry.pgrp).filter((pgrp) => pgrp > 0 && !keptGroups.has(pgrp)));
  const sessions = new Set(born.map((entry) => entry.sid).filter((sid) => sid > 0 && !keptSessions.has(sid)));
  return live.filter((entry) => groups.has(entry.pgrp) || sessions.has(entry.sid)).map((entry) => entry.pid);
}

/** The live processes of a run, or null where /proc cannot be read. Never this process or its ancestors. */
export function findRunProcesses(sel: RunSelector): ProcEntry[] | null {
  const table = listProcesses();
  if (table === null) return null;
  const live = table.filter((entry) => entry.state !== 'Z');
  const keep = spared(table);
  const born: ProcEntry[] = [];
  const working: ProcEntry[] = [];
  for (const entry of live) {
    if (keep.has(entry.pid)) continue;
    const how = belonging(entry, sel);
    if (how === 'born') born.push(entry);
    else if (how === 'working') working.push(entry);
  }
  // A process found only by its folder may be in a user's terminal session: not its session.
  const roots = [...born, ...working].map((entry) => entry.pid);
  const found = withDescendants(live, new Set([...roots, ...groupsAndSessionsOf(live, born, keep)]));
  return live.filter((entry) => found.has(entry.pid) && !keep.has(entry.pid));
}

/** One signal to the group and every process of the run found now; the pids signalled. */
export function signalRun(sel: RunSelector, signal: NodeJS.Signals): number[] {
  if (sel.pgid !== undefined) {
    try {
      process.kill(-sel.pgid, signal);
    } catch {
      // the group is empty
    }
  }
  const signalled: number[] = [];
  for (const entry of findRunProcesses(sel) ?? []) {
    try {
      process.kill(entry.pid, signal);
      signalled.push(entry.pid);
    } catch {
      // gone meanwhile
    }
  }
  return signalled;
}

/**
 * SIGKILL to the run, again until a look finds nothing of it alive (what forked meanwhile is
 * taken by the next round); gives up after 5 s. The pids killed.
 */
export async function killRun(sel: RunSelector): Promise<number[]> {
  const killed = new Set<number>();
  const until = Date.now() + SWEEP_LIMIT_MS;
  for (;;) {
    const round = signalRun(sel, 'SIGKILL');
    for (const pid of round) killed.add(pid);
    if (!round.length || Date.now() > until) return [...killed];
    await new Promise((r) => setTimeout(r, SWEEP_PAUSE_MS));
  }
}

/** Follows a run's process tree while it goes on, and kills all of it on request. */
export class RunContainment implements Containment {
  private readonly tracked = new Map<number, string>();
  private pgid: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private startedAt: number | undefined;

  constructor(private readonly opts: { marker: string; cwdUnder?: string; trackEveryMs?: number }) {}

  get selector(): RunSelector {
    const { marker, cwdUnder } = this.opts;
    return { marker, pgid: this.pgid, sid: this.pgid, cwdUnder, tracked: this.tracked, startedAt: this.startedAt };
  }

  watch(leader: number): void {
    this.pgid = leader;
    const entry = readEntry(leader);
    if (entry === null) return; // gone already, or no /proc: the group and the marker remain
    this.tracked.set(leader, entry.start);
    this.startedAt = Number(entry.start);
    this.timer = setInterval(() => this.track(), this.opts.trackEveryMs ?? TRACK_EVERY_MS);
    this.timer.unref();
  }

  /** Adds every process now descending from a tracked one to the tracked set. */
  private track(): void {
    const table = listProcesses();
    if (table === null) {
      this.close();
      return;
    }
    const live = table.filter((entry) => entry.state !== 'Z');
    const roots = new Set(live.filter((entry) => this.tracked.get(entry.pid) === entry.start).map((entry) => entry.pid));
    const found = withDescendants(live, roots);
    for (const entry of live) if (found.has(entry.pid)) this.tracked.set(entry.pid, entry.start);
  }

  signal(signal: NodeJS.Signals): void {
    signalRun(this.selector, signal);
  }

  async killAll(): Promise<void> {
    await killRun(this.selector);
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
