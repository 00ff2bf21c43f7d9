// `land doctor`'s look at each executor: the drainer's own slots, and for an ssh executor whether
// it answers, has git and land (the policy's `land` command; its version against the drainer's),
// and can write its dir (made when missing, as the first train would).
import { startProcess } from '../../proc/runProcess.js';
import type { Executor } from './slots.js';
import { VERSION } from '../../version.js';
import { landCommand, type SshExecutor, type SshSettings, safeDir, sshArgv } from './sshArgv.js';

export interface ExecutorReport {
  name: string;
  slots: number;
  /** An ssh executor's dir; null for the drainer. */
  dir: string | null;
  ok: boolean;
  /** What it answered (git's version), or why it is not usable. */
  detail: string;
}

const PROBE_TIMEOUT_MS = 20_000;

/** The remote line: git's and land's versions, then the dir made and checked writable (nothing from a job in it). */
function probeCommand(executor: SshExecutor): string {
  const dir = safeDir(executor);
  return `git --version && ${landCommand(executor)} --version && mkdir -p ${dir} && test -w ${dir}`;
}

/** "git version 2.39.2; land 0.4.0", saying when the executor's land is not the drainer's version. */
function answered(stdout: string): string {
  const [git = '', land = ''] = stdout.trim().split('\n');
  const differs = land.trim() === VERSION ? '' : ` (this drainer's is ${VERSION}: install the same version there)`;
  return `${git.trim()}; land ${land.trim()}${differs}`;
}

const oneLine = (text: string) => text.trim().split('\n').filter(Boolean).join('; ').slice(0, 300);

export async function probeExecutor(settings: SshSettings, executor: Executor): Promise<ExecutorReport> {
  if (executor.kind === 'local') return { name: executor.name, slots: executor.slots, dir: null, ok: true, detail: 'this machine' };
  const dir = safeDir(executor);
  let stdout = '';
  let stderr = '';
  const run = startProcess({
    argv: sshArgv(settings, executor, probeCommand(executor)),
    stdout: (chunk) => (stdout += chunk.toString()),
    stderr: (chunk) => (stderr += chunk.toString()),
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  const { ending } = await run.ended;
  const report = { name: executor.name, slots: executor.slots, dir };
  if (ending.kind === 'exited' && ending.code === 0) return { ...report, ok: true, detail: answered(stdout) };
  if (ending.kind === 'spawn_failed') return { ...report, ok: false, detail: `cannot start ${settings.program}: ${ending.errno ?? ending.message}` };
  if (ending.kind === 'timeout') return { ...report, ok: false, detail: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
  const status = ending.kind === 'exited' ? ending.code : null;
  const why = status === 255 ? 'unreachable' : `cannot run git or ${executor.land} there, or use ${dir}`;
  return { ...report, ok: false, detail: `${why}${stderr.trim() ? `: ${oneLine(stderr)}` : status === null ? '' : ` (exit ${status})`}` };
}

/** The doctor's lines about the executors: one per executor. */
export function describeExecutors(reports: readonly ExecutorReport[]): string[] {
  const lines = ['executors:'];
  for (const r of reports) {
    const where = r.dir === null ? `${r.slots} slot${r.slots === 1 ? '' : 's'}` : `${r.slots} slot${r.slots === 1 ? '' : 's'}, ${r.dir}`;
    lines.push(`  ${r.ok ? 'ok  ' : 'DOWN'} ${r.name} (${where}): ${r.detail}`);
  }
  return lines;
}
