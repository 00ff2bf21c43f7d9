// What land status says of the executors (lib/landing/executors/statusView.ts): pure.
import { describe, expect, it } from 'vitest';
import { executorLine, executorStatuses } from '../../../lib/landing/executors/statusView.js';
import { healthFile, markDown } from '../../../lib/landing/executors/health.js';
import { executorsOf } from '../../../lib/landing/executors/slots.js';

const policy = {
  batch: { max: 8, waitSeconds: 0, parallel: 2 },
  executors: [
    { host: 'local', slots: 1 },
    { host: 'ssh://ci@build1', slots: 2 },
    { host: 'ssh://ci@build2:2222', slots: 1 },
  ],
};
const NOW = Date.parse('2026-12-02T04:31:02Z');

describe("land status's executors", () => {
  it('says which are up and which this drain found down, why, and when they are tried again', () => {
    const health = markDown(new Map(), 'ssh://ci@build2:2222', NOW, 'ssh: connect to host build2 port 2222: Connection refused');
    const statuses = executorStatuses(executorsOf(policy as never), healthFile(health, NOW));
    expect(statuses.map((s) => [s.name, s.health])).toEqual([
      ['local', 'up'],
      ['ssh://ci@build1', 'up'],
      ['ssh://ci@build2:2222', 'down'],
    ]);
    expect(statuses.map((s) => executorLine(s, NOW + 5_000))).toEqual([
      'the drainer (1 slot): up',
      'ssh://ci@build1 (2 slots): up',
      'ssh://ci@build2:2222 (1 slot): down since 04:31:02Z (ssh: connect to host build2 port 2222: Connection refused); tried again in 25 s',
    ]);
    expect(executorLine(statuses[2] as never, NOW + 60_000)).toMatch(/tried again at the next train$/);
  });

  it('an ssh executor no drain here has used yet is unknown, not up', () => {
    const statuses = executorStatuses(executorsOf(policy as never), null);
    expect(statuses.map((s) => s.health)).toEqual(['up', 'unknown', 'unknown']);
    expect(executorLine(statuses[1] as never, NOW)).toBe('ssh://ci@build1 (2 slots): not used by a drain here yet (land doctor checks it)');
  });
});
