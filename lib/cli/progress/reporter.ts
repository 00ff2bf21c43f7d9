// The one interface `land run` reports through. A reporter is fed the drainer's events and a
// clock tick; it never changes state, and the drain engine knows nothing about it.
import pc from 'picocolors';
import type { DrainEvent } from '../../landing/events.js';
import type { Tone } from './live.js';

/** picocolors' formatters, on or off (`createColors(enabled)`). */
export type Colors = ReturnType<typeof pc.createColors>;

export function makeColors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}

export interface Reporter {
  /** One drainer event, as it happens. */
  event(event: DrainEvent): void;
  /** The clock (ms): redraws the live block, or prints a heartbeat while a gate runs. */
  tick(now: number): void;
  /** The drain is over: the live block is cleared (the summary that follows stays). */
  close(): void;
}

function colorOf(colors: Colors, tone: Tone): (line: string) => string {
  switch (tone) {
    case 'good':
      return colors.green;
    case 'bad':
      return colors.red;
    case 'warn':
      return colors.yellow;
    case 'plain':
      return (line) => line;
    default: {
      const never: never = tone;
      return never;
    }
  }
}

/** Colours each line of `text` by its tone (each line on its own, so a cut log keeps its colours); off: unchanged. */
export function paint(colors: Colors, tone: Tone, text: string): string {
  const color = colorOf(colors, tone);
  return text
    .split('\n')
    .map((line) => color(line))
    .join('\n');
}
