// Refresh entries (`refresh[]` in the policy): when a train changes a path an entry names, the
// entry's command runs in the train's worktree before the gates (for example to regenerate a lock
// file), and whatever it changed is committed on top of the train. The gates then run on that
// commit. A refresh that fails fails the train (reason `refresh`).
import type { Gate, RefreshEntry } from '../../config/index.js';
import { changedPaths, commitTree, moveDetachedHead, stageAll, treeOf, writeTreeOfIndex, type PinnedWorktree } from '../../git/index.js';
import type { QueueStore } from '../../store/index.js';
import { gateEnvironment, type TrainEnv } from './gateEnv.js';
import { anyPathMatches } from '../plan/glob.js';
import type { LogSink } from './logSink.js';
import { outcomeText, runInGroup, type GroupOutcome } from './processGroup.js';
import { sandboxForRun, type Isolation } from './sandbox.js';

export type RefreshOutcome =
  | { kind: 'unchanged' }
  | { kind: 'refreshed'; commit: string; tree: string; entries: string[] }
  | { kind: 'failed'; entry: string; status: string }
  /** A stop request or signal ended an entry: the run says nothing; requeue, do not fail. */
  | { kind: 'stopped'; entry: string };

/** The entries a change triggers, in policy order. Pure. */
export function triggeredEntries(entries: readonly RefreshEntry[], changed: readonly string[]): RefreshEntry[] {
  return entries.filter((entry) => anyPathMatches(changed, entry.paths));
}

/** Why an entry did not succeed, or null when it exited 0. */
function statusOf(outcome: GroupOutcome): string | null {
  return outcome.kind === 'exited' && outcome.code === 0 ? null : outcomeText(outcome);
}

/** A refresh command sees the same allow-listed environment as a gate (no policy-named extras). */
function refreshEnvironment(entry: RefreshEntry, train: TrainEnv): Record<string, string> {
  const asGate: Gate = { name: 'refresh', run: entry.run, timeoutSeconds: entry.timeoutSeconds, env: {}, passEnv: [] };
  return gateEnvironment(asGate, train);
}

export async function runRefresh(opts: {
  cwd: string;
  store: QueueStore;
  entries: readonly RefreshEntry[];
  base: string;
  train: string;
  /** Already checked out at `train`, detached. Left at the refresh commit when one is made. */
  worktree: string;
  /**
   * Its git folder, read when it was made (pinWorktree), before any of a change's code ran in it:
   * land's own git calls in it after an entry name that folder, never what its `.git` says then.
   */
  pinned: PinnedWorktree;
  log: LogSink;
  signal?: AbortSignal;
  /** The worktree is land's own (GroupCommand.ownsCwd): what still works in it after an entry is killed. */
  ownsWorktree?: boolean;
  /** LAND_* variables for the commands; LAND_TIP and LAND_BASE default to train and base. */
  trainEnv?: Partial<TrainEnv>;
  /** How the commands are isolated, as gates are (./sandbox.ts); absent or null: unsandboxed. */
  isolation?: Isolation | null;
}): Promise<RefreshOutcome> {
  if (!opts.entries.length) return { kind: 'unchanged' };
  const changed = await changedPaths(opts.cwd, opts.base, opts.train);
  const entries = triggeredEntries(opts.entries, changed);
  if (!entries.length) return { kind: 'unchanged' };
  const trainEnv: TrainEnv = { LAND_TIP: opts.train, LAND_BASE: opts.base, LAND_JOB: '', LAND_MEMBERS: '', LAND_TRAIN: '', ...opts.trainEnv };

  const { pinned } = opts;
  for (const entry of entries) {
    const argv = typeof entry.run === 'string' ? ['sh', '-c', entry.run] : [...entry.run];
    opts.log.setSecrets([]);
    const sandbox = sandboxForRun(opts.isolation, {}, opts.worktree, opts.log);
    opts.log.line(`== refresh "${entry.message}": ${JSON.stringify(argv)} (timeout ${entry.timeoutSeconds}s${sandbox ? ', sandboxed' : ''})`);
    const outcome = await runInGroup({
      argv,
      cwd: opts.worktree,
      env: refreshEnvironment(entry, trainEnv),
      timeoutSeconds: entry.timeoutSeconds,
      output: opts.log,
      signal: opts.signal,
      ownsCwd: opts.ownsWorktree,
      sandbox,
    });
    const status = statusOf(outcome);
    opts.log.line(`== refresh "${entry.message}": ${status ?? 'exit 0'} after ${outcome.seconds}s`);
    if (outcome.kind === 'stopped') return { kind: 'stopped', entry: entry.message };
    if (status !== null) return { kind: 'failed', entry: entry.message, status };
  }

  await stageAll(opts.worktree, pinned);
  const tree = await writeTreeOfIndex(opts.worktree, pinned);
  if (tree === (await treeOf(opts.cwd, opts.train))) {
    opts.log.line('== refresh: no file changed');
    return { kind: 'unchanged' };
  }
  const messages = entries.map((entry) => entry.message);
  const message = `${messages.join('\n')}\n\nLand-Refresh-Of: ${opts.train}`;
  const commit = await commitTree(opts.cwd, tree, [opts.train], message);
  await moveDetachedHead(opts.worktree, commit, pinned);
  opts.log.line(`== refresh: committed ${commit} on top of the train`);
  return { kind: 'refreshed', commit, tree, entries: messages };
}
