// How land why shows a verdict's log (lib/cli/describeStory.ts): the path on this machine, or the
// drainer's path marked as not being here; and a train the job was picked for but left out of.
import { describe, expect, it } from 'vitest';
import { renderStory } from '../../lib/cli/describeStory.js';
import type { Story, StoryEvent } from '../../lib/story/types.js';

function storyWith(logHere: boolean | undefined): Story {
  const failing = { name: 'test', status: 'exit 1', seconds: 0.5 };
  const verdict: StoryEvent = {
    kind: 'verdict',
    at: '2026-12-02T00:00:00.000Z',
    train: 'b-1',
    verdict: 'FAIL',
    reason: 'gate',
    cached: false,
    cachedFrom: null,
    gateSeconds: 0.5,
    gates: [failing],
    failing,
    log: '/runner/.git/land/logs/b-1.log',
    logTrain: 'b-1',
    output: null,
    ...(logHere === undefined ? {} : { logHere }),
  };
  return {
    job: { id: 'j-1', branch: 'b', tip: 'a'.repeat(40), title: 'b', submitter: 'ann@example.com', state: 'failed' },
    events: [verdict],
    trains: ['b-1'],
    skippedJournalLines: [],
  };
}

describe("land why's log line", () => {
  it("marks a path that is not on this machine as the drainer's", () => {
    const lines = renderStory(storyWith(false));
    expect(lines).toContainEqual(expect.stringMatching(/^\s+log \/runner\/\.git\/land\/logs\/b-1\.log \(the drainer's; not on this machine\)$/));
  });

  it('prints a path on this machine (or one never looked up) as it is', () => {
    for (const here of [true, undefined])
      expect(renderStory(storyWith(here))).toContainEqual(expect.stringMatching(/^\s+log \/runner\/\.git\/land\/logs\/b-1\.log$/));
  });
});

describe("land why's void run", () => {
  it('says the run is void, why, and the gates it spent, with no failure excerpt', () => {
    const story = storyWith(true);
    const verdict = story.events[0] as StoryEvent & { kind: 'verdict' };
    const gate = { name: 'test', status: 'stopped', seconds: 0.5 };
    story.events = [{ ...verdict, verdict: 'VOID', reason: 'withdrawn', gates: [gate], failing: null }];
    const lines = renderStory(story);
    expect(lines).toContainEqual(expect.stringMatching(/run void \(withdrawn\): nothing it found counts; gates spent: test 0\.5s$/));
    expect(lines.join('\n')).not.toContain('verdict VOID');
  });
});

describe("land why's train line", () => {
  it('says a job left out of the train it was picked for (a conflict with the members ahead) did not ride it', () => {
    const rode = (ids: string[]): Story => ({
      ...storyWith(undefined),
      events: [
        {
          kind: 'rode',
          at: '2026-12-02T00:00:00.000Z',
          train: 'b-1',
          batch: 'b',
          attempt: 1,
          trainKind: 'merge',
          base: 'c'.repeat(40),
          members: ids.map((id) => ({ id, branch: id })),
          commit: null,
          tree: null,
        },
      ],
    });
    expect(renderStory(rode(['j-0', 'j-2']))).toContainEqual(
      expect.stringMatching(/picked for train b-1 \(batch b, round 1\), which went without it: merge on c{12}$/),
    );
    expect(renderStory(rode(['j-0', 'j-1']))).toContainEqual(expect.stringMatching(/rode train b-1 \(batch b, round 1\): merge on c{12}$/));
  });
});
