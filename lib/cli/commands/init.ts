import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { POLICY_FILE, type PolicyInput } from '../../config/index.js';
import { LandError } from '../../errors.js';
import { commonDir, topLevel } from '../../git/index.js';
import { action } from '../action.js';

interface InitOptions {
  json?: boolean;
  gate?: string[];
  force?: boolean;
}

export function starterPolicy(target: string, gates: readonly string[]): PolicyInput {
  return {
    target,
    remote: 'origin',
    gates: (gates.length ? gates : ['npm test']).map((run, index) => ({
      name: index === 0 ? 'test' : `gate-${index + 1}`,
      run,
      timeoutSeconds: 600,
    })),
    batch: { max: 8, waitSeconds: 0 },
    publish: { auto: false },
  };
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(`write a starting ${POLICY_FILE} in the worktree (refuses to overwrite); commit it on the target`)
    .option('--gate <command...>', 'gate command(s) to start with (default: "npm test")')
    .option('--json', 'print the written policy as JSON')
    .action(
      action<InitOptions>(async (ctx, opts) => {
        await commonDir(ctx.cwd); // outside a repository: a usage error that says so
        const top = await topLevel(ctx.cwd);
        if (top === null) throw new LandError('usage', 'land init needs a worktree (this repository is bare)');
        const file = join(top, POLICY_FILE);
        if (existsSync(file)) throw new LandError('state', `${file} already exists; not overwriting it`);
        const target = await ctx.targetName();
        const policy = starterPolicy(target, opts.gate ?? []);
        writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`);
        if (ctx.out.json) ctx.out.emit({ file, policy });
        ctx.out.say(`wrote ${file}`);
        ctx.out.say(`next: git add ${POLICY_FILE} && git commit -m "land policy" on ${target}; the policy is read from ${target}'s tip`);
      }),
    );
}
