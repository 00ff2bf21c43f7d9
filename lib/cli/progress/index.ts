// Picks how `land run` reports (JSON events, a live block on a terminal, or plain lines) and
// drives the chosen reporter's clock. The timer never keeps the process alive and stops on close.
import type { DrainEvent } from '../../landing/events.js';
import { gatesInForce } from '../../landing/plan/eta.js';
import { readWindowView, type PolicyOfCommand } from '../../landing/windowView.js';
import type { QueueStore } from '../../store/index.js';
import type { Output } from '../output.js';
import { liveReporter, MIN_REDRAW_MS } from './liveReporter.js';
import { colorEnabled, heartbeatSeconds, progressMode } from './mode.js';
import { plainReporter } from './plainReporter.js';
import { makeColors, type Reporter } from './reporter.js';
import { storeSource } from './source.js';

export type { Reporter } from './reporter.js';

export interface ReporterSetup {
  out: Output;
  store: QueueStore;
  /** The policy in force, as the command read it (for the live block's window). */
  policy: PolicyOfCommand;
  /** Where progress goes (stderr); its isTTY and columns decide the mode and the width. */
  stream: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** Starts the reporter for this run; call close() when the drain is over (also on errors). */
export async function startReporter(setup: ReporterSetup): Promise<Reporter> {
  const isTTY = Boolean(setup.stream.isTTY);
  const mode = progressMode({ json: setup.out.json, isTTY, env: setup.env });
  if (mode === 'json') {
    return { event: (event: DrainEvent) => setup.out.emit(event), tick: () => undefined, close: () => undefined };
  }
  const inForce = await setup.policy().then(
    (loaded) => gatesInForce(loaded.policy.gates),
    () => null,
  );
  const source = storeSource(setup.store, inForce);
  const colors = makeColors(colorEnabled({ isTTY, env: setup.env }));
  const now = () => Date.now();
  let reporter: Reporter;
  if (mode === 'live') {
    const window = await readWindowView(setup.store, setup.policy).then(
      (view) => (typeof view.size === 'number' ? view.size : null),
      () => null,
    );
    reporter = liveReporter({ terminal: { write: (text) => setup.stream.write(text), columns: () => setup.stream.columns }, source, colors, now, window });
  } else {
    // Straight to the stream: the line may carry colours; its values are escaped by the reporter.
    reporter = plainReporter({ write: (line) => setup.stream.write(`${line}\n`), source, colors, heartbeatSeconds: heartbeatSeconds(setup.env), now });
  }
  const timer = setInterval(() => reporter.tick(now()), MIN_REDRAW_MS);
  timer.unref();
  return {
    event: (event) => reporter.event(event),
    tick: (at) => reporter.tick(at),
    close: () => {
      clearInterval(timer);
      reporter.close();
    },
  };
}
