import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { userIdentity } from '../../git/index.js';
import { knownMax, policyBatchMax, readWindowView, windowSummary } from '../../landing/windowView.js';
import { resetWindow, setWindow } from '../../landing/window.js';
import type { WindowHistoryEntry } from '../../store/index.js';
import { action } from '../action.js';

function historyLine(entry: WindowHistoryEntry): string {
  const what = entry.train ?? (entry.by === undefined ? '' : `by ${entry.by}`);
  return `  ${entry.at}  ${entry.event.padEnd(5)} ${entry.before} -> ${entry.after}${what ? `  ${what}` : ''}`;
}

export function registerWindow(program: Command): void {
  program
    .command('window')
    .description('show the batch window (size, max, recent history and who changed it); maintainers can set or reset it')
    .option('--set <n>', 'set the window to n (clamped to batch.max; says so when it clamps)')
    .option('--reset', 'reset the window to its starting size (batch.max) and forget the recorded culprit rate')
    .option('--json', 'print { size, max, reason, persisted, history } as JSON (size null when the policy cannot be read; with --set also asked and clamped)')
    .action(
      action<{ set?: string; reset?: boolean; json?: boolean }>(async (ctx, opts) => {
        const { store, policy } = await ctx.queue();
        if (opts.set !== undefined && opts.reset) throw new LandError('usage', 'use either --set or --reset, not both');
        // --set and --reset replace window.json, so they work even when it is corrupt.
        let change: { said: string; fields: Record<string, unknown> } | null = null;
        if (opts.set !== undefined) {
          const n = /^[0-9]+$/.test(opts.set) ? Number(opts.set) : Number.NaN;
          if (!Number.isInteger(n) || n < 1) throw new LandError('usage', `--set: expected a whole number >= 1, got ${JSON.stringify(opts.set)}`);
          const max = knownMax(await policyBatchMax(policy));
          const by = await userIdentity(ctx.cwd);
          const { state, clamped } = await store.withQueueLock(() => setWindow(store, n, max, by));
          const why = clamped ? ` (asked ${n}; clamped to batch.max ${max})` : max === null ? ' (not clamped: batch.max is unknown)' : '';
          change = { said: `window set to ${state.size}${why}`, fields: { asked: n, clamped } };
        } else if (opts.reset) {
          const max = knownMax(await policyBatchMax(policy));
          const by = await userIdentity(ctx.cwd);
          const state = await store.withQueueLock(() => resetWindow(store, max, by));
          change = { said: `window reset to ${state.size}${max === null ? ' (batch.max is unknown)' : ' (batch.max)'}`, fields: {} };
        }
        const view = await readWindowView(store, policy);
        if (ctx.out.json) {
          ctx.out.emit({ ...view, ...change?.fields });
          return;
        }
        if (change) ctx.out.say(change.said);
        const persisted = view.size === null && view.persisted !== null ? `; persisted ${view.persisted}` : '';
        ctx.out.say(`${windowSummary(view)}${persisted}`);
        for (const entry of view.history.slice(-10)) ctx.out.say(historyLine(entry));
      }),
    );
}
