// A command run inside a sandbox: its private /tmp and HOME made, the bwrap argv and the
// environment it runs with, and the scratch removed after it, however it ended.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mechanism } from './mechanism.js';
import { bwrapArgs, SANDBOX_HOME, type SandboxPlan, type SystemEntry } from './plan.js';
import { makeScratch, removeScratch } from './layout.js';

/** Everything of a sandbox but one run's scratch. */
export interface SandboxSpec extends Omit<SandboxPlan, 'scratch' | 'gitConfig'> {
  mechanism: Mechanism;
  system: readonly SystemEntry[];
  /** The text shown as the git folder's `config` (written to the run's scratch), or null: the real one. */
  gitConfigText: string | null;
}

/** What a sandboxed command runs as. */
export interface Sandboxed {
  argv: string[];
  env: Record<string, string>;
}

/**
 * Runs `body` with `argv` and `env` turned into their sandboxed form; the run's scratch is removed
 * when `body` settles. Inside, HOME is a fresh folder with a git identity, TMPDIR the private /tmp,
 * and git reads no system-wide configuration.
 */
export async function withSandbox<T>(
  spec: SandboxSpec,
  argv: readonly string[],
  env: Record<string, string>,
  body: (sandboxed: Sandboxed) => Promise<T>,
): Promise<T> {
  const scratch = makeScratch();
  try {
    const { mechanism, system, gitConfigText, ...rest } = spec;
    const gitConfig = gitConfigText === null ? null : join(scratch.root, 'config');
    if (gitConfig !== null) writeFileSync(gitConfig, gitConfigText ?? '');
    const plan: SandboxPlan = { ...rest, gitConfig, scratch: { tmp: scratch.tmp, home: scratch.home } };
    const sandboxEnv = { ...env, HOME: SANDBOX_HOME, TMPDIR: '/tmp', GIT_CONFIG_NOSYSTEM: '1' };
    return await body({ argv: bwrapArgs(mechanism.path, plan, system, argv), env: sandboxEnv });
  } finally {
    removeScratch(scratch);
  }
}
