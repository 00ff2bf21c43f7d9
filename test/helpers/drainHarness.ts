// The in-process drain: the real drain (lib/landing/drain.ts) on a real temporary repository with
// real git and real gate processes, opened the way `land run` opens it (lib/cli/commands/run.ts),
// with its events collected in memory instead of printed. No mock of git or of the store: what it
// saves against the built CLI is the Node start of each `land submit`, `land run`, `land window`
// and `land status` (about 0.2 s of CPU each; importing lib/ in a worker is paid once per worker). Tests that check a variant of a drain decision
// use it; one end-to-end test per behaviour still runs the CLI (docs/development.md#test-tiers).
import { userIdentity } from '../../lib/git/index.js';
import { CommandContext } from '../../lib/cli/context.js';
import { drain, type DrainSummary } from '../../lib/landing/drain.js';
import type { DrainEvent } from '../../lib/landing/events.js';
import { storedFlakeEvidence } from '../../lib/landing/flakeHistory.js';
import { resolveSandboxHost } from '../../lib/landing/gates/sandboxHost.js';
import { setWindow } from '../../lib/landing/window.js';
import { displayOrder, submitJob } from '../../lib/queue/index.js';
import type { JobRecord } from '../../lib/store/index.js';

/** What `land run --json` prints: its events, then the summary. */
export interface DrainRunResult {
  summary: DrainSummary;
  events: DrainEvent[];
  /** The events of one type, narrowed. */
  of<T extends DrainEvent['type']>(type: T): Extract<DrainEvent, { type: T }>[];
}

export interface DrainRunOptions {
  /** `--once`: one admitted batch (with its bisection), then stop. */
  once?: boolean;
  /** `--target <branch>`. */
  target?: string;
  /**
   * The drainer's environment for this run, as `land(dir, args, { env })` gives the CLI's: set (or,
   * undefined, removed) in this process while the drain runs, then restored. Gates inherit it.
   */
  env?: Record<string, string | undefined>;
}

/** One `land run` in this process, with `opts.env` as the drainer's environment while it runs. */
export async function runDrain(cwd: string, opts: DrainRunOptions = {}): Promise<DrainRunResult> {
  const restore = setEnv(opts.env ?? {});
  try {
    return await drainOnce(cwd, opts);
  } finally {
    restore();
  }
}

/** Sets (or removes) variables of process.env; returns what puts them back. */
function setEnv(env: Record<string, string | undefined>): () => void {
  const saved = Object.keys(env).map((key) => [key, process.env[key]] as const);
  const put = (key: string, value: string | undefined) => {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };
  for (const [key, value] of Object.entries(env)) put(key, value);
  return () => {
    for (const [key, value] of saved) put(key, value);
  };
}

/**
 * The command's context, its store and the gates' sandbox resolved as `land run` resolves them, then
 * the drain with the command's options (no signal has arrived, no --watch). The one place the
 * harness builds a drain: when the drain's inputs change shape, only this function changes.
 */
async function drainOnce(cwd: string, opts: DrainRunOptions): Promise<DrainRunResult> {
  const ctx = await CommandContext.open({ cwd, target: opts.target });
  const queue = await ctx.queue();
  const { store } = queue;
  const sandbox = await resolveSandboxHost(ctx.cwd, store, { probe: true });
  const events: DrainEvent[] = [];
  const abort = new AbortController();
  const summary = await drain(
    ctx.cwd,
    store,
    {
      once: Boolean(opts.once),
      wait: true,
      stopAfterTrain: () => false,
      abort: abort.signal,
      target: await queue.target(),
      policy: await queue.policy(),
      watch: null,
      sandbox,
    },
    (event) => events.push(event),
  );
  return {
    summary,
    events,
    of: <T extends DrainEvent['type']>(type: T) => events.filter((e): e is Extract<DrainEvent, { type: T }> => e.type === type),
  };
}

/**
 * `land submit <branch>... [--target <t>] [--urgent]` in this process: the jobs' ids, in order (an
 * existing job's id for a branch already queued).
 */
export async function submitInProcess(cwd: string, branches: readonly string[], opts: { target?: string; urgent?: boolean } = {}): Promise<string[]> {
  const ctx = await CommandContext.open({ cwd, target: opts.target });
  const store = await ctx.store();
  const target = await ctx.targetName();
  const ids: string[] = [];
  for (const branch of branches) ids.push((await submitJob(store, { cwd: ctx.cwd, branch, target, urgent: opts.urgent })).job.id);
  return ids;
}

/** `land window --set <size>` in this process, clamped to `max` (the policy's batch.max) as the command clamps. */
export async function setWindowInProcess(cwd: string, size: number, max: number): Promise<void> {
  const ctx = await CommandContext.open({ cwd });
  const store = await ctx.store();
  const by = await userIdentity(ctx.cwd);
  await store.withQueueLock(() => setWindow(store, size, max, by));
}

/** Job records as the state folder holds them; an id without a record fails the test, naming it. */
export async function readJobs(cwd: string): Promise<(id: string | undefined) => JobRecord> {
  const ctx = await CommandContext.open({ cwd });
  const store = await ctx.store();
  return (id) => {
    const job = id === undefined ? null : store.readJob(id);
    if (!job) throw new Error(`no job record ${String(id)} in ${store.root}`);
    return job;
  };
}

/** Every job record, in landing order: what `land status --all` lists, read in this process. */
export async function allJobsInProcess(cwd: string): Promise<JobRecord[]> {
  const ctx = await CommandContext.open({ cwd });
  const store = await ctx.store();
  return displayOrder(store.listJobs().jobs);
}

/** Each gate's clean runs and flakes as a drain in `cwd` would weigh them (landing/flakeHistory.ts), read in this process. */
export async function flakeEvidenceInProcess(cwd: string): Promise<Map<string, { passed: number; flakes: number }>> {
  const ctx = await CommandContext.open({ cwd });
  return storedFlakeEvidence(await ctx.store());
}
