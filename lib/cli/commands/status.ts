import type { Command } from 'commander';
import { listWorktrees } from '../../git/index.js';
import { displayOrder, listActiveJobs } from '../../queue/index.js';
import type { QueueStore, JobRecord, QueueView } from '../../store/index.js';
import { etaBasis, etaSeconds, gateHistoryFromMetrics, gatesInForce, HISTORY_KEPT, type EtaBasis } from '../../landing/plan/eta.js';
import { hasWindowRow, policyBatchMax, readWindowAndPolicy, windowSummary, type PolicyOfCommand } from '../../landing/windowView.js';
import type { CommandContext } from '../context.js';
import { action } from '../action.js';
import { sandboxView } from '../sandboxView.js';
import { executorLine, executorStatuses } from '../../landing/executors/statusView.js';
import { executorsOf } from '../../landing/executors/slots.js';
import { table } from '../../text/table.js';
import { age, approximately, showName, short } from '../output.js';
import { printable } from '../../text/safeText.js';

function stateText(job: JobRecord): string {
  const parts: string[] = [job.state];
  if (job.stopRequest) parts.push(`stop:${job.stopRequest.kind}`);
  if (job.reason && job.state !== 'landed' && job.reason !== job.state) parts.push(job.reason);
  return parts.join(' ');
}

function note(job: JobRecord): string {
  if (job.conflictPreview) return `conflicts: ${job.conflictPreview.paths.join(', ')}`;
  if (job.batch && job.state === 'in_progress') return `train ${job.batch.id} round ${job.batch.attempt}`;
  return job.title === job.branch ? '' : job.title;
}

/** An uncertain job, above the queue: what disagreed and how to decide it. */
function uncertainLine(job: JobRecord): string {
  const why = job.error?.message ?? job.reason ?? 'its record and git disagree';
  return `uncertain ${job.id} ${showName(job.branch)} ${short(job.tip)}: ${why}; not drained until decided: see land reconcile (land reconcile --resolve ${job.id} landed|queued|failed|canceled)`;
}

function queueLine(queue: QueueView): string {
  const d = queue.drainer;
  const who = !d
    ? 'no drainer yet: nothing lands until one runs `land run`'
    : d.released
      ? `last drained by ${d.host} (lease released)`
      : `drained by ${d.holder.slice(0, 8)} on ${d.host} (pid ${d.pid}, lease epoch ${d.epoch})`;
  return `queue kept in ${queue.remote} (refs/land/*); ${who}`;
}

/** The line under the table that says what the estimates rest on. */
function etaNote(basis: EtaBasis): string {
  if (basis.reason !== null || basis.medianTrainSeconds === null || basis.window === null) return `eta: ${basis.reason ?? 'no history yet'}`;
  return `eta: ${approximately(basis.medianTrainSeconds)} per train (the median gate time of the last ${basis.trainsMeasured} gated train(s)), window ${basis.window}${basis.runningTrain ? ', after the running train' : ''}`;
}

/**
 * What an empty listing means: no job was ever submitted here (no journal), or the queue emptied.
 * Without a journal, train worktrees git still registers under the state folder are traces of a
 * state folder that was removed (by hand, or by a gate) while a drain ran: said, not hidden.
 */
async function emptyQueueText(store: QueueStore, cwd: string, remote: string | null): Promise<string> {
  if (store.hasJournal()) return 'the queue is empty';
  const trains = (await listWorktrees(cwd).catch(() => [])).filter((tree) => tree.path.startsWith(`${store.paths.trainsDir}/`));
  if (!trains.length) return `the queue is empty: no job submitted ${remote ? `to ${remote} ` : 'here '}yet (land submit <branch> queues one)`;
  return [
    `no queue here: ${store.root} holds no journal, but git still registers ${trains.length} train worktree(s) under it:`,
    ...trains.map((tree) => `  ${tree.path}${tree.prunable ? ' (folder gone)' : ''}`),
    'the state folder was removed while a drain ran? its jobs are gone: resubmit their branches; `git worktree prune` clears the leftovers',
  ].join('\n');
}

/** What `land status` shows, read once: the jobs in display order, the window, the ETA's basis. */
async function readStatus(store: QueueStore, loadPolicy: PolicyOfCommand, all: boolean) {
  // The index of active jobs: finished records are read only with --all (docs/state.md).
  const { jobs, corrupt } = all ? store.listJobs() : await listActiveJobs(store);
  const shown = displayOrder(jobs).filter((job) => all || job.state === 'queued' || job.state === 'in_progress');
  // One read of the metrics' tail for the ETA's history and, in a developer's clone of a
  // remote queue, the drainer's window: read until both have what they need.
  const known = await policyBatchMax(loadPolicy);
  const inForce = known.kind === 'known' ? gatesInForce(known.policy.gates) : null;
  const history = (rows: readonly unknown[]) => gateHistoryFromMetrics(rows, inForce);
  const windowNeeded = store.rowsPerDrainer; // a clone's own queue keeps its window in window.json
  const tail = store.readMetricsTail((rows) => history(rows).trainSeconds.length >= HISTORY_KEPT && (!windowNeeded || hasWindowRow(rows)));
  const { view: window, policy } = await readWindowAndPolicy(store, loadPolicy, tail);
  // How gates will run: a warning when a queued change's code would run unsandboxed (or not at all).
  const sandbox = policy && (policy.gates.length || policy.refresh.length) ? sandboxView(store, policy) : null;
  // Where trains gate, when the policy names executors: each one's health as this clone's drain last found it.
  const executors = policy?.executors.length ? executorStatuses(executorsOf(policy), store.readExecutorHealth()) : null;
  let position = 0;
  const rows = shown.map((job) => ({ position: job.state === 'queued' ? ++position : null, job }));
  // When each queued job may land: trains ahead × the median gated train (see lib/landing/plan/eta.ts).
  // Only trains under the gates in force count: a changed gate command starts a new history.
  // A remote queue whose lease nobody holds has no drainer running: nothing lands until one starts.
  const queue = await store.describe();
  const drainerRunning = queue.remote === null || (queue.drainer !== null && !queue.drainer.released);
  const basis = etaBasis(
    history(tail),
    window.size,
    jobs.some((job) => job.state === 'in_progress'),
    { drainerRunning },
  );
  // Uncertain jobs wait for a person (land reconcile --resolve): always shown, apart from the queue.
  const uncertain = jobs.filter((job) => job.state === 'uncertain');
  const etaOf = (pos: number | null) => (pos === null ? null : etaSeconds(pos, basis));
  return { jobs, corrupt, rows, window, sandbox, executors, queue, basis, uncertain, etaOf, queued: position };
}

type StatusFacts = Awaited<ReturnType<typeof readStatus>>;

/** The human form: the window line, the queue's line, uncertain jobs, then the table and the ETA's note. */
async function printStatus(ctx: CommandContext, store: QueueStore, facts: StatusFacts): Promise<void> {
  const { jobs, rows, window, queue, basis, uncertain, etaOf } = facts;
  ctx.out.say(
    `${printable(windowSummary(window))}; ${jobs.filter((j) => j.state === 'queued').length} queued, ${jobs.filter((j) => j.state === 'in_progress').length} running`,
  );
  if (queue.remote) ctx.out.say(printable(queueLine(queue)));
  if (facts.executors) ctx.out.say(['executors:', ...facts.executors.map((e) => `  ${printable(executorLine(e, Date.now()))}`)].join('\n'));
  for (const job of uncertain) ctx.out.say(uncertainLine(job));
  if (!rows.length) {
    ctx.out.say(await emptyQueueText(store, ctx.cwd, queue.remote));
    return;
  }
  ctx.out.say(
    table(
      ['#', 'id', 'state', 'branch', 'tip', 'age', 'eta', 'note'],
      rows.map(({ position: pos, job }) => {
        const eta = etaOf(pos);
        return [
          pos === null ? (job.state === 'in_progress' ? 'run' : '') : String(pos),
          job.id,
          stateText(job),
          showName(job.branch),
          short(job.tip),
          age(job.timestamps.queued),
          eta === null ? (pos === null ? '' : '?') : approximately(eta),
          note(job),
        ];
      }),
    ),
  );
  if (facts.queued > 0) ctx.out.say(etaNote(basis));
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('the queue in landing order: position, state, branch, tip, age, estimated time to land')
    .option('--all', 'include landed, failed and canceled jobs')
    .option('--json', 'print { queue, window, jobs, corrupt, estimate, uncertain, sandbox, executors } as JSON (each job with its eta in seconds)')
    .action(
      action<{ all?: boolean; json?: boolean }>(async (ctx, opts) => {
        const { store, policy: loadPolicy } = await ctx.queue();
        const facts = await readStatus(store, loadPolicy, Boolean(opts.all));
        for (const bad of facts.corrupt) ctx.out.note(`land: skipped corrupt job record ${printable(bad.file)}: ${printable(bad.problem)}`);
        if (facts.sandbox && facts.sandbox.gates !== 'sandbox') ctx.out.note(`warning: ${facts.sandbox.line}`);
        if (!ctx.out.json) return printStatus(ctx, store, facts);
        const { queue, window, rows, corrupt, basis, uncertain, sandbox, executors, etaOf } = facts;
        ctx.out.emit({
          queue,
          window,
          jobs: rows.map(({ position: pos, job }) => ({ position: pos, ...job, eta: etaOf(pos) })),
          corrupt,
          estimate: basis,
          uncertain,
          sandbox,
          executors,
        });
      }),
    );
}
