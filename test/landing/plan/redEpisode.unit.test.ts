import { describe, expect, it } from 'vitest';
import { episodeStart, verdictsToVoid, type RedEpisode } from '../../../lib/landing/plan/redEpisode.js';
import type { VerdictRecord } from '../../../lib/store/index.js';

const tree = (n: number) => String(n).repeat(40).slice(0, 40);
const HASH = 'a1b2c3d4e5f6';

function verdict(over: Partial<VerdictRecord>): VerdictRecord {
  return {
    tree: tree(1),
    gatesHash: HASH,
    verdict: 'FAIL',
    reason: 'test',
    status: 'exit 1',
    seconds: 1,
    at: '2026-12-01T10:00:00.000Z',
    train: 'b-1',
    log: null,
    ...over,
  };
}

const episode: RedEpisode = {
  startedAt: '2026-12-01T12:00:00.000Z',
  now: '2026-12-01T12:05:00.000Z',
  train: 'b-9-target',
  gatesHash: HASH,
  trees: [tree(2), tree(3)],
};

describe('verdictsToVoid: the FAILs a red target shared are not trusted later', () => {
  it('voids every FAIL this drain wrote, and names the stop', () => {
    const written = verdict({ tree: tree(4), at: '2026-12-01T12:01:00.000Z', train: 'b-9-1' });
    expect(verdictsToVoid(episode, [written])).toEqual([{ ...written, voided: { at: episode.now, why: 'target_red', train: 'b-9-target' } }]);
  });

  it("voids the target's and the job's FAIL cached by an earlier drain: they decided this stop", () => {
    const target = verdict({ tree: tree(2) });
    const job = verdict({ tree: tree(3) });
    expect(verdictsToVoid(episode, [target, job]).map((v) => v.tree)).toEqual([tree(2), tree(3)]);
  });

  it('keeps PASSes, older FAILs of other trees or other gates, and what is voided already', () => {
    const kept = [
      verdict({ verdict: 'PASS', reason: null, status: null, at: '2026-12-01T12:01:00.000Z' }),
      verdict({ tree: tree(5) }),
      verdict({ tree: tree(2), gatesHash: 'ffffffffffff' }),
      verdict({ tree: tree(3), voided: { at: '2026-12-01T11:00:00.000Z', why: 'target_red', train: 'b-8-target' } }),
    ];
    expect(verdictsToVoid(episode, kept)).toEqual([]);
  });

  it('a long watch: FAILs written before a gate run that passed stay; those after it are the episode', () => {
    const genuine = verdict({ tree: tree(6), at: '2026-12-01T12:01:00.000Z', train: 'b-9-1' });
    const passed = verdict({ tree: tree(7), verdict: 'PASS', reason: null, status: null, at: '2026-12-01T12:02:00.000Z', train: 'b-9-2' });
    const shared = verdict({ tree: tree(8), at: '2026-12-01T12:03:00.000Z', train: 'b-9-3' });
    expect(episodeStart(episode.startedAt, [genuine, passed, shared])).toBe(passed.at);
    expect(verdictsToVoid(episode, [genuine, passed, shared]).map((v) => v.tree)).toEqual([tree(8)]);
    // The target's and the job's FAILs decided the stop: voided even when written before the PASS.
    const target = verdict({ tree: tree(2), at: '2026-12-01T12:01:30.000Z' });
    expect(verdictsToVoid(episode, [target, passed]).map((v) => v.tree)).toEqual([tree(2)]);
    // A PASS cached before this drain started does not move the start.
    const old = verdict({ verdict: 'PASS', reason: null, status: null, at: '2026-12-01T11:00:00.000Z' });
    expect(episodeStart(episode.startedAt, [old, genuine])).toBe(episode.startedAt);
  });
});
