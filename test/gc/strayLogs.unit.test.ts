// The logs gc prunes that no metrics row names (lib/gc/strayLogs.ts): a conflicted train's empty
// log, a batch's target checks; never one a kept job rode.
import { describe, expect, it } from 'vitest';
import { strayTrainLogs } from '../../lib/gc/strayLogs.js';
import type { JournalEntry } from '../../lib/store/index.js';

const started = (job: string, batch: string, train: string): JournalEntry => ({
  at: '2026-12-02T00:00:00Z',
  kind: 'transition',
  job,
  from: 'queued',
  to: 'in_progress',
  event: 'train_started',
  detail: { batch, attempt: 1, train },
});

describe('strayTrainLogs', () => {
  const logs = new Set(['b1-1', 'b1-target', 'b1-target-2', 'b2-1', 'b2-target', 'b3-1']);
  const hasLog = (train: string) => logs.has(train);

  it("prunes the pruned jobs' trains and their batches' target checks", () => {
    const pruned = new Map([['j-1', [started('j-1', 'b1', 'b1-1')]]]);
    expect(strayTrainLogs({ pruned, kept: new Map(), planned: [], hasLog })).toEqual(['b1-1', 'b1-target', 'b1-target-2']);
  });

  it('keeps what a kept job rode, what the plan holds already, and logs that are not there', () => {
    const pruned = new Map([
      ['j-1', [started('j-1', 'b1', 'b1-1')]],
      ['j-2', [started('j-2', 'b2', 'b2-1'), started('j-2', 'b4', 'b4-1')]],
      ['j-3', [started('j-3', 'b3', 'b3-1')]],
    ]);
    const kept = new Map([['j-9', [started('j-9', 'b2', 'b2-1')]]]);
    expect(strayTrainLogs({ pruned, kept, planned: ['b3-1'], hasLog })).toEqual(['b1-1', 'b1-target', 'b1-target-2']);
  });
});
