// The two ends of a batch's ssh session. The wrapper that starts the batch on a lane holds the
// session's stdin open for the whole batch; when it is interrupted it writes the signal's name and
// closes it. The lane's wrapper (started with LAND_LANE_SESSION=1) watches its stdin: its end (EOF,
// or an error reading it) before the batch finished means the other side is stopping or gone (ssh
// killed, the connection lost; sshd then closes the pipes and signals nothing). The batch is then
// stopped as on the signal named, SIGTERM when none was (the session was simply lost).
import type { Readable } from 'node:stream';

export const SESSION_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** The signal a lost session counts as. */
export const LOST_SESSION_SIGNAL: NodeJS.Signals = 'SIGTERM';
// Only the last line counts; nothing more is ever kept.
const MAX_INPUT_CHARS = 256;

/** What the starting side writes on its way out: the signal it got. */
export function sessionStopMessage(signal: NodeJS.Signals): string {
  return `${signal}\n`;
}

/** The signal named by the last line the starting side wrote, or SIGTERM. */
export function signalFromSessionInput(text: string): NodeJS.Signals {
  const last = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .pop();
  return SESSION_SIGNALS.find((signal) => signal === last) ?? LOST_SESSION_SIGNAL;
}

export interface CallerWatch {
  /** Resolves with the signal to stop the batch with once the session's input has ended. */
  gone: Promise<NodeJS.Signals>;
  /** Stops watching and lets go of the input (the batch is over). */
  stop(): void;
}

export function watchCaller(input: Readable): CallerWatch {
  let text = '';
  let settle: (signal: NodeJS.Signals) => void = () => undefined;
  const gone = new Promise<NodeJS.Signals>((resolve) => (settle = resolve));
  const onData = (chunk: Buffer | string) => {
    text = (text + chunk.toString()).slice(-MAX_INPUT_CHARS);
  };
  const onEnd = () => settle(signalFromSessionInput(text));
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', onEnd);
  input.on('close', onEnd);
  return {
    gone,
    stop() {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      // An error while letting go is no news; keep a listener so it is not thrown.
      input.off('error', onEnd);
      input.on('error', () => undefined);
      input.destroy();
    },
  };
}
