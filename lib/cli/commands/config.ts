import type { Command } from 'commander';
import { gatesHash, policyJsonSchema } from '../../config/index.js';
import { checkSandboxPaths, isolationOf } from '../../landing/gates/sandbox.js';
import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import { action } from '../action.js';
import { sandboxView } from '../sandboxView.js';

export function registerConfig(program: Command): void {
  const config = program
    .command('config')
    .description("print the policy in force (read from the target branch's tip)")
    .option('--json', 'print the effective policy as JSON, defaults filled in')
    .action(
      action<{ json?: boolean }>(async (ctx) => {
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
        ctx.out.say(JSON.stringify(policy, null, 2));
      }),
    );
  config
    .command('schema')
    .description('print the JSON Schema of .ctm.json (for editor completion)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
    });
}
