import type { Command } from 'commander';
import { EXIT_CODES, LandError } from '../../errors.js';
import { userIdentity } from '../../git/index.js';
import { parseAfter, parseLimit, parseResolveState, reconcile, resolveUncertain, type ReconcileResult } from '../../reconcile/index.js';
import type { DrainEvent } from '../../landing/events.js';
import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import { Notifier } from '../../landing/notify/notifier.js';
import type { JobRecord, QueueStore } from '../../store/index.js';
import { action } from '../action.js';
import type { CommandContext } from '../context.js';

interface ReconcileOpts {
  after?: string;
  limit?: string;
  check?: boolean;
  resolve?: string;
  json?: boolean;
}

/** The readable summary: one line per disagreement and what was done, the uncertain jobs, the page. */
function summaryLines(result: ReconcileResult): string[] {
  const lines = result.found.map((f) => `${f.job} ${f.check}: ${f.message} -> ${f.done}`);
  for (const id of result.decided) lines.push(`${id} uncertain: its train is in the target and its landing is on record -> landed`);
  for (const u of result.uncertain)
    lines.push(
      `${u.job} is uncertain (${u.reason ?? '?'}): ${u.message ?? ''}; decide it with land reconcile --resolve ${u.job} landed|queued|failed|canceled`,
    );
  const verb = result.check ? 'found' : 'repaired';
  const count = result.check ? result.disagreements : result.repaired;
  lines.push(
    `scanned ${result.scanned} job(s): ${result.disagreements} disagreement(s), ${count} ${verb}, ${result.uncertain.length} uncertain${result.nextAfter ? `; next page: land reconcile --after ${result.nextAfter}` : ''}`,
  );
  return lines;
}

/**
 * The policy's `uncertain` notifiers hear each job this run moved to uncertain (docs/policy.md#notify);
 * a notifier that fails is a warning on stderr. Without a readable policy, nobody is notified.
 * They run here, with the environment of whoever runs reconcile (documented: passEnv may be missing).
 */
async function notifyUncertain(ctx: CommandContext, store: QueueStore, result: ReconcileResult): Promise<void> {
  const ids = new Set(result.found.filter((f) => f.repaired && f.repair.kind === 'uncertain').map((f) => f.job));
  if (!ids.size) return;
  const loaded = await ctx.policy().catch(() => null);
  if (!loaded?.policy.notify.some((entry) => entry.on.includes('uncertain'))) return;
  const jobs = [...ids].map((id) => store.readJob(id)).filter((job): job is JobRecord => job?.state === 'uncertain');
  const sandbox = await resolveSandboxHost(ctx.cwd, store, { probe: true });
  const warn = (event: DrainEvent) => {
    if (event.type === 'warning') ctx.out.note(`warning: ${event.message}`);
  };
  const notifier = new Notifier({ store, target: loaded.target, sandbox, policy: () => loaded.policy, warn });
  notifier.uncertain(jobs);
  await notifier.settle();
}

export function registerReconcile(program: Command): void {
  program
    .command('reconcile')
    .argument('[state]', 'with --resolve: what the uncertain job is (landed, queued, failed or canceled)')
    .description('make job records agree with git, the journal, the metrics and the ledger; never runs a gate or moves the target')
    .option('--after <id>', 'start after this job id (ids in string order); a page ends with nextAfter')
    .option('--limit <n>', 'records per page, 1 to 100 (default 50)')
    .option('--check', 'only report; exit 12 when anything disagrees or a job is uncertain (for CI)')
    .option('--resolve <id>', 'decide an uncertain job: land reconcile --resolve <id> landed|queued|failed|canceled')
    .option('--json', 'print { scanned, repaired, disagreements, nextAfter, found, decided, uncertain } as JSON; with --resolve, { resolved }')
    .action(
      action<ReconcileOpts>(async (ctx, opts, args) => {
        if (opts.resolve === undefined && args.length)
          throw new LandError('usage', `unexpected argument ${JSON.stringify(args[0])}: a state goes with --resolve <id>`);
        if (opts.resolve !== undefined) {
          if (opts.check || opts.after !== undefined || opts.limit !== undefined)
            throw new LandError('usage', '--resolve goes alone (not with --check, --after or --limit)');
          const to = parseResolveState(args[0]);
          const store = await ctx.store();
          const job = await resolveUncertain({ cwd: ctx.cwd, store, target: await ctx.targetName(), id: opts.resolve, to, by: await userIdentity(ctx.cwd) });
          if (ctx.out.json) ctx.out.emit({ resolved: job });
          else ctx.out.say(`${job.id} resolved: ${job.state}`);
          return;
        }
        const after = parseAfter(opts.after);
        const limit = parseLimit(opts.limit);
        const store = await ctx.store();
        const result = await reconcile({ cwd: ctx.cwd, store, target: await ctx.targetName(), after, limit, check: opts.check === true });
        if (ctx.out.json) {
          const { scanned, repaired, disagreements, nextAfter, found, decided, uncertain } = result;
          ctx.out.emit({ scanned, repaired, disagreements, nextAfter, found, decided, uncertain });
        } else for (const line of summaryLines(result)) ctx.out.say(line);
        if (!result.check) await notifyUncertain(ctx, store, result);
        const dirty = result.disagreements > 0 || result.uncertain.length > 0;
        return opts.check && dirty ? EXIT_CODES.disagreement : 0;
      }),
    );
}
