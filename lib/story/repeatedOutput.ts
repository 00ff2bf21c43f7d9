// One excerpt per distinct output: a culprit that fails three trains of a bisection prints the
// same failure three times. The first verdict to show an output names the later trains that
// repeat it (`sameOutputIn`); each later one names the train it repeats (`sameOutputAs`) and is
// rendered as a reference to it instead of the lines again. Pure: the story's events are marked.
import type { StoryEvent } from './types.js';

type Verdict = StoryEvent & { kind: 'verdict' };

/** Marks each verdict whose failing gate and excerpt repeat an earlier verdict's. */
export function markRepeatedOutput(events: readonly StoryEvent[]): void {
  const first = new Map<string, Verdict>();
  for (const event of events) {
    if (event.kind !== 'verdict' || !event.output?.length) continue;
    const key = JSON.stringify([event.failing?.name ?? null, event.output]);
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, event);
      continue;
    }
    event.sameOutputAs = earlier.train;
    earlier.sameOutputIn = [...(earlier.sameOutputIn ?? []), event.train];
  }
}
