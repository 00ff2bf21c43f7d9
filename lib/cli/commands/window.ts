import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { policyBatchMax, readWindowView } from '../../landing/windowView.js';
import { resetWindow, setWindow } from '../../landing/window.js';
import { action } from '../action.js';

export function registerWindow(program: Command): void {
  program
    .command('window')
    .description('show the batch window (size, max, recent history); maintainers can set or reset it')
    .option('--set <n>', 'set the window to n (clamped to batch.max)')
    .option('--reset', 'reset the window to its starting size (batch.max)')
    .option('--json', 'print { size, max, persisted, history } as JSON')
    .action(
      action<{ set?: string; reset?: boolean; json?: boolean }>(async (ctx, opts) => {
        const store = await ctx.store();
        if (opts.set !== undefined && opts.reset) throw new LandError('usage', 'use either --set or --reset, not both');
        // --set and --reset replace window.json, so they work even when it is corrupt.
        if (opts.set !== undefined) {
          const n = /^[0-9]+$/.test(opts.set) ? Number(opts.set) : Number.NaN;
          if (!Number.isInteger(n) || n < 1) throw new LandError('usage', `--set: expected a whole number >= 1, got ${JSON.stringify(opts.set)}`);
          const max = await policyBatchMax(ctx.cwd, ctx.options.target);
          await store.withQueueLock(() => setWindow(store, n, max));
        } else if (opts.reset) {
          const max = await policyBatchMax(ctx.cwd, ctx.options.target);
          await store.withQueueLock(() => resetWindow(store, max));
        }
        const after = await readWindowView(store, ctx.cwd, ctx.options.target);
        if (ctx.out.json) {
          ctx.out.emit(after);
          return;
        }
        ctx.out.say(`window ${after.size}${after.max === null ? ' (policy unreadable)' : ` of max ${after.max}`}`);
        for (const entry of after.history.slice(-10)) {
          ctx.out.say(`  ${entry.at}  ${entry.event.padEnd(5)} ${entry.before} -> ${entry.after}${entry.train ? `  ${entry.train}` : ''}`);
        }
      }),
    );
}
