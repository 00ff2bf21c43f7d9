// Shipping a train to an ssh executor: its cache repository is created on first use (once per
// executor per drain), then the train commit is pushed to the slot's ref there, an incremental
// `git push` (only the objects the executor lacks travel). A failure is INFRA for the run and
// marks the executor down (outcome.ts); it is never a verdict on the change.
import { pushCommit } from '../../git/index.js';
import { startProcess } from '../../proc/runProcess.js';
import { cacheUrl, gitSshCommand, prepareCommand, type SshExecutor, type SshSettings, sshArgv } from './sshArgv.js';

export type ExecutorInfra = { kind: 'infra'; detail: string; down: true };
export type ShipResult = { kind: 'shipped'; ref: string } | ExecutorInfra;

/** The ref of the cache repository that holds slot `slot`'s train. */
export function slotRef(slot: number): string {
  if (!Number.isInteger(slot) || slot < 0) throw new Error(`not a slot number: ${slot}`);
  return `refs/land/slot/${slot}`;
}

/** Creates the executor's dir and cache repository (a no-op when they exist). */
export async function prepareExecutor(settings: SshSettings, executor: SshExecutor): Promise<ExecutorInfra | null> {
  let stderr = '';
  const run = startProcess({ argv: sshArgv(settings, executor, prepareCommand(executor)), stderr: (chunk) => (stderr += chunk.toString()), timeoutMs: 60_000 });
  const { ending } = await run.ended;
  if (ending.kind === 'exited' && ending.code === 0) return null;
  const said = stderr.trim().split('\n').filter(Boolean).join('; ').slice(0, 400);
  const how =
    ending.kind === 'exited'
      ? `exit ${ending.code}`
      : ending.kind === 'spawn_failed'
        ? `cannot start ${settings.program}: ${ending.errno ?? ending.message}`
        : ending.kind;
  return { kind: 'infra', detail: `cannot prepare ${executor.name} (${executor.dir}): ${said || how}`, down: true };
}

/** Pushes `commit` to slot `slot`'s ref in the executor's cache repository. */
export async function shipCommit(cwd: string, settings: SshSettings, executor: SshExecutor, commit: string, slot: number): Promise<ShipResult> {
  const ref = slotRef(slot);
  const pushed = await pushCommit(cwd, cacheUrl(executor), commit, ref, { GIT_SSH_COMMAND: gitSshCommand(settings) });
  if (pushed.kind === 'pushed') return { kind: 'shipped', ref };
  return { kind: 'infra', detail: `cannot ship the train to ${executor.name}: ${pushed.message}`, down: true };
}
