import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_TARGET, namedTarget, POLICY_FILE, suggestTrusted, type PolicyInput } from '../../config/index.js';
import { chooseInitTarget, type InitTarget } from '../../config/initTarget.js';
import { LandError } from '../../errors.js';
import { branchTip, commonDir, configGet, configSet, currentBranch, remoteDefaultBranch, topLevel } from '../../git/index.js';
import { action } from '../action.js';
import type { CommandContext } from '../context.js';

interface InitOptions {
  json?: boolean;
  gate?: string[];
  force?: boolean;
}

/** The gate commands a starting policy runs: the --gate ones, else `npm test`. */
export function starterGates(gates: readonly string[]): string[] {
  return gates.length ? [...gates] : ['npm test'];
}

/**
 * `trusted`: the gate scripts and CI folders found (docs/policy.md#trusted); may be empty.
 * `readOnly`: what the gate sandbox shows from the drainer's checkout (a Node project's
 * node_modules: the train's fresh checkout has none; docs/sandbox.md#how-a-gate-gets-its-dependencies).
 */
export function starterPolicy(target: string, gates: readonly string[], trusted: readonly string[] = [], readOnly: readonly string[] = []): PolicyInput {
  return {
    target,
    remote: 'origin',
    gates: starterGates(gates).map((run, index) => ({
      name: index === 0 ? 'test' : `gate-${index + 1}`,
      run,
      timeoutSeconds: 600,
    })),
    trusted: [...trusted],
    batch: { max: 8, waitSeconds: 0 },
    publish: { auto: false },
    ...(readOnly.length ? { sandbox: { readOnly: [...readOnly] } } : {}),
  };
}

/** Whether `path` (relative to the worktree's top) is a file, or a folder. */
function existsIn(top: string): (path: string, kind: 'file' | 'folder') => boolean {
  return (path, kind) => {
    try {
      const stat = statSync(join(top, path));
      return kind === 'file' ? stat.isFile() : stat.isDirectory();
    } catch {
      return false;
    }
  };
}

/**
 * The target init writes: the one named (`--target`, `LAND_TARGET`, `land.target`), else the one
 * chooseInitTarget picks from the repository's branches (a `master` repository gets `master`).
 */
async function initTarget(ctx: CommandContext): Promise<InitTarget> {
  const named = await namedTarget(ctx.cwd, ctx.options.target);
  if (named !== null) return { target: named, why: 'named' };
  const [originDefault, current, main, master] = await Promise.all([
    remoteDefaultBranch(ctx.cwd, 'origin'),
    currentBranch(ctx.cwd),
    branchTip(ctx.cwd, 'main'),
    branchTip(ctx.cwd, 'master'),
  ]);
  return chooseInitTarget({ originDefault, current, hasMain: main !== null, hasMaster: master !== null });
}

/** What init did about this clone's git config `land.target`: set it, and its value now (null: unset). */
export interface LandTargetConfig {
  set: boolean;
  value: string | null;
}

/**
 * Every command resolves the target as `--target`, `LAND_TARGET`, `land.target`, else `main`: a
 * target other than `main` is written to this clone's `land.target` when that is unset, so the
 * next commands find it. Returns what was done, and the words for the line init prints.
 */
async function recordTarget(ctx: CommandContext, target: string): Promise<{ config: LandTargetConfig; said: string }> {
  const configured = await configGet(ctx.cwd, 'land.target');
  const unchanged = { set: false, value: configured };
  if (configured === target || (configured === null && target === DEFAULT_TARGET)) return { config: unchanged, said: '' };
  if (configured !== null) return { config: unchanged, said: `; git config land.target is ${configured}: run land with --target ${target}, or change it` };
  await configSet(ctx.cwd, 'land.target', target);
  return {
    config: { set: true, value: target },
    said: `; set git config land.target ${target} in this clone (other clones: the same, or LAND_TARGET=${target})`,
  };
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(`write a starting ${POLICY_FILE} in the worktree (refuses to overwrite); commit it on the target`)
    .option(
      '--gate <command...>',
      'gate command(s) to start with (default: "npm test"); the scripts they name and the CI folders that exist (ci/, .ci/, scripts/ci/, tools/ci/) are proposed as `trusted`',
    )
    .option('--json', 'print { file, policy, targetWhy, landTarget } as JSON (landTarget: whether init set git config land.target, and its value)')
    .action(
      action<InitOptions>(async (ctx, opts) => {
        await commonDir(ctx.cwd); // outside a repository: a usage error that says so
        const top = await topLevel(ctx.cwd);
        if (top === null) throw new LandError('usage', 'land init needs a worktree (this repository is bare)');
        const file = join(top, POLICY_FILE);
        if (existsSync(file)) throw new LandError('state', `${file} already exists; not overwriting it`);
        const { target, why } = await initTarget(ctx);
        const gates = starterGates(opts.gate ?? []);
        const node = existsIn(top)('package.json', 'file');
        const policy = starterPolicy(target, gates, suggestTrusted(gates, existsIn(top)), node ? ['node_modules'] : []);
        writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`);
        const recorded = await recordTarget(ctx, target);
        if (ctx.out.json) ctx.out.emit({ file, policy, targetWhy: why, landTarget: recorded.config });
        ctx.out.say(`wrote ${file}`);
        ctx.out.say(`target: ${target} (${why})${recorded.said}`);
        const trusted = policy.trusted ?? [];
        ctx.out.say(
          trusted.length
            ? `trusted: ${trusted.join(', ')} (restored from ${target} before the gates run, so a queued branch cannot change them; docs/policy.md#trusted)`
            : 'trusted: [] (no gate script or CI folder found: list the files your gates run, so a queued branch cannot change them; docs/policy.md#trusted)',
        );
        if (node)
          ctx.out.say(
            "sandbox: gates see this checkout's node_modules read-only (run `npm ci` here before `land run`; docs/sandbox.md#how-a-gate-gets-its-dependencies)",
          );
        ctx.out.say(`next: git add ${POLICY_FILE} && git commit -m "land policy" on ${target}; the policy is read from ${target}'s tip`);
      }),
    );
}
