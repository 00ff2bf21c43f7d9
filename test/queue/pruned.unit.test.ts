// A job `land gc` pruned ends its journal with a `pruned` line: no fold rebuilds it (lib/queue/rebuild.ts).
import { describe, expect, it } from 'vitest';
import { foldJournal, wasPruned } from '../../lib/queue/rebuild.js';
import type { JournalEntry } from '../../lib/store/index.js';

const id = 'j-20261202-0001';
const record = { version: 1, id, branch: 'b', tip: 'a'.repeat(40), state: 'queued' };
const at = '2026-12-02T00:00:00Z';
const submitted: JournalEntry = { at, kind: 'transition', job: id, from: null, to: 'queued', event: 'submitted', detail: {}, record };
const pruned: JournalEntry = { at, kind: 'update', job: id, from: 'queued', to: 'queued', event: 'pruned', detail: { by: 'remote' } };
const rebuilt: JournalEntry = { at, kind: 'update', job: id, from: 'queued', to: 'queued', event: 'rebuilt', detail: { lines: 1 }, set: {} };

describe('a pruned line', () => {
  it('ends the job for every fold, a rebuilt line after it aside', () => {
    expect(wasPruned([submitted])).toBe(false);
    expect(wasPruned([submitted, pruned])).toBe(true);
    expect(wasPruned([submitted, pruned, rebuilt])).toBe(true);
    expect(foldJournal(id, [submitted, pruned])).toEqual({ ok: false, problem: 'it was pruned by land gc', pruned: true });
  });

  it('a job submitted again after it (an id given twice by an older version) is not pruned', () => {
    expect(wasPruned([submitted, pruned, submitted])).toBe(false);
  });
});
