// The failure story as a pure function: journal lines + metrics rows + record → events.
import { describe, expect, it } from 'vitest';
import { newJobRecord } from '../../lib/queue/submit.js';
import type { JobRecord, JournalEntry } from '../../lib/store/index.js';
import { renderStory } from '../../lib/cli/describeStory.js';
import { buildStory, flatStatus } from '../../lib/story/buildStory.js';
import type { TrainRow } from '../../lib/story/trainRow.js';

const TIP = 'a'.repeat(40);
const BASE = 'b'.repeat(40);
const ID = 'j-1';

function job(patch: Partial<JobRecord> = {}): JobRecord {
  return { ...newJobRecord({ id: ID, branch: 'feature/x', tip: TIP, title: 'feature/x', submitter: 'ann@example.com', urgent: false }), ...patch };
}

let clock = 0;
function line(event: string, detail: Record<string, unknown> = {}, from: JournalEntry['from'] = null, to: JournalEntry['to'] = null, jobId = ID): JournalEntry {
  clock += 1;
  return { at: `2026-01-01T00:00:${String(clock).padStart(2, '0')}.000Z`, kind: 'transition', job: jobId, from, to, event, detail };
}

function row(train: string, members: string[], verdict: string, extra: Partial<TrainRow> = {}): TrainRow {
  return {
    at: '2026-01-01T00:01:00.000Z',
    train,
    batch: 'b-1',
    attempt: 1,
    kind: 'merge',
    members,
    branches: members.map((m) => (m === ID ? 'feature/x' : `br-${m}`)),
    tips: members.map(() => TIP),
    base: BASE,
    commit: 'c'.repeat(40),
    tree: 'd'.repeat(40),
    gateSeconds: 1.5,
    cached: false,
    log: `/state/logs/${train}.log`,
    gate: { mode: 'full', executed: ['test'], results: [{ name: 'test', outcome: 'exited', status: verdict === 'PASS' ? 'exit 0' : 'exit 2', seconds: 1.5 }] },
    verdict,
    reason: verdict === 'PASS' ? null : 'gate',
    landed: verdict === 'PASS',
    ...extra,
  };
}

const kinds = (events: { kind: string }[]) => events.map((e) => e.kind);

describe('buildStory', () => {
  it('a job with no history beyond its submission says so, and where it waits', () => {
    const story = buildStory({
      job: job(),
      journal: [line('submitted', { branch: 'feature/x', tip: TIP }, null, 'queued')],
      rows: [],
      position: 3,
      runningLog: null,
    });
    expect(kinds(story.events)).toEqual(['submitted', 'note', 'now']);
    expect(story.events[0]).toMatchObject({ by: 'ann@example.com', branch: 'feature/x', tip: TIP, fromRecord: false });
    expect(story.events[1]).toMatchObject({ event: 'no_history' });
    expect(story.events[2]).toMatchObject({ state: 'queued', position: 3 });
    expect(story.trains).toEqual([]);
  });

  it('tells a bisection: the trains ridden, each verdict with its failing gate, the steps of the batch, the failure', () => {
    const rows = [row('b-1-1', [ID, 'j-2'], 'FAIL'), row('b-1-2', [ID], 'FAIL', { attempt: 2 }), row('b-1-3', ['j-2'], 'PASS', { attempt: 2 })];
    const journal = [
      line('submitted', { branch: 'feature/x', tip: TIP }, null, 'queued'),
      line('fast_path_checked', { alone: false }),
      line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' }, 'queued', 'in_progress'),
      line('train_started', { batch: 'b-1', attempt: 2, train: 'b-1-2' }, 'in_progress', 'in_progress'),
      line('failed', { reason: 'gate', code: 'gate', message: 'gate test: exit 2' }, 'in_progress', 'failed'),
    ];
    const story = buildStory({
      job: job({ state: 'failed', reason: 'gate', error: { code: 'gate', message: 'gate test: exit 2' }, gateLog: '/state/logs/b-1-2.log' }),
      journal,
      rows,
      position: null,
      runningLog: null,
    });
    expect(kinds(story.events)).toEqual(['submitted', 'rode', 'verdict', 'note', 'rode', 'verdict', 'bisection', 'failed', 'now']);
    expect(story.trains).toEqual(['b-1-1', 'b-1-2']);
    expect(story.events[1]).toMatchObject({
      train: 'b-1-1',
      batch: 'b-1',
      attempt: 1,
      trainKind: 'merge',
      base: BASE,
      members: [
        { id: ID, branch: 'feature/x' },
        { id: 'j-2', branch: 'br-j-2' },
      ],
    });
    expect(story.events[2]).toMatchObject({
      train: 'b-1-1',
      verdict: 'FAIL',
      failing: { name: 'test', status: 'exit 2', seconds: 1.5 },
      log: '/state/logs/b-1-1.log',
      logTrain: 'b-1-1',
      output: null,
    });
    expect(story.events[3]).toMatchObject({ event: 'bisected' });
    const bisection = story.events[6] as Extract<(typeof story.events)[number], { kind: 'bisection' }>;
    expect(bisection.steps.map((s) => [s.train, s.verdict, s.rode, s.landed])).toEqual([
      ['b-1-1', 'FAIL', true, false],
      ['b-1-2', 'FAIL', true, false],
      ['b-1-3', 'PASS', false, true],
    ]);
    expect(story.events[7]).toMatchObject({ train: 'b-1-2', reason: 'gate', message: 'gate test: exit 2' });
    expect(story.events[8]).toMatchObject({ state: 'failed', train: 'b-1-2', log: '/state/logs/b-1-2.log', message: 'gate test: exit 2' });
  });

  it('a cached verdict names the train that judged the tree and its failing gate', () => {
    const rows = [
      row('b-0-1', ['j-9'], 'FAIL', {
        batch: 'b-0',
        gate: { mode: 'full', results: [{ name: 'lint', outcome: 'timeout', status: 'timed out', seconds: 60 }] },
        reason: 'timeout',
      }),
      row('b-1-1', [ID], 'FAIL', {
        cached: true,
        log: '/state/logs/b-0-1.log',
        gate: { mode: 'cached', source: 'cache', cachedFrom: 'b-0-1', executed: [] },
        reason: 'timeout',
      }),
    ];
    const journal = [
      line('submitted', {}),
      line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' }),
      line('failed', { reason: 'timeout', code: 'timeout' }),
    ];
    const story = buildStory({ job: job({ state: 'failed' }), journal, rows, position: null, runningLog: null });
    const verdict = story.events.find((e) => e.kind === 'verdict');
    expect(verdict).toMatchObject({ cached: true, cachedFrom: 'b-0-1', logTrain: 'b-0-1', failing: { name: 'lint', status: 'timed out', seconds: 60 } });
    // A batch of one never bisected: no bisection event.
    expect(kinds(story.events)).not.toContain('bisection');
  });

  it('conflicts carry their paths; an old line without paths takes the record preview', () => {
    const journal = [
      line('submitted', {}),
      line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' }),
      line('requeued', { reason: 'conflict_with_train', against: 'train', paths: ['a.txt', 'b.txt'] }),
      line('train_started', { batch: 'b-2', attempt: 1, train: 'b-2-1' }),
      line('failed', { reason: 'conflict', code: 'conflict' }),
    ];
    const preview = { base: BASE, paths: ['c.txt'], checkedAt: 'x', against: 'target' as const };
    const story = buildStory({
      job: job({ state: 'failed', reason: 'conflict', conflictPreview: preview }),
      journal,
      rows: [row('b-1-1', ['j-2'], 'PASS')],
      position: null,
      runningLog: null,
    });
    const conflicts = story.events.filter((e) => e.kind === 'conflict');
    expect(conflicts).toEqual([
      expect.objectContaining({ train: 'b-1-1', against: 'train', paths: ['a.txt', 'b.txt'], outcome: 'requeued' }),
      expect.objectContaining({ train: 'b-2-1', against: 'target', paths: ['c.txt'], outcome: 'failed' }),
    ]);
    // The train it was left out of has no verdict for it.
    expect(kinds(story.events)).not.toContain('verdict');
  });

  it('stop requests, requeues, retries and a cancel, in journal order; unknown events become notes', () => {
    const journal = [
      line('submitted', {}),
      line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' }),
      line('stop_requested', { kind: 'preempt', forJob: 'j-7' }),
      line('requeued', { reason: 'preempted' }),
      line('something_new', { count: 2, nested: { ignored: true } }),
      line('failed', { reason: 'infra', code: 'gate_not_started', message: 'gate test: exit 127' }),
      line('retried', { by: 'bob@example.com', previousState: 'failed', previousReason: 'infra' }),
      line('stop_requested', { kind: 'cancel', by: 'carol@example.com' }),
      line('canceled', { by: 'carol@example.com' }),
    ];
    const story = buildStory({ job: job({ state: 'canceled' }), journal, rows: [], position: null, runningLog: null });
    expect(kinds(story.events)).toEqual(['submitted', 'rode', 'stop_requested', 'requeued', 'note', 'failed', 'retried', 'stop_requested', 'canceled', 'now']);
    expect(story.events[2]).toMatchObject({ stop: 'preempt', forJob: 'j-7', by: null });
    expect(story.events[3]).toMatchObject({ reason: 'preempted', train: 'b-1-1' });
    expect(story.events[4]).toMatchObject({ event: 'something_new', text: 'something new (count 2)' });
    expect(story.events[6]).toMatchObject({ how: 'retried', by: 'bob@example.com', previousState: 'failed', previousReason: 'infra' });
    expect(story.events.at(-1)).toMatchObject({ state: 'canceled', by: 'carol@example.com' });
  });

  it('a job submitted again at the same tip after a cancel tells both, and waits in the queue again', () => {
    const journal = [
      line('submitted', {}),
      line('canceled', { by: 'ann@example.com' }),
      line('resubmitted', { by: 'ann@example.com', previousState: 'canceled', previousReason: 'canceled', tip: TIP }),
    ];
    const story = buildStory({ job: job(), journal, rows: [], position: 2, runningLog: null });
    expect(kinds(story.events)).toEqual(['submitted', 'canceled', 'retried', 'now']);
    expect(story.events[2]).toMatchObject({ how: 'resubmitted', previousState: 'canceled', by: 'ann@example.com' });
    expect(story.events[3]).toMatchObject({ state: 'queued', position: 2 });
  });

  it('a running job: riding its train, with the log being written; a PASS then landed names the train', () => {
    const running = buildStory({
      job: job({ state: 'in_progress', batch: { id: 'b-1', members: [ID], attempt: 1, index: 0, train: 'b-1-1' } }),
      journal: [line('submitted', {}), line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' })],
      rows: [],
      position: null,
      runningLog: '/state/logs/b-1-1.log',
    });
    expect(running.events.at(-1)).toMatchObject({ state: 'in_progress', train: 'b-1-1', log: '/state/logs/b-1-1.log' });

    const landed = buildStory({
      job: job({ state: 'landed', train: 'e'.repeat(40), landedVia: 'fast-forward' }),
      journal: [
        line('submitted', {}),
        line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' }),
        line('landing', { train: 'e'.repeat(40), base: BASE }),
        line('landed', { train: 'e'.repeat(40), via: 'fast-forward' }),
      ],
      rows: [row('b-1-1', [ID], 'PASS', { kind: 'fast-forward' })],
      position: null,
      runningLog: null,
    });
    expect(kinds(landed.events)).toEqual(['submitted', 'rode', 'verdict', 'landed', 'now']);
    expect(landed.events[2]).toMatchObject({ verdict: 'PASS', failing: null, gates: [{ name: 'test', status: 'exit 0', seconds: 1.5 }] });
    expect(landed.events[3]).toMatchObject({ train: 'b-1-1', commit: 'e'.repeat(40), via: 'fast-forward' });
    expect(landed.events[4]).toMatchObject({ state: 'landed', train: 'b-1-1', commit: 'e'.repeat(40), via: 'fast-forward' });
  });

  it('an advisory gate that failed is told and never named as the failing gate: the verdict comes from the others', () => {
    const lint = { name: 'lint', outcome: 'exited' as const, status: 'exit 1', seconds: 0.5, advisory: true as const };
    const test = (status: string) => ({ name: 'test', outcome: 'exited' as const, status, seconds: 1.5 });
    const storyOf = (verdict: string, status: string) =>
      buildStory({
        job: job({ state: verdict === 'PASS' ? 'landed' : 'failed' }),
        journal: [line('submitted', {}), line('train_started', { batch: 'b-1', attempt: 1, train: 'b-1-1' })],
        rows: [row('b-1-1', [ID], verdict, { gate: { mode: 'full', executed: ['lint', 'test'], results: [lint, test(status)] } })],
        position: null,
        runningLog: null,
      });
    const verdictOf = (verdict: string, status: string) => storyOf(verdict, status).events.find((e) => e.kind === 'verdict');
    expect(verdictOf('PASS', 'exit 0')).toMatchObject({ verdict: 'PASS', failing: null, advisoryFailed: [{ name: 'lint', status: 'exit 1', seconds: 0.5 }] });
    expect(verdictOf('FAIL', 'exit 2')).toMatchObject({ failing: { name: 'test', status: 'exit 2' }, advisoryFailed: [{ name: 'lint' }] });
    expect(renderStory(storyOf('PASS', 'exit 0')).join('\n')).toContain('advisory gate lint failed (exit 1); not counted');
    // A run with no advisory failure carries no such field.
    expect(
      buildStory({
        job: job(),
        journal: [line('submitted', {}), line('train_started', { train: 'b-1-1' })],
        rows: [row('b-1-1', [ID], 'PASS')],
        position: null,
        runningLog: null,
      }).events.find((e) => e.kind === 'verdict'),
    ).not.toHaveProperty('advisoryFailed');
  });

  it('a re-run of a cached FAIL tells its status without nested brackets', () => {
    const cached = 'exit 1 (cached: the same tree failed in train b-0-1)';
    const journal = [
      line('submitted', { branch: 'feature/x', tip: TIP }, null, 'queued'),
      line('gate_rerun', { gate: 'test', status: cached, run: 2, train: 'b-1-1' }),
      line('gate_flaky', { gate: 'test', status: cached, passedRun: 2, train: 'b-1-1' }),
    ];
    const notes = buildStory({ job: job(), journal, rows: [], position: null, runningLog: null })
      .events.filter((e) => e.kind === 'note')
      .map((e) => (e as { text: string }).text);
    expect(notes).toContain(
      'gate test failed (exit 1; cached: the same tree failed in train b-0-1) with this job alone; its gates run again on the same tree (run 2 of train b-1-1, retries.flaky)',
    );
    expect(notes.find((n) => n.startsWith('flaky gate test'))).toContain(
      'it failed once (exit 1; cached: the same tree failed in train b-0-1) and then passed',
    );
    expect(flatStatus(undefined)).toBe('FAIL');
    // A flake on the target, met by the target check made before failing the job.
    const target = buildStory({
      job: job(),
      journal: [line('target_flaky', { gate: 'test', tree: BASE, train: 'b-1-target', failedRun: 1, status: 'exit 1', passedRun: 2 })],
      rows: [],
      position: null,
      runningLog: null,
    }).events.find((e) => e.kind === 'note') as { text: string };
    expect(target.text).toBe(
      'before failing this job, the target itself was gated: its gate test failed (exit 1) and then passed on the same tree (run 2 of train b-1-target): a flake on the target, which is green',
    );
    expect(flatStatus('exit 1')).toBe('exit 1');
  });

  it('without a submission line, the record tells it; skipped journal lines are passed on', () => {
    const story = buildStory({ job: job(), journal: [], rows: [], position: 1, runningLog: null, skippedJournalLines: [4, 9] });
    expect(story.events[0]).toMatchObject({ kind: 'submitted', fromRecord: true, at: story.events[0]?.at });
    expect(story.skippedJournalLines).toEqual([4, 9]);
  });

  it('names a verdict taken from the cache and a wait caused by a red target', () => {
    const journal = [
      line('submitted', { branch: 'feature/x', tip: TIP }, null, 'queued'),
      line('judged_from_cache', { alone: false, refusal: 'cached_fail', cachedFrom: 'b-0-1' }),
      line('target_red', { batch: 'b-1' }),
    ];
    const story = buildStory({ job: job(), journal, rows: [], position: 1, runningLog: null });
    const notes = story.events.filter((e) => e.kind === 'note').map((e) => (e as { text: string }).text);
    expect(notes).toContain('judged alone from the verdict cache: the same tree failed in train b-0-1');
    expect(notes).toContain('the target itself fails its gates: this job waits with the rest of batch b-1 until the target is fixed');
  });
});
