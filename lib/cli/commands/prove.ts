import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import type { Command } from 'commander';
import { EXIT_CODES, LandError } from '../../errors.js';
import { proveHead, type ProveResult } from '../../landing/proofs/prove.js';
import { action } from '../action.js';
import { short } from '../output.js';

function failureMessage(result: ProveResult): string {
  const failure = result.failure;
  const what = failure === null ? result.verdict : failure.kind === 'stopped' ? `gate ${failure.gate}: stopped` : `gate ${failure.gate}: ${failure.status}`;
  return `prove ${result.verdict}: ${what}; log ${result.log}`;
}

export function registerProve(program: Command): void {
  program
    .command('prove')
    .description('run the gates on HEAD merged onto the target tip (no checkout of your tree) and record a local proof on PASS')
    .option('--json', 'print { verdict, tree, gatedTree, restored, planBaseTree, gatesHash, log, proof } as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx) => {
        const store = await ctx.store();
        const loaded = await ctx.policy();
        const abort = new AbortController();
        const onSignal = () => abort.abort();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        let result: ProveResult;
        try {
          result = await proveHead({
            cwd: ctx.cwd,
            store,
            loaded,
            sandbox: await resolveSandboxHost(ctx.cwd, store, { probe: true }),
            signal: abort.signal,
            onGate: (e) => ctx.out.note(e.phase === 'started' ? `  gate ${e.gate} ...` : `  gate ${e.gate}: ${e.status ?? ''} (${e.seconds ?? 0}s)`),
          });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
        for (const note of result.notes) ctx.out.note(`note: ${note}`);
        if (ctx.out.json) {
          const { verdict, tree, gatedTree, restored, planBaseTree, gatesHash, log, proof, head, base, commit, seconds, notes } = result;
          ctx.out.emit({ verdict, tree, gatedTree, restored, planBaseTree, gatesHash, log, proof, head, base, commit, seconds, notes });
        } else if (result.verdict === 'PASS') {
          ctx.out.say(
            `proved: ${short(result.head)} on ${loaded.target} at ${short(result.base)} -> tree ${short(result.tree)} PASS (${result.seconds}s); log ${result.log}`,
          );
        }
        if (result.verdict === 'PASS') return 0;
        if (result.verdict === 'STOPPED') {
          ctx.out.note(`land: ${failureMessage(result)}`);
          return EXIT_CODES.interrupted;
        }
        throw new LandError('state', failureMessage(result), { hint: 'no proof was recorded' });
      }),
    );
}
