// One excerpt per distinct output: a culprit that fails three trains of a bisection prints the
// same failure three times. The first verdict to show an output names the later trains that
// repeat it (`sameOutputIn`); each later one names the train it repeats (`sameOutputAs`) and is
// rendered as a reference to it instead of the lines again. Outputs are compared with what
// differs from run to run set aside: train ids (in worktree paths) and timings (`duration_ms:
// 1.29`, `(3 ms)`, `in 0.42s`: any number with a decimal point, or followed by ms). Pure: the
// story's events are marked.
import type { StoryEvent } from './types.js';

type Verdict = StoryEvent & { kind: 'verdict' };

const TRAIN_ID = /\bb-\d{8}-\d{6}-[0-9a-f]+(?:-\d+)?\b/g;
const TIMING = /\d+\.\d+|\b\d+ ?ms\b/g;

/** An output line as compared: train ids and timings replaced by placeholders. */
export function comparable(line: string): string {
  return line.replace(TRAIN_ID, '<train>').replace(TIMING, '<time>');
}

/** Marks each verdict whose failing gate and excerpt repeat an earlier verdict's. */
export function markRepeatedOutput(events: readonly StoryEvent[]): void {
  const first = new Map<string, Verdict>();
  for (const event of events) {
    if (event.kind !== 'verdict' || !event.output?.length) continue;
    const key = JSON.stringify([event.failing?.name ?? null, event.output.map(comparable)]);
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, event);
      continue;
    }
    event.sameOutputAs = earlier.train;
    earlier.sameOutputIn = [...(earlier.sameOutputIn ?? []), event.train];
  }
}
