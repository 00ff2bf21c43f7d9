// What a drainer's push publishes (lib/store/remote/publish.ts) and the published formats' readers
// (lib/store/formats/published.ts): pure, no git.
import { describe, expect, it } from 'vitest';
import {
  metricsMessage,
  PUBLISHED_LOG_MAX_BYTES,
  publishedLogText,
  readablePublishedLog,
  readLogForPublishing,
  READ_LOG_MAX_BYTES,
  rowsOfMetricsMessage,
} from '../../../lib/store/formats/published.js';
import { failedTrainOf, landedTrainsOf, publishPart } from '../../../lib/store/remote/publish.js';
import { emptyQueueRefs, emptyRemoteState, parseQueueRefs } from '../../../lib/store/remoteLayout.js';

const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);
const row = (train: string, extra: Record<string, unknown> = {}) => ({
  at: '2026-12-01T00:00:00Z',
  train,
  members: ['j-1'],
  verdict: 'FAIL',
  landed: false,
  cached: false,
  commit: C1,
  log: `/x/.git/land/remote/origin/logs/${train}.log`,
  ...extra,
});

describe('failedTrainOf', () => {
  it('names a train that did not land for its verdict, and whether it ran its own gates', () => {
    expect(failedTrainOf(row('b-1-1'))).toEqual({ train: 'b-1-1', commit: C1, ranGates: true });
    expect(failedTrainOf(row('b-1-2', { cached: true, log: '/x/logs/b-1-1.log' }))).toEqual({ train: 'b-1-2', commit: C1, ranGates: false });
    expect(failedTrainOf(row('b-1-3', { verdict: 'INFRA' }))?.train).toBe('b-1-3');
  });
  it('is null for a landed or passing train, or one whose name or commit land would not write', () => {
    expect(failedTrainOf(row('b-1-1', { verdict: 'PASS' }))).toBeNull();
    expect(failedTrainOf(row('b-1-1', { landed: true }))).toBeNull();
    expect(failedTrainOf(row('../../etc'))).toBeNull();
    expect(failedTrainOf(row('b-1-1', { commit: 'HEAD' }))).toBeNull();
  });
});

describe('publishPart', () => {
  const base = {
    remote: 'origin',
    drainer: '0123456789abcdef',
    refs: emptyQueueRefs(),
    logText: (train: string) => (train === 'b-1-1' ? 'log of b-1-1\n' : null),
  };
  it('carries the rows in one metrics commit, and a failed train with its log and commit', () => {
    const part = publishPart({ ...base, published: emptyRemoteState().published, rows: [row('b-1-1'), row('b-1-2', { verdict: 'PASS', landed: true })] });
    expect(part?.urgent).toBe(true);
    expect(part?.commits.map((c) => c.parent)).toEqual([null, null]);
    expect(part?.commits[1]?.files).toEqual([{ name: 'log', content: 'log of b-1-1\n' }]);
    expect(part?.updates(['m1', 'l1'])).toEqual([
      { ref: 'refs/land/metrics/0123456789abcdef', to: 'm1', expect: null },
      { ref: 'refs/land/logs/b-1-1', to: 'l1', expect: null },
      { ref: 'refs/land/trains/b-1-1', to: C1, expect: null },
    ]);
    const next = emptyRemoteState().published;
    part?.record(next, ['m1', 'l1']);
    expect(next).toMatchObject({ metrics: { '0123456789abcdef': 'm1' }, logs: { 'b-1-1': 'l1' }, trains: { 'b-1-1': C1 } });
  });
  it('is not urgent for passing rows alone, and chains the metrics commit on the last one', () => {
    const published = { ...emptyRemoteState().published, metrics: { '0123456789abcdef': C2 } };
    const part = publishPart({ ...base, published, rows: [row('b-2-1', { verdict: 'PASS', landed: true })] });
    expect(part?.urgent).toBe(false);
    expect(part?.commits).toHaveLength(1);
    expect(part?.commits[0]?.parent).toBe(C2);
    expect(part?.updates(['m2'])[0]).toEqual({ ref: 'refs/land/metrics/0123456789abcdef', to: 'm2', expect: C2 });
  });
  it('replaces a forged (non-commit) metrics ref with a new chain leased on it, and overwrites a forged log', () => {
    const refs = parseQueueRefs(
      'origin',
      new Map([
        ['refs/land-queue/origin/metrics/0123456789abcdef', { oid: C2, type: 'blob' }],
        ['refs/land-queue/origin/logs/b-1-1', { oid: C1, type: 'blob' }],
      ]),
    );
    const published = { ...emptyRemoteState().published, metrics: { '0123456789abcdef': C2 } };
    const part = publishPart({ ...base, refs, published, rows: [row('b-1-1')] });
    expect(part?.commits[0]?.parent).toBeNull();
    expect(part?.updates(['m', 'l']).slice(0, 2)).toEqual([
      { ref: 'refs/land/metrics/0123456789abcdef', to: 'm', expect: C2 },
      { ref: 'refs/land/logs/b-1-1', to: 'l', expect: C1 },
    ]);
  });
  it('publishes a train once, and nothing without rows', () => {
    const published = { ...emptyRemoteState().published, trains: { 'b-1-1': C1 }, logs: { 'b-1-1': C2 } };
    expect(publishPart({ ...base, published, rows: [row('b-1-1')] })?.urgent).toBe(false);
    expect(publishPart({ ...base, published, rows: [] })).toBeNull();
  });
});

describe('the landed trains a push carries the logs of', () => {
  const landed = (log: string | null, mode: string, state = 'landed') => ({ state, gateLog: log, gate: { mode } });
  it('names the train of each landed record whose gates ran, once', () => {
    const log = '/x/.git/land/remote/origin/logs/b-3-1.log';
    expect(landedTrainsOf([landed(log, 'full'), landed(log, 'full'), landed('/x/logs/b-3-2.log', 'selective')])).toEqual(['b-3-1', 'b-3-2']);
  });
  it('leaves out a cached or fast-path verdict, a record not landed, and a log name land would not write', () => {
    expect(landedTrainsOf([landed('/x/logs/b-3-1.log', 'cached'), landed('/x/logs/b-3-1.log', 'none')])).toEqual([]);
    expect(landedTrainsOf([landed('/x/logs/b-3-1.log', 'full', 'failed'), landed(null, 'full'), landed('/x/logs/B..log', 'full')])).toEqual([]);
  });
  it("publishes a landed train's log in the push, with no metrics commit when no row is due, and only once", () => {
    const input = { remote: 'origin', drainer: '0123456789abcdef', refs: emptyQueueRefs(), rows: [], logText: () => 'ok\n' };
    const part = publishPart({ ...input, published: emptyRemoteState().published, landed: ['b-3-1'] });
    expect(part?.urgent).toBe(false);
    expect(part?.commits.map((c) => c.files)).toEqual([[{ name: 'log', content: 'ok\n' }]]);
    expect(part?.updates(['l1'])).toEqual([{ ref: 'refs/land/logs/b-3-1', to: 'l1', expect: null }]);
    const next = emptyRemoteState().published;
    part?.record(next, ['l1']);
    expect(next).toMatchObject({ metrics: {}, logs: { 'b-3-1': 'l1' }, trains: {} });
    expect(publishPart({ ...input, published: next, landed: ['b-3-1'] })).toBeNull();
  });
});

describe('the published formats', () => {
  it('parseQueueRefs keeps published refs of names land writes, and leaves out the others', () => {
    const refs = parseQueueRefs(
      'origin',
      new Map([
        ['refs/land-queue/origin/metrics/not-hex', { oid: C1, type: 'commit' }],
        ['refs/land-queue/origin/logs/UPPER', { oid: C1, type: 'commit' }],
        ['refs/land-queue/origin/trains/b-1-1', { oid: C1, type: 'commit' }],
      ]),
    );
    expect([...refs.metrics.keys(), ...refs.logs.keys()]).toEqual([]);
    expect([...refs.trains.keys()]).toEqual(['b-1-1']);
  });
  it('a metrics message gives back its rows; lines that are not rows are counted', () => {
    const message = metricsMessage('0123456789abcdef', [row('b-1-1'), row('b-1-2')]);
    expect(rowsOfMetricsMessage(message).rows.map((r) => r.train)).toEqual(['b-1-1', 'b-1-2']);
    expect(rowsOfMetricsMessage(`${message}not json\n{"train":1}\n[]\n`)).toMatchObject({ bad: 3 });
  });
  it('a log is published as kept when it fits, else cut around one line that says so', () => {
    expect(publishedLogText('short\n')).toBe('short\n');
    const long = `${'head line\n'.repeat(50_000)}${'tail line\n'.repeat(100_000)}the failure\n`;
    const cut = publishedLogText(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(PUBLISHED_LOG_MAX_BYTES + 200);
    expect(cut.startsWith('head line\n')).toBe(true);
    expect(cut.endsWith('the failure\n')).toBe(true);
    expect(cut).toMatch(/== land: \d+ bytes of this log were cut/);
  });
  it('a long log read in slices is published cut with bounded memory, the cut line counting every byte left out', () => {
    const text = `${'head line\n'.repeat(50_000)}${'middle\n'.repeat(500_000)}${'tail line\n'.repeat(100_000)}the failure\n`;
    const SLICE = 1 << 20;
    const read = (offset: number) => {
      const bytes = Buffer.from(text).subarray(offset, offset + SLICE);
      return { text: bytes.toString('utf8'), next: offset + bytes.length };
    };
    const published = readLogForPublishing(read);
    expect(published).toBe(publishedLogText(text));
    const cut = Number(/== land: (\d+) bytes/.exec(published)?.[1]);
    expect(Buffer.byteLength(published) - Buffer.byteLength(published.split('\n').find((line) => line.startsWith('== land:')) as string) - 1 + cut).toBe(
      Buffer.byteLength(text),
    );
    expect(readLogForPublishing((offset) => ({ text: offset ? '' : 'short\n', next: 6 }))).toBe('short\n');
  });
  it('a reader takes a log blob only when it is text of a readable size', () => {
    expect(readablePublishedLog('ok\n')).toBe('ok\n');
    expect(readablePublishedLog(null)).toBeNull();
    expect(readablePublishedLog('a\0b')).toBeNull();
    expect(readablePublishedLog('x'.repeat(READ_LOG_MAX_BYTES + 1))).toBeNull();
  });
});
