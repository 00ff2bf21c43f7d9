// Resolves, once per command, what the gates' sandbox is built from: the machine's support (bwrap,
// probed by starting one sandbox; `land status` only looks for it), the system and tool folders,
// and the repository's git folder, state folder and top level.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { alternateObjectDirs, checkoutTop, commonDir, gateConfigText } from '../../git/index.js';
import { landPackageRoot } from '../../landEntry.js';
import { probeSandbox, sandboxPresence, systemEntries, toolFolders } from '../../proc/sandbox/index.js';
import { stateRoot, type QueueStore } from '../../store/index.js';
import type { SandboxHost } from './sandbox.js';

export async function resolveSandboxHost(cwd: string, store: Pick<QueueStore, 'defaultSandboxMode'>, opts: { probe: boolean }): Promise<SandboxHost> {
  const system = systemEntries();
  const gitDir = await commonDir(cwd);
  const gitReal = realpathSync(gitDir);
  const top = checkoutTop(cwd, gitReal);
  // Never shown through a tool folder that holds them (docs/sandbox.md#what-a-gate-sees).
  const privateFolders = [homedir(), process.env.HOME, '/tmp', '/home', top, gitDir].filter((dir): dir is string => Boolean(dir));
  return {
    support: opts.probe ? probeSandbox(system) : sandboxPresence(),
    system,
    tools: toolFolders(process.env, [landPackageRoot()], privateFolders),
    gitDir,
    gitReal,
    gitConfigText: await gateConfigText(gitDir),
    // All of it, not only this queue's: a clone's own queue and every remote queue's cache.
    stateDir: stateRoot(gitDir),
    topLevel: top,
    alternates: alternateObjectDirs(gitDir),
    defaultMode: store.defaultSandboxMode(),
  };
}
