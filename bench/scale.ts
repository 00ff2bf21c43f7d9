// Queue scale: what `land status --json`, one more `land submit` and one more train cost with
// `jobs` records in the state folder (jobs - queued finished, `queued` queued), against the same
// with 10 jobs present. The records, their journal lines and metrics rows are written directly
// (the store's paths, its cache-file writer, the journal's own line shape), then the index of active
// jobs is built by the store's own slow path (a full scan), so 10,000 jobs take seconds, not
// 10,000 CLI calls. The queued jobs are real branches (git plumbing). The per-train overhead is
// that of bench/scenarios.ts: 10 fresh branches drained with window 1 (10 trains) and window 10
// (1 train), (w1 - w10) / (trains1 - trains10).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyChangesLocked, cancelChange, newJobRecord, recordDelta, syncIndexLocked } from '../lib/queue/index.js';
import { writeCacheFile } from '../lib/store/atomic.js';
import { localStore, type QueueStore, type JobRecord, type JobState } from '../lib/store/index.js';
import { BenchError, buildRepo, commitPolicy, git, type BranchSpec } from './git.js';
import { land, median, runSummary } from './land.js';

export interface ScaleRow {
  jobs: number;
  finished: number;
  queued: number;
  statusMs: number;
  submitMs: number;
  submitMsSmall: number;
  perTrainOverheadMs: number;
  perTrainOverheadMsSmall: number;
  buildSeconds: number;
}

const TRUE_GATE = [{ name: 'true', run: ['true'] }];
const POLICY = { target: 'main', gates: TRUE_GATE, batch: { max: 10 } };
const DRAINED = 10;
const JOBS_PER_DAY = 100;
const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 0, 1);

const hex40 = (n: number, salt: string) => (salt + n.toString(16)).padStart(40, '0').slice(-40);
const stampOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/** The i-th job's id and time: JOBS_PER_DAY a day, so ids look like a long-lived queue's. */
function slot(i: number): { id: string; at: string } {
  const day = START + Math.floor(i / JOBS_PER_DAY) * DAY_MS;
  const at = day + (i % JOBS_PER_DAY) * 60_000;
  return { id: `j-${stampOf(day)}-${String((i % JOBS_PER_DAY) + 1).padStart(4, '0')}`, at: new Date(at).toISOString() };
}

const FINISHED: readonly JobState[] = ['landed', 'landed', 'landed', 'landed', 'landed', 'landed', 'landed', 'landed', 'failed', 'canceled'];

/** A finished job as a drain would leave it, and the journal lines that lead there. */
function finishedJob(i: number): { job: JobRecord; lines: object[]; train: string } {
  const { id, at } = slot(i);
  const branch = `done-${i}`;
  const queued = newJobRecord({ id, branch, tip: hex40(i, 'a'), title: branch, submitter: 'bench@land.invalid', urgent: false, target: 'main' });
  queued.timestamps = { queued: at };
  const train = `b-${id.slice(2)}-1`;
  const state = FINISHED[i % FINISHED.length] as JobState;
  const running: JobRecord = { ...queued, state: 'in_progress', attempts: 1, train: hex40(i, 'c'), base: hex40(i, 'b'), tree: hex40(i, 'd') };
  const end: JobRecord = {
    ...running,
    state,
    verdict: state === 'landed' ? 'PASS' : state === 'failed' ? 'FAIL' : null,
    reason: state === 'landed' ? null : state === 'failed' ? 'gate' : 'canceled',
    landedVia: state === 'landed' ? 'merge' : null,
    gateLog: `${train}.log`,
    timestamps: { ...queued.timestamps, started: at, [state]: at },
  };
  const line = (from: JobState | null, to: JobState, event: string, extra: object) => ({
    at,
    kind: 'transition',
    job: id,
    from,
    to,
    event,
    detail: {},
    ...extra,
  });
  const lines = [
    line(null, 'queued', 'submitted', { detail: { branch, tip: queued.tip }, record: queued }),
    line('queued', 'in_progress', 'train_started', recordDelta(queued, running)),
    line('in_progress', state, state, recordDelta(running, end)),
  ];
  return { job: end, lines, train };
}

function queuedJob(i: number, branch: string, tip: string): { job: JobRecord; lines: object[]; train: null } {
  const { id, at } = slot(i);
  const job = newJobRecord({ id, branch, tip, title: branch, submitter: 'bench@land.invalid', urgent: false, target: 'main' });
  job.timestamps = { queued: at };
  return { job, lines: [{ at, kind: 'transition', job: id, from: null, to: 'queued', event: 'submitted', detail: { branch, tip }, record: job }], train: null };
}

/** One metrics row per train of four finished jobs: the gate history `land status` reads. */
function metricsRow(train: string, members: string[]): object {
  const results = [{ name: 'true', outcome: 'exited', status: 'exit 0', seconds: 0.05 }];
  return { train, batch: train.slice(0, -2), members, verdict: 'PASS', reason: null, gateSeconds: 0.05, gate: { mode: 'full', executed: ['true'], results } };
}

/** Writes `jobs` records (the last `queued` of them queued on `branches`), their journal, metrics and index. */
function seedState(store: QueueStore, jobs: number, queued: readonly { name: string; tip: string }[]): void {
  store.ensure();
  const journal: string[] = [];
  const metrics: string[] = [];
  const finished = jobs - queued.length;
  let members: string[] = [];
  for (let i = 0; i < jobs; i += 1) {
    const q = queued[i - finished];
    const built = q ? queuedJob(i, q.name, q.tip) : finishedJob(i);
    writeCacheFile(store.paths.job(built.job.id), `${JSON.stringify(built.job, null, 2)}\n`);
    for (const line of built.lines) journal.push(JSON.stringify(line));
    if (built.train !== null) {
      members.push(built.job.id);
      if (members.length === 4 || i === finished - 1) {
        metrics.push(JSON.stringify(metricsRow(built.train, members)));
        members = [];
      }
    }
  }
  appendFileSync(store.paths.journal, `${journal.join('\n')}\n`);
  if (metrics.length) appendFileSync(store.paths.metrics, `${metrics.join('\n')}\n`);
  // The store's own slow path: the index and the branch lists from a full scan. One process, nothing else runs here.
  syncIndexLocked(store, 'missing or unreadable');
}

/** `n` branches, each one new file on the current main (plumbing, no checkout). */
function freshBranches(dir: string, prefix: string, n: number): string[] {
  const base = git(dir, ['ls-tree', 'refs/heads/main']);
  const names: string[] = [];
  const refs: string[] = [];
  for (let k = 1; k <= n; k += 1) {
    const name = `${prefix}-${k}`;
    const blob = git(dir, ['hash-object', '-w', '--stdin'], `${name}\n`);
    const tree = git(dir, ['mktree'], `${base}\n100644 blob ${blob}\t${name}.txt\n`);
    const commit = git(dir, ['commit-tree', tree, '-p', 'refs/heads/main', '-m', `add ${name}`]);
    refs.push(`create refs/heads/${name} ${commit}\n`);
    names.push(name);
  }
  git(dir, ['update-ref', '--stdin'], refs.join(''));
  return names;
}

export interface Built {
  dir: string;
  store: QueueStore;
  submitBranches: string[];
  seconds: number;
}

/**
 * A repository with `jobs` records (the last `queued` queued) and runs + 1 fresh branches to submit; exported for ad-hoc
 * comparisons. `note` takes the store's notes (the index's slow-path rebuild), stderr by default.
 */
export function buildScaleRepo(root: string, name: string, jobs: number, queued: number, runs: number, note?: (message: string) => void): Built {
  const started = performance.now();
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const specs: BranchSpec[] = Array.from({ length: queued + runs + 1 }, (_, k) => ({ name: `q-${k + 1}`, file: `q-${k + 1}.txt`, content: `${k + 1}\n` }));
  buildRepo(dir, POLICY, specs);
  const tips = git(dir, ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/q-*'])
    .split('\n')
    .map((line) => line.split(' '))
    .map(([branch, tip]) => ({ name: branch as string, tip: tip as string }));
  const byName = new Map(tips.map((t) => [t.name, t]));
  const queuedBranches = specs.slice(0, queued).map((spec) => byName.get(spec.name) as { name: string; tip: string });
  const store = localStore(join(dir, '.git', 'land'));
  if (note) store.note = note;
  seedState(store, jobs, queuedBranches);
  const status = JSON.parse(land(dir, ['status', '--json']).stdout) as { jobs: unknown[] };
  if (status.jobs.length !== queued) throw new BenchError(`scale: status lists ${status.jobs.length} jobs in ${dir}, expected ${queued}`);
  return { dir, store, submitBranches: specs.slice(queued).map((spec) => spec.name), seconds: (performance.now() - started) / 1000 };
}

/** Median of `land submit <fresh branch>` (one warm-up first). */
function submitMedian(built: Built, runs: number): number {
  const [warm, ...rest] = built.submitBranches;
  land(built.dir, ['submit', warm as string]);
  return median(rest.slice(0, runs).map((branch) => land(built.dir, ['submit', branch, '--json']).ms));
}

/** Cancels every active job (journaled, as `land cancel` would), so a drain measures only its own 10 jobs. */
function cancelQueue(store: QueueStore): void {
  const index = syncIndexLocked(store).index;
  const ids = Object.entries(index.active)
    .filter(([, entry]) => entry.state === 'queued')
    .map(([id]) => id);
  applyChangesLocked(
    store,
    ids.map((id) => cancelChange(id, 'bench')),
  );
}

/** One drain of 10 fresh branches at window `window` (batch.max too, so the window stays): ms and trains. */
function drainAt(built: Built, window: number, label: string): { ms: number; trains: number } {
  commitPolicy(built.dir, { ...POLICY, batch: { max: window } });
  land(built.dir, ['window', '--set', String(window)]);
  const branches = freshBranches(built.dir, label, DRAINED);
  land(built.dir, ['submit', ...branches]);
  const run = land(built.dir, ['run', '--json']);
  const summary = runSummary(run.stdout);
  if (summary.landed.length !== DRAINED) throw new BenchError(`scale: the drain at window ${window} landed ${summary.landed.length} of ${DRAINED}`);
  return { ms: run.ms, trains: summary.trains };
}

/** Median over `runs` (at most 3: each is two drains of 10 jobs) of (window 1 - window 10) / (trains1 - trains10). */
function perTrainOverhead(built: Built, runs: number, progress: (line: string) => void): number {
  cancelQueue(built.store);
  const values: number[] = [];
  for (let r = 1; r <= runs; r += 1) {
    progress(`scale: drain ${r}/${runs} in ${built.dir}`);
    const narrow = drainAt(built, 1, `w1-${r}`);
    const wide = drainAt(built, DRAINED, `w10-${r}`);
    values.push((narrow.ms - wide.ms) / Math.max(1, narrow.trains - wide.trains));
  }
  return median(values);
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export function measureScale(root: string, opts: { jobs: number; queued: number; runs: number; progress: (line: string) => void }): ScaleRow {
  const { jobs, runs, progress } = opts;
  const queued = Math.min(opts.queued, jobs);
  const note = (message: string) => progress(`scale: ${message}`);
  progress(`scale: writing ${jobs} job records (${jobs - queued} finished, ${queued} queued)`);
  const big = buildScaleRepo(root, `scale-${jobs}`, jobs, queued, runs, note);
  progress(`scale: built in ${big.seconds.toFixed(1)}s; timing status and submit`);
  land(big.dir, ['status', '--json']);
  const statusMs = median(Array.from({ length: runs }, () => land(big.dir, ['status', '--json']).ms));
  const submitMs = submitMedian(big, runs);
  const smallQueued = Math.min(queued, 10);
  const small = buildScaleRepo(root, 'scale-10', 10, smallQueued, runs, note);
  const submitMsSmall = submitMedian(small, runs);
  const perTrainOverheadMs = perTrainOverhead(big, Math.min(runs, 3), progress);
  const perTrainOverheadMsSmall = perTrainOverhead(small, Math.min(runs, 3), progress);
  return {
    jobs,
    finished: jobs - queued,
    queued,
    statusMs: round(statusMs),
    submitMs: round(submitMs),
    submitMsSmall: round(submitMsSmall),
    perTrainOverheadMs: round(perTrainOverheadMs),
    perTrainOverheadMsSmall: round(perTrainOverheadMsSmall),
    buildSeconds: Math.round(big.seconds * 10) / 10,
  };
}
