// `land gc`'s choice (lib/gc/plan.ts): which finished jobs are old enough, and which trains only they rode.
import { describe, expect, it } from 'vitest';
import { finishedAt, parseSpan, planPrune } from '../../lib/gc/plan.js';
import { LandError } from '../../lib/errors.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T00:00:00Z');
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
const job = (id: string, state: string, timestamps: Record<string, string>) => ({ id, state, timestamps: { queued: ago(100), ...timestamps } }) as never;

describe('parseSpan', () => {
  it('reads a whole number and a unit', () => {
    expect(parseSpan('30d')).toBe(30 * DAY);
    expect(parseSpan('2w')).toBe(14 * DAY);
    expect(parseSpan('90m')).toBe(90 * 60_000);
    expect(parseSpan('0m')).toBe(0);
  });
  it('refuses anything else, naming the option', () => {
    for (const bad of ['30', 'd', '1.5d', '-1d', '30 days', '']) {
      expect(() => parseSpan(bad)).toThrow(LandError);
      expect(() => parseSpan(bad)).toThrow(/--older-than/);
    }
  });
});

describe('finishedAt', () => {
  it('is the latest ending of a finished job, null for an unfinished one or one without a time', () => {
    expect(finishedAt(job('a', 'landed', { landed: ago(3) }))).toBe(NOW - 3 * DAY);
    expect(finishedAt(job('a', 'failed', { failed: ago(40), canceled: ago(35) }))).toBe(NOW - 35 * DAY);
    expect(finishedAt(job('a', 'queued', { failed: ago(40) }))).toBeNull();
    expect(finishedAt(job('a', 'canceled', {}))).toBeNull();
    expect(finishedAt(job('a', 'failed', { failed: 'not a time' }))).toBeNull();
  });
});

describe('planPrune', () => {
  const jobs = [
    job('old-landed', 'landed', { landed: ago(40) }),
    job('old-failed', 'failed', { failed: ago(31) }),
    job('new-failed', 'failed', { failed: ago(2) }),
    job('old-queued', 'queued', {}),
    job('running', 'in_progress', { failed: ago(60) }),
  ];
  const rows = [
    { train: 't-1', members: ['old-landed', 'old-failed'] },
    { train: 't-2', members: ['old-failed', 'new-failed'] },
    { train: 't-3', members: ['old-failed', 'gone-before'] },
    { train: 't-4', members: ['gone-before'] },
    { train: 't-5', members: ['running'] },
  ];
  it('prunes finished jobs older than the cutoff, never a queued or running one', () => {
    expect(planPrune(jobs, rows, NOW - 30 * DAY).jobs).toEqual(['old-failed', 'old-landed']);
  });
  it('prunes a train only when none of its members is kept and one is pruned now', () => {
    expect(planPrune(jobs, rows, NOW - 30 * DAY).trains).toEqual(['t-1', 't-3']);
  });
  it('gives each pruned train its members, so the store can re-plan it under its lock', () => {
    expect(planPrune(jobs, rows, NOW - 30 * DAY).members).toEqual({ 't-1': ['old-landed', 'old-failed'], 't-3': ['old-failed', 'gone-before'] });
  });
  it("prunes a train whose members were all pruned before (another clone's gc) while something of it is left", () => {
    const left = new Set(['t-4', 't-6', 't-7']);
    const dated = [
      ...rows,
      { train: 't-4', members: ['gone-before'], at: ago(50) },
      { train: 't-6', members: ['unreadable'], at: ago(50) },
      { train: 't-7', members: ['gone-too'], at: ago(3) },
    ];
    const facts = { holds: (train: string) => left.has(train), unreadable: new Set(['unreadable']) };
    const plan = planPrune(jobs, dated, NOW - 30 * DAY, facts);
    // t-6's member has a record this gc cannot read (corrupt, forged): kept; t-7 ran after the cutoff: kept.
    expect(plan.trains).toEqual(['t-1', 't-3', 't-4']);
    expect(plan.members['t-4']).toEqual(['gone-before']);
    expect(planPrune(jobs, dated, NOW - 40 * DAY, facts).trains).toEqual(['t-4']); // even with no job old enough
    expect(planPrune(jobs, dated, NOW - 30 * DAY, { ...facts, holds: () => false }).trains).toEqual(['t-1', 't-3']); // nothing left of it: not named again
    expect(planPrune(jobs, rows, NOW - 30 * DAY, facts).trains).toEqual(['t-1', 't-3']); // a row with no time is no orphan
  });
  it('prunes nothing when nothing is old enough', () => {
    expect(planPrune(jobs, rows, NOW - 100 * DAY)).toEqual({ jobs: [], trains: [], members: {} });
  });
});
