// Off a terminal (CI logs, pipes): one line per event, and while a gate runs a heartbeat line
// every few seconds that says it is alive and where its log is. Every value an event carries
// (branch names, messages, paths) is escaped before it is put into a sentence.
import { describeEvent, type DrainEvent } from '../../landing/events.js';
import { printableFields } from '../../text/safeText.js';
import { heartbeatLine, toneOf } from './live.js';
import { paint, type Colors, type Reporter } from './reporter.js';
import { safeNames, type ProgressSource } from './source.js';

export interface PlainReporterOptions {
  write: (line: string) => void;
  source: ProgressSource;
  colors: Colors;
  heartbeatSeconds: number;
  now: () => number;
}

export function plainReporter(opts: PlainReporterOptions): Reporter {
  const names = safeNames(opts.source);
  const every = opts.heartbeatSeconds * 1000;
  let gate: { name: string; log: string; startedAt: number; nextBeat: number } | null = null;
  return {
    event(raw: DrainEvent) {
      const event = printableFields(raw);
      if (event.type === 'gate_started') {
        const startedAt = opts.now();
        gate = { name: event.gate, log: event.log, startedAt, nextBeat: startedAt + every };
      } else if (event.type === 'gate_finished' || event.type === 'verdict') {
        gate = null;
      }
      opts.write(paint(opts.colors, toneOf(event), describeEvent(event, names)));
    },
    tick(now: number) {
      if (!gate || now < gate.nextBeat) return;
      opts.write(heartbeatLine(gate, (now - gate.startedAt) / 1000));
      // One line per interval, even when the clock jumped past several.
      gate.nextBeat = Math.max(gate.nextBeat + every, now + every / 2);
    },
    close() {
      gate = null;
    },
  };
}
