import type { Command } from 'commander';
import { policySchema, type Policy } from '../../config/index.js';
import { isLandError } from '../../errors.js';
import { historyOf } from '../historyOf.js';
import { parseSince } from '../../stats/since.js';
import { tune } from '../../tune/recommend.js';
import type { ReplayFlaky, ReplaySetting } from '../../tune/replay.js';
import { tuneText } from '../../tune/tuneText.js';
import { action } from '../action.js';
import type { OpenedQueue } from '../openQueue.js';

/**
 * batch.max, waitSeconds and parallel of the target's policy, and its flaky rule (replayed from no
 * flake history, as the replay starts a new repository); the defaults (and why) when it cannot be read.
 */
async function currentSetting(queue: OpenedQueue): Promise<{ setting: ReplaySetting; flaky: ReplayFlaky; clearing: boolean; unreadable: string | null }> {
  try {
    const { policy } = await queue.policy();
    const { max, waitSeconds, parallel } = policy.batch;
    return { setting: { max, waitSeconds, parallel }, flaky: flakyOf(policy), clearing: policy.flaky.clearing, unreadable: null };
  } catch (error) {
    if (!isLandError(error) || error.code === 'usage') throw error;
    const { max, waitSeconds, parallel } = policySchema.shape.batch.parse({});
    const defaults = { flaky: policySchema.shape.flaky.parse({}), retries: policySchema.shape.retries.parse({}) };
    return { setting: { max, waitSeconds, parallel }, flaky: flakyOf(defaults), clearing: defaults.flaky.clearing, unreadable: error.message };
  }
}

function flakyOf(policy: Pick<Policy, 'flaky' | 'retries'>): ReplayFlaky {
  const { rule, threshold } = policy.flaky;
  return rule === 'evidence' ? { rule, threshold, history: { passed: 0, flakes: 0 } } : { rule, allowance: policy.retries.flaky };
}

export function registerTune(program: Command): void {
  program
    .command('tune')
    .description(
      'replay the recorded history under other batch.max, batch.waitSeconds and batch.parallel values, and recommend one; and whether to turn flaky.clearing on',
    )
    .option('--since <time>', 'replay only the jobs of this period: a date (2026-11-01), a date and time, or a span back from now (90m, 24h, 7d, 2w)')
    .option('--all', 'list every replayed setting (default: the current one, each one-value change of it, and the recommended one)')
    .option('--json', 'print { current, policy, since, input, settings, recommendation, clearing } as JSON (every replayed setting)')
    .action(
      action<{ since?: string; all?: boolean; json?: boolean }>(async (ctx, opts) => {
        const now = Date.now();
        const since = opts.since === undefined ? null : parseSince(opts.since, now);
        const queue = await ctx.queue();
        const { store } = queue;
        const history = historyOf(store, { since, now });
        const { setting, flaky, clearing, unreadable } = await currentSetting(queue);
        const advice = tune(history, setting, flaky, clearing);
        if (ctx.out.json) {
          ctx.out.emit({
            ...advice,
            policy: { readable: unreadable === null, reason: unreadable },
            since: since === null ? null : new Date(since).toISOString(),
          });
          return;
        }
        if (unreadable !== null && advice.settings.length) ctx.out.note(`the policy cannot be read (${unreadable}): the current setting shown is the defaults`);
        for (const line of tuneText(advice, opts.all === true)) ctx.out.say(line);
      }),
    );
}
