import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { forgetRequest, VERDICT_HEADERS, verdictRow, verdictsInOrder, verdictsToForget } from '../../landing/gates/verdictList.js';
import { parseSince } from '../../stats/since.js';
import type { VerdictRecord } from '../../store/index.js';
import { table } from '../../text/table.js';
import { action } from '../action.js';

/** An entry as `--json` prints it: every field, `voided` null when it is trusted. */
const asJson = (record: VerdictRecord) => ({ ...record, voided: record.voided ?? null });

export function registerVerdicts(program: Command): void {
  const verdicts = program
    .command('verdicts')
    .description("list the verdict cache: each judged tree's PASS or FAIL under a gates hash, the train that judged it, and whether it was voided")
    .option('--json', 'print { verdicts: [...] }, oldest first')
    .action(
      action<{ json?: boolean }>(async (ctx) => {
        const records = verdictsInOrder((await ctx.store()).listVerdicts());
        if (ctx.out.json) ctx.out.emit({ verdicts: records.map(asJson) });
        else if (!records.length) ctx.out.say('no cached verdicts');
        else ctx.out.say(table(VERDICT_HEADERS, records.map(verdictRow)));
      }),
    );
  verdicts
    .command('forget [tree]')
    .description('remove cached verdicts: those of one tree (every gates hash), every FAIL (--fails), or those recorded since a time (--since)')
    .option('--fails', 'only FAILs (with --since: FAILs recorded since then)')
    .option('--since <span>', 'recorded since: a span back from now (90m, 24h, 7d) or an ISO date or time')
    .option('--json', 'print { forgot: [...] }')
    .action(
      action<{ fails?: boolean; since?: string; json?: boolean }>(async (ctx, opts, args) => {
        const since = opts.since === undefined ? null : parseSince(opts.since, Date.now());
        const request = forgetRequest(args[0], { fails: opts.fails, since });
        const store = await ctx.store();
        const gone = verdictsToForget(store.listVerdicts(), request).filter((record) => store.removeVerdict(record.tree, record.gatesHash));
        if (request.kind === 'tree' && !gone.length) throw new LandError('not_found', `no cached verdict for tree ${request.tree}`);
        if (ctx.out.json) ctx.out.emit({ forgot: gone.map(asJson) });
        else ctx.out.say(`forgot ${gone.length} cached verdict${gone.length === 1 ? '' : 's'}`);
      }),
    );
}
