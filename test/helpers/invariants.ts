// The fault tests' invariant checker: what must hold after any crash, kill or race, computed from
// evidence (git's first-parent history of the target, each merge's parents and tree, which branch
// tips the target contains) and from the job records on disk, never from what the CLI printed.
//
//   LOST        a submitted job that is neither landed nor failed with a reason (nor queued while
//               the queue may still hold it); a job with no record at all; a landed good job whose
//               tip the target does not contain.
//   DUPLICATED  a job's changes merged into the target more than once (its Land-Job or its tip on
//               two merges, a merge of a tip the target already held), or two landed records for
//               one branch tip.
//   UNEXPECTED  a culprit landed (record or tip in the target); a commit on the target that no job
//               record claims; a landed record whose train is not in the target; a merge whose tree
//               is not the merge of its parents; an unreadable record.
//   STUCK       a job in_progress while no drainer is alive.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobRecord } from '../../lib/store/index.js';

export type BranchKind = 'good' | 'culprit';

export interface SubmittedBranch {
  name: string;
  tip: string;
  kind: BranchKind;
}

export interface InvariantInput {
  /** The repository (any worktree of it). */
  dir: string;
  target: string;
  /** The target's tip before the first submission: only commits after it are judged. */
  base: string;
  branches: readonly SubmittedBranch[];
  /**
   * `settled`: every drainer has finished, the queue should be empty (LOST and STUCK are judged).
   * `crashed`: right after a kill, before any recovery; only what must hold at every instant is
   * judged (DUPLICATED, UNEXPECTED), and a record the dead drainer left in_progress may claim its merge.
   */
  phase: 'settled' | 'crashed';
}

export interface TargetCommit {
  sha: string;
  parents: string[];
  job: string | null;
  tip: string | null;
}

export interface BranchOutcome {
  name: string;
  kind: BranchKind;
  jobs: string[];
  state: string;
  reason: string | null;
}

export interface InvariantReport {
  lost: string[];
  duplicated: string[];
  unexpected: string[];
  stuck: string[];
  /** The jobs the target's first-parent commits after `base` landed, oldest first (a commit no record claims: its sha). */
  merged: string[];
  outcomes: BranchOutcome[];
  /** One line per state: how many records are in it. */
  states: Record<string, number>;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 }).trim();
}

function isAncestor(dir: string, ancestor: string, descendant: string): boolean {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', ancestor, descendant], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/** The target's first-parent commits after `base`, oldest first, with their Land-Job and Land-Tip trailers. */
export function targetCommits(dir: string, target: string, base: string): TargetCommit[] {
  const format = ['%H', '%P', '%(trailers:key=Land-Job,valueonly,separator=%x2C)', '%(trailers:key=Land-Tip,valueonly,separator=%x2C)'].join('%x1f');
  const out = git(dir, ['log', '--first-parent', '--reverse', `--format=${format}%x1e`, `${base}..refs/heads/${target}`]);
  return out
    .split(RECORD)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk !== '')
    .map((chunk) => {
      const [sha = '', parents = '', job = '', tip = ''] = chunk.split(FIELD).map((f) => f.trim());
      return { sha, parents: parents.split(' ').filter(Boolean), job: job || null, tip: tip || null };
    });
}

// A merge's tree never changes: verified once per commit for the whole test run.
const honestMerges = new Map<string, boolean>();

/** The merge's tree is exactly `git merge-tree` of its two parents: nothing added, nothing dropped. */
function mergeIsHonest(dir: string, commit: TargetCommit): boolean {
  const known = honestMerges.get(commit.sha);
  if (known !== undefined) return known;
  const [first, second] = commit.parents;
  let honest = false;
  try {
    const tree = git(dir, ['merge-tree', '--write-tree', first ?? '', second ?? '']).split('\n')[0];
    honest = tree === git(dir, ['rev-parse', `${commit.sha}^{tree}`]);
  } catch {
    honest = false;
  }
  honestMerges.set(commit.sha, honest);
  return honest;
}

function stateDirOf(dir: string): string {
  return join(git(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']), 'land');
}

/** Every job record on disk (temporary files skipped); unreadable ones by file name. */
export function readRecords(dir: string): { records: JobRecord[]; unreadable: string[] } {
  const jobsDir = join(stateDirOf(dir), 'jobs');
  const records: JobRecord[] = [];
  const unreadable: string[] = [];
  if (!existsSync(jobsDir)) return { records, unreadable };
  for (const name of readdirSync(jobsDir).sort()) {
    if (!name.endsWith('.json') || name.includes('.tmp')) continue;
    try {
      records.push(JSON.parse(readFileSync(join(jobsDir, name), 'utf8')) as JobRecord);
    } catch (error) {
      unreadable.push(`${name}: ${(error as Error).message}`);
    }
  }
  return { records, unreadable };
}

/** True when locks/drain-holder.json names a process that is alive on this host. */
export function drainerAlive(dir: string): boolean {
  const path = join(stateDirOf(dir), 'locks', 'drain-holder.json');
  if (!existsSync(path)) return false;
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as { pid: number };
    process.kill(holder.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function countBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== null) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

interface Evidence {
  commits: TargetCommit[];
  /** Position of each first-parent commit after base (its train order). */
  position: Map<string, number>;
  /** Commits the target contains, among the tips of refs/heads/*. */
  containedTips: Set<string>;
  byId: Map<string, JobRecord>;
}

// A merge never changes: whether it re-merged a tip its first parent held is decided once per commit.
const remerges = new Map<string, boolean>();

function remerged(dir: string, commit: TargetCommit): boolean {
  const known = remerges.get(commit.sha);
  if (known !== undefined) return known;
  const value = isAncestor(dir, commit.parents[1] ?? '', commit.parents[0] ?? '');
  remerges.set(commit.sha, value);
  return value;
}

/** True when `commit` (on the target's first-parent line) is the train `train` or below it. */
function onTrain(evidence: Evidence, commit: string, train: string | null): boolean {
  if (train === null) return false;
  const at = evidence.position.get(commit);
  const top = evidence.position.get(train);
  return at !== undefined && top !== undefined && at <= top;
}

function checkTargetCommits(input: InvariantInput, evidence: Evidence, report: InvariantReport): void {
  const { dir } = input;
  const claimStates = input.phase === 'crashed' ? ['landed', 'in_progress'] : ['landed'];
  for (const commit of evidence.commits) {
    const short = commit.sha.slice(0, 12);
    if (commit.parents.length !== 2) {
      // Only a fast-forward landing puts a non-merge on the target's first-parent line: the job's tip,
      // its train that commit (or, cleared by the train behind it, a train above it).
      const claimed = [...evidence.byId.values()].some(
        (job) => claimStates.includes(job.state) && job.tip === commit.sha && onTrain(evidence, commit.sha, job.train),
      );
      if (!claimed) report.unexpected.push(`commit ${short} on ${input.target} is no job's landing (parents ${commit.parents.length})`);
      continue;
    }
    const second = commit.parents[1] ?? '';
    const job = commit.job === null ? undefined : evidence.byId.get(commit.job);
    if (!job) {
      report.unexpected.push(`merge ${short} (Land-Job ${commit.job ?? 'none'}) is claimed by no job record`);
      continue;
    }
    if (!claimStates.includes(job.state)) report.unexpected.push(`merge ${short} of ${job.id} is in ${input.target} but the record says ${job.state}`);
    if (commit.tip !== job.tip || second !== job.tip)
      report.unexpected.push(`merge ${short} of ${job.id} merged ${second.slice(0, 12)}, the record's tip is ${job.tip.slice(0, 12)}`);
    if (!onTrain(evidence, commit.sha, job.train)) report.unexpected.push(`merge ${short} of ${job.id} is not on the record's train ${job.train ?? 'null'}`);
    if (remerged(dir, commit)) report.duplicated.push(`merge ${short} of ${job.id} merged ${second.slice(0, 12)}, already in ${input.target}`);
    if (!mergeIsHonest(dir, commit)) report.unexpected.push(`merge ${short} of ${job.id}: its tree is not the merge of its parents`);
  }
  // A fast-forward landing counts as its job's merge too: its commit is the tip itself.
  for (const [job, n] of countBy(report.merged, (job) => job)) if (n > 1) report.duplicated.push(`${job} is merged into ${input.target} ${n} times`);
  for (const [tip, n] of countBy(evidence.commits, (c) => (c.parents.length === 2 ? (c.parents[1] ?? null) : c.sha)))
    if (n > 1) report.duplicated.push(`tip ${tip.slice(0, 12)} is merged into ${input.target} ${n} times`);
}

function checkRecords(input: InvariantInput, evidence: Evidence, records: JobRecord[], report: InvariantReport): void {
  const { target } = input;
  for (const job of records) {
    if (job.state !== 'landed') continue;
    if (job.train === null || !evidence.position.has(job.train))
      report.unexpected.push(`${job.id} (${job.branch}) is recorded landed but its train ${job.train ?? 'null'} is not in ${target}`);
  }
  for (const [tip, n] of countBy(records, (job) => (job.state === 'landed' ? job.tip : null))) {
    if (n > 1) report.duplicated.push(`${n} records landed for tip ${tip.slice(0, 12)}`);
  }
  const alive = drainerAlive(input.dir);
  for (const job of records) {
    if (job.state === 'in_progress' && input.phase === 'settled' && !alive)
      report.stuck.push(`${job.id} (${job.branch}) is in_progress and no drainer is alive`);
  }
}

function checkBranches(input: InvariantInput, evidence: Evidence, records: JobRecord[], report: InvariantReport): void {
  for (const branch of input.branches) {
    const jobs = records.filter((job) => job.branch === branch.name && job.tip === branch.tip);
    const landed = jobs.find((job) => job.state === 'landed');
    const last = landed ?? jobs[jobs.length - 1];
    report.outcomes.push({ name: branch.name, kind: branch.kind, jobs: jobs.map((j) => j.id), state: last?.state ?? 'missing', reason: last?.reason ?? null });
    const contained = evidence.containedTips.has(branch.tip);
    if (branch.kind === 'culprit') {
      if (landed || contained) report.unexpected.push(`culprit ${branch.name} landed (${landed ? `record ${landed.id}` : 'its tip is in the target'})`);
    } else if (landed && !contained) {
      report.lost.push(`${branch.name}: ${landed.id} is recorded landed but its tip is not in ${input.target}`);
    }
    if (input.phase !== 'settled') continue;
    if (!last) {
      report.lost.push(`${branch.name}: no job record`);
    } else if (last.state === 'failed' && !last.reason) {
      report.lost.push(`${branch.name}: ${last.id} failed without a reason`);
    } else if (last.state === 'queued' || last.state === 'canceled') {
      report.lost.push(`${branch.name}: ${last.id} is ${last.state} after the drain`);
    }
  }
}

/** Tips of the branches (refs/heads/*) the target contains: one git call for all of them. */
function containedTips(dir: string, target: string): Set<string> {
  const out = git(dir, ['for-each-ref', `--merged=refs/heads/${target}`, '--format=%(objectname)', 'refs/heads/']);
  return new Set(out.split('\n').filter(Boolean));
}

export function checkInvariants(input: InvariantInput): InvariantReport {
  const report: InvariantReport = { lost: [], duplicated: [], unexpected: [], stuck: [], merged: [], outcomes: [], states: {} };
  const { records, unreadable } = readRecords(input.dir);
  for (const name of unreadable) report.unexpected.push(`unreadable record ${name}`);
  const commits = targetCommits(input.dir, input.target, input.base);
  const evidence: Evidence = {
    commits,
    position: new Map(commits.map((c, i) => [c.sha, i])),
    containedTips: containedTips(input.dir, input.target),
    byId: new Map(records.map((job) => [job.id, job])),
  };
  // A fast-forward landing has no merge commit and no trailer: its job is the landed record whose tip
  // it is (its train is that commit, or, cleared by the train behind it, that train's commit).
  const fastForwarded = (sha: string) => records.find((job) => job.state === 'landed' && job.tip === sha)?.id ?? sha;
  report.merged = commits.map((c) => c.job ?? fastForwarded(c.sha));
  for (const [state, n] of countBy(records, (job) => job.state)) report.states[state] = n;
  checkTargetCommits(input, evidence, report);
  checkRecords(input, evidence, records, report);
  checkBranches(input, evidence, records, report);
  return report;
}

export function isClean(report: InvariantReport): boolean {
  return report.lost.length + report.duplicated.length + report.unexpected.length + report.stuck.length === 0;
}

/** A compact summary: the counts, the states, then each finding (at most 10 per kind). */
export function summarize(report: InvariantReport): string {
  const lines = [
    `LOST ${report.lost.length} · DUPLICATED ${report.duplicated.length} · UNEXPECTED ${report.unexpected.length} · STUCK ${report.stuck.length}`,
    `records: ${
      Object.entries(report.states)
        .map(([s, n]) => `${s} ${n}`)
        .join(', ') || 'none'
    }; merges after base: ${report.merged.length}`,
  ];
  for (const kind of ['lost', 'duplicated', 'unexpected', 'stuck'] as const) {
    const items = report[kind];
    for (const item of items.slice(0, 10)) lines.push(`  ${kind.toUpperCase()} ${item}`);
    if (items.length > 10) lines.push(`  ... ${items.length - 10} more ${kind.toUpperCase()}`);
  }
  return lines.join('\n');
}
