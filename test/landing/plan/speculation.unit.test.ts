import { describe, expect, it } from 'vitest';
import { prng } from '../../../bench/sweep.js';
import { failChance, slotUses, trainPastCulprit, WORTH, type HeadShape } from '../../../lib/landing/plan/speculation.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import type { JobRecord } from '../../../lib/store/index.js';
import { EMPTY_TALLY } from '../../../lib/landing/plan/windowPlan.js';

/** How often the head fails among seeded queues drawn at `rate`, given what is known of it. */
function observedFailRate(head: HeadShape, rate: number, seed: number, draws: number): number {
  const random = prng(seed);
  let kept = 0;
  let failed = 0;
  while (kept < draws) {
    const culprits = Array.from({ length: head.size + head.sibling }, () => random() < rate);
    // A first half's train failed: only draws with a culprit somewhere count.
    if (head.known === 'first_half' && !culprits.includes(true)) continue;
    kept += 1;
    if (culprits.slice(0, head.size).includes(true)) failed += 1;
  }
  return failed / draws;
}

describe('failChance', () => {
  it.each([
    [{ size: 8, known: 'fresh', sibling: 0 }, 0.125],
    [{ size: 3, known: 'first_half', sibling: 5 }, 0.125],
    [{ size: 1, known: 'first_half', sibling: 2 }, 0.1],
    [{ size: 4, known: 'first_half', sibling: 4 }, 0.3],
  ] as [HeadShape, number][])('matches the seeded draws for %o at rate %s', (head, rate) => {
    expect(failChance(head, rate)).toBeCloseTo(observedFailRate(head, rate, 7, 20000), 1);
  });

  it('is certain for a second half whose first half passed, and a fair coin for two halves at rate 0', () => {
    expect(failChance({ size: 5, known: 'holds_one', sibling: 0 }, 0.01)).toBe(1);
    expect(failChance({ size: 2, known: 'first_half', sibling: 2 }, 0)).toBe(0.5);
    expect(failChance({ size: 8, known: 'fresh', sibling: 0 }, 0)).toBe(0);
  });
});

describe('slotUses', () => {
  it('probes the first part of a fresh window likely to fail before it builds a train behind it', () => {
    // 1 - (7/8)^8 = 0.66: the probe first; the train behind (0.34) only with a third slot.
    expect(slotUses({ size: 8, known: 'fresh', sibling: 0 }, 0.125)).toEqual(['fails', 'behind']);
    // At 1/4, the train behind (0.1) is worth no slot.
    expect(slotUses({ size: 8, known: 'fresh', sibling: 0 }, 0.25)).toEqual(['fails']);
  });

  it('builds behind a short fresh train likely to land, and probes it as the next choice', () => {
    expect(slotUses({ size: 2, known: 'fresh', sibling: 0 }, 0.125)).toEqual(['behind']);
    expect(slotUses({ size: 4, known: 'fresh', sibling: 0 }, 0.125)).toEqual(['behind', 'fails']);
  });

  it('never builds behind a first half whose second half waits (a cached FAIL should it pass): it probes that half instead', () => {
    const uses = slotUses({ size: 1, known: 'first_half', sibling: 2 }, 0.125);
    expect(uses).toEqual(['passes']);
  });

  it('builds past a lone second half known to fail alone should the head pass, when that is likely enough', () => {
    // [a] of the failed [a b]: a fails with 0.53; should it pass, b fails alone from the cache.
    expect(slotUses({ size: 1, known: 'first_half', sibling: 1 }, 0.125)).toEqual(['past_culprit']);
    // [a b] of the failed [a b c] fails with 0.71: only its own first part is worth a slot.
    expect(slotUses({ size: 2, known: 'first_half', sibling: 1 }, 0.125)).toEqual(['fails']);
  });

  it('gates both halves of a bisection at once when both are worth a slot, the likelier first', () => {
    expect(slotUses({ size: 4, known: 'first_half', sibling: 4 }, 0.125)).toEqual(['fails', 'passes']);
    expect(slotUses({ size: 2, known: 'first_half', sibling: 6 }, 0.125)).toEqual(['passes', 'fails']);
  });

  it('leaves nothing behind a lone job known to hold a culprit', () => {
    expect(slotUses({ size: 1, known: 'holds_one', sibling: 0 }, 0.125)).toEqual([]);
    expect(slotUses({ size: 4, known: 'holds_one', sibling: 0 }, 0.125)).toEqual(['fails']);
  });

  it('never spends a slot on a use less likely than WORTH to be needed (seeded shapes and rates)', () => {
    const random = prng(11);
    for (let i = 0; i < 2000; i += 1) {
      const known = (['fresh', 'first_half', 'holds_one'] as const)[Math.floor(random() * 3)] as HeadShape['known'];
      const size = 1 + Math.floor(random() * 16);
      const head: HeadShape = { size, known, sibling: known === 'first_half' ? Math.floor(random() * 16) : 0 };
      const rate = random() * 0.5;
      const fails = failChance(head, rate);
      const uses = slotUses(head, rate);
      const worth = uses.map((use) => (use === 'fails' ? fails : 1 - fails));
      if (uses.includes('past_culprit')) expect(head.known === 'first_half' && head.sibling === 1).toBe(true);
      expect(worth.every((w) => w >= WORTH)).toBe(true);
      expect([...worth].sort((a, b) => b - a)).toEqual(worth);
      if (uses.includes('fails')) expect(head.size).toBeGreaterThanOrEqual(2);
      if (uses.includes('passes')) expect(head.known === 'first_half' && head.sibling >= 2).toBe(true);
      if (uses.includes('behind')) expect(head.known === 'first_half' && head.sibling > 0).toBe(false);
    }
  });
});

describe('trainPastCulprit', () => {
  const base = newJobRecord({ id: 'x', branch: 'x', tip: 'x', title: 'x', submitter: 't', urgent: false });
  const fresh = (id: string): JobRecord => ({ ...base, id, branch: id });
  const half = (id: string, attempt: number): JobRecord => ({
    ...fresh(id),
    requeued: true,
    reason: 'bisected',
    batch: { id: 'b1', members: [], attempt, index: 0 },
  });

  it('is the rest of the batch (no longer halves) and fresh jobs through the window the culprit leaves', () => {
    // [a b c d] failed, [a b] failed, [a] gates: b is the lone second half; [c d] waits.
    const runnable = [half('b', 3), half('c', 2), half('d', 2), fresh('e'), fresh('f'), fresh('g')];
    const train = trainPastCulprit(runnable, runnable[0] as JobRecord, 1, EMPTY_TALLY, 4);
    // The prior (1 in 7) with one landed job and one culprit: a window of 2 at batch.max 4.
    expect(train.map((job) => job.id)).toEqual(['c', 'd']);
    expect(train.map((job) => job.reason)).toEqual(['culprit_found', 'culprit_found']);
  });

  it("is fresh jobs alone when the culprit was its batch's last half", () => {
    const runnable = [half('b', 2), fresh('e'), fresh('f')];
    expect(trainPastCulprit(runnable, runnable[0] as JobRecord, 1, EMPTY_TALLY, 1).map((job) => job.id)).toEqual(['e']);
  });
});
