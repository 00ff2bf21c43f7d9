// On a terminal: a few lines redrawn in place (the train, the running gate with its elapsed and
// usual time, the window and the queue), with the events that matter printed as permanent lines
// above them. Redrawn at most once per MIN_REDRAW_MS, and only when the text changed. Every value
// an event carries is escaped first: only this reporter's own sequences reach the terminal.
import type { DrainEvent } from '../../landing/events.js';
import { describeEvent } from '../../landing/events.js';
import { expectedGateSeconds } from '../../landing/plan/eta.js';
import { fit, initialLiveState, isPermanent, liveLines, nextLiveState, toneOf, type LiveState } from './live.js';
import { printableFields } from '../../text/safeText.js';
import { paint, type Colors, type Reporter } from './reporter.js';
import { safeNames, type ProgressSource } from './source.js';

export const MIN_REDRAW_MS = 250;

/** Cursor up one line and clear it: how the block is taken back before it is drawn again. */
export const UP_AND_CLEAR = '\x1b[1A\x1b[2K';

export interface Terminal {
  write(text: string): void;
  /** The terminal's width in columns (0 or undefined when unknown). */
  columns(): number | undefined;
}

export interface LiveReporterOptions {
  terminal: Terminal;
  source: ProgressSource;
  colors: Colors;
  now: () => number;
  /** The window when the drain starts (null when unknown); `window` events move it. */
  window: number | null;
}

/** Events after which the queue's length is read again. */
const QUEUE_CHANGES: ReadonlySet<DrainEvent['type']> = new Set([
  'drain_started',
  'recovered',
  'train_built',
  'landed',
  'failed',
  'bisected',
  'requeued',
  'train_abandoned',
  'canceled',
  'idle',
  'resumed',
]);

export function liveReporter(opts: LiveReporterOptions): Reporter {
  const names = safeNames(opts.source);
  const expected = (gate: string) => expectedGateSeconds(opts.source.gateHistory(), gate);
  let state: LiveState = initialLiveState(opts.window);
  let drawn: string[] = []; // the lines on screen now, below the permanent ones
  let lastDraw = Number.NEGATIVE_INFINITY;

  const erase = () => (drawn.length ? `\r${UP_AND_CLEAR.repeat(drawn.length)}` : '');

  const draw = (now: number) => {
    const columns = opts.terminal.columns() || 80;
    const lines = liveLines(state, now, names).map((line) => fit(line, columns));
    if (now - lastDraw < MIN_REDRAW_MS || (drawn.length && lines.join('\n') === drawn.join('\n'))) return;
    const [first = '', ...rest] = lines;
    const block = [opts.colors.bold(first), ...rest.map((line) => opts.colors.dim(line))].map((line) => `${line}\n`).join('');
    opts.terminal.write(`${erase()}${block}`);
    drawn = lines;
    lastDraw = now;
  };

  return {
    event(raw: DrainEvent) {
      const event = printableFields(raw);
      const now = opts.now();
      if (event.type === 'gate_finished' && !/^(stopped|could not start)/.test(event.status)) {
        (opts.source.gateHistory().gateSeconds[event.gate] ??= []).push(event.seconds);
      }
      state = nextLiveState(state, event, now, expected);
      if (QUEUE_CHANGES.has(event.type)) state = { ...state, queued: opts.source.queuedCount(state.target) };
      if (isPermanent(event)) {
        // Take the block back, print the line where it was; the block comes back on the next draw.
        const text = paint(opts.colors, toneOf(event), describeEvent(event, names));
        opts.terminal.write(`${erase()}${text}\n`);
        drawn = [];
      }
      draw(now);
    },
    tick(now: number) {
      draw(now);
    },
    close() {
      if (drawn.length) opts.terminal.write(erase());
      drawn = [];
    },
  };
}
