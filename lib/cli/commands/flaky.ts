import type { Command } from 'commander';
import { flakeTally, gateEvidenceOf } from '../../stats/flakeTally.js';
import { flakyReport, flakyText } from '../../stats/flakyReport.js';
import { parseSince } from '../../stats/since.js';
import { unreadablePolicyReason, type LoadedPolicy } from '../../config/index.js';
import { historyOf } from '../historyOf.js';
import type { QueueStore } from '../../store/index.js';
import { action } from '../action.js';

interface FlakyOptions {
  since?: string;
  json?: boolean;
}

/** The advisory gates of the policy in force, or why it cannot be read (the history is still shown). */
async function advisoryGates(policy: () => Promise<LoadedPolicy>): Promise<{ advisory: string[] } | { problem: string }> {
  try {
    const { gates } = (await policy()).policy;
    return { advisory: gates.filter((gate) => gate.advisory === true).map((gate) => gate.name) };
  } catch (error) {
    // An unreadable policy must not hide the history; its first problem is named as `land status` names it.
    return { problem: unreadablePolicyReason(error) };
  }
}

/** Every gate's flake figures over the whole history (what `assumed` weighs when `--since` narrows the rest). */
function wholeTally(store: QueueStore, now: number) {
  const history = historyOf(store, { since: null, now });
  return flakeTally([...history.trains, ...history.voided], history.jobs);
}

export function registerFlaky(program: Command): void {
  program
    .command('flaky')
    .description(
      "each gate's runs, flakes, confirmed failures, estimated flake rate and the rate the drain assumes when it fails (flaky.rule evidence), the recent flaky trees with their evidence, and the advisory gates",
    )
    .option(
      '--since <time>',
      'only the period from <time>: a date (2026-11-01), a date and time (2026-11-01T12:00Z) or a span back from now (90m, 24h, 7d, 2w)',
    )
    .option('--json', 'print { period, gates, recent, advisory, policyProblem } as JSON (docs/commands.md#land-flaky)')
    .action(
      action<FlakyOptions>(async (ctx, opts) => {
        const now = Date.now();
        const since = opts.since === undefined ? null : parseSince(opts.since, now);
        // The queue's store and policy, each read once; a queue kept in a remote is fetched when opened.
        const { store, policy } = await ctx.queue();
        const history = historyOf(store, { since, now });
        const tally = flakeTally([...history.trains, ...history.voided], history.jobs);
        const period = { since: since === null ? null : new Date(since).toISOString(), until: new Date(now).toISOString() };
        // The rate a drain assumes weighs the whole history, whatever period is shown.
        const evidence = gateEvidenceOf(since === null ? tally : wholeTally(store, now));
        const report = flakyReport(tally, await advisoryGates(policy), period, evidence);
        if (ctx.out.json) ctx.out.emit(report);
        else ctx.out.say(flakyText(report));
      }),
    );
}
