import type { Command } from 'commander';
import { gatesHash, policyJsonSchema } from '../../config/index.js';
import { describeGateSlots } from '../../landing/executors/slots.js';
import { checkSandboxPaths, isolationOf } from '../../landing/gates/sandbox.js';
import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import { action } from '../action.js';
import { policyShown } from '../configView.js';
import { sandboxView } from '../sandboxView.js';

export function registerConfig(program: Command): void {
  const config = program
    .command('config')
    .description("print the policy in force (read from the target branch's tip)")
    .option('--json', 'print the effective policy as JSON, defaults filled in (every key)')
    .option('--all', "print every key, also the batch wrapper's ledger defaults when no gate runs `land batch`")
    .action(
      action<{ json?: boolean; all?: boolean }>(async (ctx, opts) => {
        const loaded = await ctx.policy();
        const { policy, target, tip } = loaded;
        const hash = gatesHash(policy.gates);
        const store = await ctx.store();
        const sandbox = sandboxView(store, policy);
        // A sandbox path inside the git folder is the policy's error, said here as land run would (exit 3).
        if (sandbox.gates === 'sandbox')
          checkSandboxPaths(isolationOf(await resolveSandboxHost(ctx.cwd, store, { probe: false }), policy.sandbox), policy.gates);
        if (ctx.out.json) {
          ctx.out.emit({ target, tip, gatesHash: hash, policy, sandbox });
          return;
        }
        ctx.out.say(`policy from ${target} at ${tip.slice(0, 12)} (gatesHash ${hash})`);
        if (sandbox.gates === 'sandbox') ctx.out.say(sandbox.line);
        else ctx.out.note(`warning: ${sandbox.line}`);
        ctx.out.say(describeGateSlots(policy));
        const { shown, ledgerHidden } = policyShown(policy, opts.all === true);
        ctx.out.say(JSON.stringify(shown, null, 2));
        if (ledgerHidden) ctx.out.say('(ledger, the settings of land batch: its defaults, not shown; --all shows them)');
      }),
    );
  config
    .command('schema')
    .description('print the JSON Schema of .ctm.json (for editor completion)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
    });
}
