// Which sandbox this machine can make: bubblewrap (`bwrap`, Debian's package `bubblewrap`), found on
// PATH (LAND_BWRAP names another binary; LAND_BWRAP=none says there is none), and proven to work by
// one sandbox started before it is relied on (a kernel without user namespaces refuses it).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { makeScratch, removeScratch } from './layout.js';
import { bwrapArgs, type SandboxPlan, type SystemEntry } from './plan.js';

export type Mechanism = { kind: 'bwrap'; path: string };

/** What this machine offers: a mechanism, or why there is none (one line, with what to install). */
export type SandboxSupport = { available: true; mechanism: Mechanism } | { available: false; why: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The bwrap binary to use, or null: LAND_BWRAP, else the first on PATH. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.LAND_BWRAP;
  if (named === 'none') return null;
  if (named) return isAbsolute(named) && executable(named) ? named : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    if (executable(candidate)) return candidate;
  }
  return null;
}

const MISSING = 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap';

/** Whether bwrap is there, without starting it (for `land status`, which must stay quick). */
export function sandboxPresence(env: NodeJS.ProcessEnv = process.env): SandboxSupport {
  const path = findBwrap(env);
  if (path === null)
    return { available: false, why: env.LAND_BWRAP && env.LAND_BWRAP !== 'none' ? `LAND_BWRAP=${env.LAND_BWRAP} is not an executable` : MISSING };
  return { available: true, mechanism: { kind: 'bwrap', path } };
}

/**
 * Whether a sandbox can be made here: bwrap found, and one sandbox of the kind gates get (every
 * namespace, no capability) started and exited 0. About 10 ms; done once per command.
 */
export function probeSandbox(system: readonly SystemEntry[], env: NodeJS.ProcessEnv = process.env): SandboxSupport {
  const presence = sandboxPresence(env);
  if (!presence.available) return presence;
  const scratch = makeScratch();
  const plan: SandboxPlan = {
    worktree: scratch.tmp,
    gitDirs: [scratch.home],
    gitConfig: null,
    alternates: [],
    hidden: [],
    tools: [],
    mounts: [],
    worktreeMounts: [],
    network: false,
    scratch: { tmp: scratch.tmp, home: scratch.home },
  };
  const [file, ...args] = bwrapArgs(presence.mechanism.path, plan, system, ['true']);
  const run = spawnSync(file as string, args, { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  removeScratch(scratch);
  if (run.status === 0) return presence;
  const said = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
  return { available: false, why: `bwrap at ${presence.mechanism.path} cannot make a sandbox here: ${said}` };
}
