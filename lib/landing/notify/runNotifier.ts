// Runs one `notify` command of the policy for one event: like a gate (its own process group, killed
// whole at its timeout, in the gate sandbox) but with network allowed, in an empty folder of its
// own, the event as JSON on its standard input. Whatever happens is a value: the drain goes on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { NotifyEntry } from '../../config/index.js';
import type { Notification } from '../../store/index.js';
import { gateEnvironment, secretsOf } from '../gates/gateEnv.js';
import { outcomeText, runInGroup } from '../gates/processGroup.js';
import { sandboxForRun, type Isolation } from '../gates/sandbox.js';

/** The last bytes a notifier printed (stdout and stderr), for the warning when it fails. */
class OutputTail extends Writable {
  private text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text = (this.text + chunk.toString('utf8')).slice(-2_000);
    done();
  }
  lastLine(): string {
    return this.text.trim().split('\n').at(-1)?.slice(0, 200) ?? '';
  }
}

/** The argv of a `run` (a string runs with `sh -c`, as a gate's does). */
const argvOf = (run: string | readonly string[]) => (typeof run === 'string' ? ['sh', '-c', run] : [...run]);

/** What the event's variables tell a notifier besides its standard input. */
function eventVariables(payload: Notification): Record<string, string> {
  return { LAND_EVENT: payload.event, LAND_TARGET: payload.target, LAND_JOB: payload.job?.id ?? '', LAND_BRANCH: payload.job?.branch ?? '' };
}

/**
 * Runs `entry` for `payload`; null when it exited 0, else the one line the drain warns with
 * (`notify "curl ..." for failed j-...: exit 7 (curl: (7) Failed to connect)`). Never throws.
 */
export async function runNotifier(entry: NotifyEntry, payload: Notification, isolation: Isolation | null): Promise<string | null> {
  const argv = argvOf(entry.run);
  const shown = typeof entry.run === 'string' ? entry.run : argv.join(' ');
  const what = `notify ${JSON.stringify(shown.length > 60 ? `${shown.slice(0, 57)}...` : shown)} for ${payload.event}${payload.job ? ` ${payload.job.id}` : ''}`;
  const cwd = mkdtempSync(join(tmpdir(), 'land-notify-'));
  const output = new OutputTail();
  try {
    const notes: string[] = [];
    const sandbox = sandboxForRun(isolation, { network: true }, cwd, { line: (text) => notes.push(text) });
    const ending = await runInGroup({
      argv,
      cwd,
      env: gateEnvironment(entry, eventVariables(payload)),
      timeoutSeconds: entry.timeoutSeconds,
      output,
      ownsCwd: true,
      sandbox,
      input: `${JSON.stringify(payload)}\n`,
    });
    if (ending.kind === 'exited' && ending.code === 0) return null;
    // What it printed may hold a value the policy passed it (passEnv): never in the warning.
    const said = secretsOf(entry).reduce((line, secret) => line.split(secret).join('***'), output.lastLine());
    return `${what}: ${outcomeText(ending)}${said ? ` (${said})` : ''}`;
  } catch (error) {
    return `${what}: ${(error as Error).message}`; // a refused sandbox, a folder that could not be made
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
