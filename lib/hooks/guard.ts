// Before each landing, `land run` checks that the hook protecting the target, when `land hooks
// install` put one in, is still the hook git will run: git runs hooks from the folder it was
// written to (a `core.hooksPath` set since, by hand or by a gate running as the drainer's user,
// switches it off silently), and the file there is executable and holds what install wrote. The
// decision is pure (protectHookProblem); protectHookCheck reads the facts: the install record (one
// small file), the hook file, and one `git rev-parse --git-path hooks`, the only reader of git's
// configuration that sees every place core.hooksPath can be set (repository, worktree, global,
// system, includes, `-c`). With no record (no hook installed) nothing is read past that file.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { commonDir, hooksDir, landingPath } from '../git/index.js';
import type { QueueStore } from '../store/index.js';

export const PROTECT_HOOK = 'reference-transaction';

export function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface HookFacts {
  target: string;
  /** The folder install wrote the hook to, and the sha256 of what it wrote. */
  installed: { dir: string; sha256: string };
  /** The folder git runs hooks from now (core.hooksPath honoured). */
  effectiveDir: string;
  /** The folder git runs hooks from with no core.hooksPath (`<git common dir>/hooks`). */
  defaultDir: string;
  /** The hook file in the installed folder, or null when it is missing. */
  file: { sha256: string; executable: boolean } | null;
}

const AGAIN = 'run `land hooks install` again';
const OR_WITHOUT = '(or `land hooks uninstall` to land without it)';

/** Why land's hook would not guard the landing, as one line naming what changed; null when it would. */
export function protectHookProblem(facts: HookFacts): string | null {
  const { installed, effectiveDir, defaultDir, target } = facts;
  const path = join(installed.dir, PROTECT_HOOK);
  if (effectiveDir !== installed.dir) {
    if (effectiveDir === defaultDir) {
      return `core.hooksPath no longer points at ${installed.dir}: git runs hooks from ${effectiveDir}, so land's hook in ${installed.dir} would not run; set it back or ${AGAIN}`;
    }
    const fix = installed.dir === defaultDir ? 'remove the setting' : `set it back to ${installed.dir}`;
    return `core.hooksPath now points at ${effectiveDir}: land's hook in ${installed.dir} would not run; ${fix} or ${AGAIN}`;
  }
  if (facts.file === null) return `land's hook ${path} was removed: ${target} is not protected; ${AGAIN} ${OR_WITHOUT}`;
  if (facts.file.sha256 !== installed.sha256) {
    return `${path} is not the hook \`land hooks install\` wrote (it was changed): ${target} may not be protected; run \`land hooks install --force\` again ${OR_WITHOUT}`;
  }
  if (!facts.file.executable) return `${path} is not executable: git would not run it, so ${target} is not protected; ${AGAIN}`;
  return null;
}

function hookFile(path: string): HookFacts['file'] {
  try {
    const text = readFileSync(path, 'utf8');
    return { sha256: sha256Of(text), executable: (statSync(path).mode & 0o111) !== 0 };
  } catch {
    return null; // missing, or not a readable file: git would not run it either
  }
}

/** The check before a landing: null when no hook is installed or git runs land's own; else why not. */
export async function protectHookCheck(cwd: string, store: QueueStore, target: string): Promise<string | null> {
  const record = store.readProtectHook();
  if (record.kind === 'none') return null;
  if (record.kind === 'corrupt') return `the record of land's hook ${record.path} is unreadable (${record.problem}); ${AGAIN} ${OR_WITHOUT}`;
  const [effective, common] = await Promise.all([hooksDir(cwd), commonDir(cwd)]);
  const installedDir = landingPath(record.hook.dir);
  return protectHookProblem({
    target,
    installed: { dir: installedDir, sha256: record.hook.sha256 },
    effectiveDir: landingPath(effective),
    defaultDir: landingPath(join(common, 'hooks')),
    file: hookFile(join(installedDir, PROTECT_HOOK)),
  });
}
