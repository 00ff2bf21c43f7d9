// A failed job's record carries the last lines of the failing gate's log (`gateLogTail`), so
// `land why` and `land show` can say why where the log is not (a queue kept in a remote: gate logs
// stay on the drainer). The tail function, then the CLI on real repositories.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Judgement } from '../../../lib/landing/gates/judge.js';
import { cutLine, LOG_TAIL_LINES, LOG_TAIL_WIDTH, logTextTail } from '../../../lib/landing/gates/logTail.js';
import { settleTrain, type TrainFacts } from '../../../lib/landing/plan/settlement.js';
import { newJobRecord, reopenChange, type JobChange } from '../../../lib/queue/index.js';
import type { JobRecord } from '../../../lib/store/index.js';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../../helpers/repo.js';
import { FAIL_AT_ONCE, readJobFile } from '../../helpers/state.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';

afterAll(cleanupTempDirs);

const section = (name: string, lines: readonly string[], status = 'exit 1') => [
  `== gate ${name}: ["sh","-c","x"] (timeout 60s)`,
  ...lines,
  `== gate ${name}: ${status} after 0.1s`,
];
const numbered = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const text = (lines: readonly string[]) => `${lines.join('\n')}\n`;

describe('the tail of a gate log', () => {
  it('keeps the last 20 lines of the failing gate, without land’s own lines or the other gates’ output', () => {
    const log = text(['== train t-1 at abc on def: j-1', ...section('lint', numbered(5, 'lint'), 'exit 0'), ...section('test', numbered(30))]);
    const tail = logTextTail(log, 'test');
    expect(tail).toEqual(numbered(30).slice(10));
    expect(tail).toHaveLength(LOG_TAIL_LINES);
  });

  it('keeps every line of a gate that printed fewer than 20, and the last failed section when the gate is not named', () => {
    const log = text([...section('lint', ['fine'], 'exit 0'), ...section('test', ['one', 'two', 'three'])]);
    expect(logTextTail(log, 'test')).toEqual(['one', 'two', 'three']);
    expect(logTextTail(log, '(cached)')).toEqual(['one', 'two', 'three']);
    // The latest run of a gate decides (a flaky re-run appends to the same log).
    const rerun = text([...section('test', ['first run']), '== run 2 of train t-1', ...section('test', ['second run'])]);
    expect(logTextTail(rerun, 'test')).toEqual(['second run']);
  });

  it('cuts a long line to 300 characters (by characters, with a mark) and drops a CRLF’s carriage return', () => {
    const long = 'x'.repeat(1000);
    const [cut] = logTextTail(text(section('test', [long])), 'test');
    expect(cut).toHaveLength(LOG_TAIL_WIDTH);
    expect(cut).toBe(`${'x'.repeat(LOG_TAIL_WIDTH - 1)}…`);
    expect(cutLine('exact'.padEnd(LOG_TAIL_WIDTH, '.'))).toHaveLength(LOG_TAIL_WIDTH);
    expect(cutLine('dos line\r')).toBe('dos line');
    // A character outside the BMP is never split in half.
    const emoji = cutLine('😀'.repeat(400));
    expect(Array.from(emoji)).toHaveLength(LOG_TAIL_WIDTH);
    expect(emoji.endsWith('😀…')).toBe(true);
  });

  it('is empty for an empty log or a gate that printed nothing; without a gate section, the log’s own last lines', () => {
    expect(logTextTail('', 'test')).toEqual([]);
    expect(logTextTail(text(section('test', [])), 'test')).toEqual([]);
    const noGate = text(['== train t-1 at abc on def: j-1', '== could not create the gate worktree: disk full']);
    expect(logTextTail(noGate, 'test')).toEqual(['== train t-1 at abc on def: j-1', '== could not create the gate worktree: disk full']);
  });
});

describe('the settlement of a judgement that carries the tail', () => {
  const TAIL = ['compiling', 'error: expected 1, got 2'];
  const member = (n: number, extra: Partial<JobRecord> = {}): JobRecord => ({
    ...newJobRecord({ id: `j-20261130-000${n}`, branch: `b${n}`, tip: 'a'.repeat(40), title: `b${n}`, submitter: 't', urgent: false }),
    state: 'in_progress',
    ...extra,
  });
  const facts = (members: JobRecord[]): TrainFacts => ({
    target: 'main',
    batchId: 'b-1',
    trainId: 'b-1-1',
    attempt: 1,
    members,
    train: { kind: 'merge', base: 'b'.repeat(40), commit: 'c'.repeat(40), tree: 'd'.repeat(40) },
    policy: { retries: { infra: 0, casLost: 0 }, batch: { max: 8 } },
    window: 4,
    waiting: [],
    now: '2026-11-30T12:00:00.000Z',
  });
  const common = {
    cached: false,
    seconds: 1,
    log: '/state/logs/b-1-1.log',
    telemetry: { mode: 'full' as const, executed: ['test'] },
    ledger: null,
    refreshed: null,
  };
  const patched = (change: JobChange, job: JobRecord): JobRecord => ({ ...job, ...(typeof change.patch === 'function' ? change.patch(job) : change.patch) });

  it('puts it on the culprit failed by a gate, and on the members failed past their infra retries', () => {
    const job = member(1);
    const fail: Judgement = { verdict: 'FAIL', failure: { kind: 'fail', reason: 'gate', gate: 'test', status: 'exit 1' }, ...common, gateLogTail: TAIL };
    const [failed] = settleTrain(facts([job]), fail, { step: 'target_checked', health: { kind: 'green', cached: false, log: null } }).changes;
    expect(failed && patched(failed, job)).toMatchObject({ state: 'in_progress', reason: 'gate', gateLogTail: TAIL });
    const infra: Judgement = {
      verdict: 'INFRA',
      failure: { kind: 'infra', reason: 'gate_not_started', gate: 'test', status: 'exit 127' },
      ...common,
      gateLogTail: TAIL,
    };
    const [gaveUp] = settleTrain(facts([job]), infra, { step: 'judged' }).changes;
    expect(gaveUp?.to).toBe('failed');
    expect(gaveUp && patched(gaveUp, job).gateLogTail).toEqual(TAIL);
  });

  it('puts none on a job no gate failed (a lost CAS past its retries), and a reopen removes it with the error', () => {
    const job = member(1);
    const pass: Judgement = { verdict: 'PASS', failure: null, ...common };
    const [lost] = settleTrain(facts([job]), pass, { step: 'landing', outcome: { kind: 'lost', actual: null } }).changes.filter((c) => c.to === 'failed');
    expect(lost?.to).toBe('failed');
    expect(lost && patched(lost, job).gateLogTail).toBeUndefined();
    const failed = member(2, { state: 'failed', error: { code: 'gate', message: 'gate test: exit 1' }, gateLogTail: TAIL });
    const reopened = patched(reopenChange(failed, 'retried', 't'), failed);
    expect(reopened.error).toBeNull();
    expect(JSON.parse(JSON.stringify(reopened))).not.toHaveProperty('gateLogTail');
  });
});

/** A gate that, on a tree with loud.txt, prints 30 lines (the last with a passed-through secret), then exits 1. */
const LOUD_GATE = [
  {
    name: 'test',
    run: ['sh', '-c', 'test -e loud.txt || exit 0; i=1; while [ $i -le 29 ]; do echo "gate line $i"; i=$((i+1)); done; echo "token $LOGTAIL_TOKEN"; exit 1'],
    passEnv: ['LOGTAIL_TOKEN'],
  },
];
const SECRET = 'sekrit-value-42';
const EXPECTED = [...numbered(29, 'gate line').slice(10), 'token ***'];

describe('a failed job’s gateLogTail, end to end', () => {
  it('is on the record, shown by land why and land show (also once the log is gone), and cleared by land retry', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: LOUD_GATE, ...FAIL_AT_ONCE } });
    repo.branch('loud', { 'loud.txt': 'a\n' });
    const submitted = await land(repo.dir, ['submit', 'loud', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id as string;
    const run = await land(repo.dir, ['run'], { env: { LOGTAIL_TOKEN: SECRET } });
    expect(run.code, run.stderr).toBe(0);

    const record = readJobFile(repo, id);
    expect(record.state).toBe('failed');
    // The last 20 lines of the gate's output, redacted as the stored log is; land's own end line excluded.
    expect(record.gateLogTail).toEqual(EXPECTED);

    const whyJson = (await land(repo.dir, ['why', id, '--json'])).json();
    expect(whyJson.events.at(-1)).toMatchObject({ kind: 'now', state: 'failed', gateLogTail: EXPECTED });
    const why = await land(repo.dir, ['why', id]);
    expect(why.code, why.stderr).toBe(0);
    // The log is here: the verdict shows the gate's section read from it, and it is not repeated.
    expect(why.stdout).toContain('| gate line 29');
    expect(why.stdout).not.toContain('kept on the job record');

    const show = await land(repo.dir, ['show', id]);
    expect(show.stdout).toContain('excerpt of the gate log (kept on the job record):');
    expect(show.stdout).toContain('  | gate line 11\n');
    expect(show.stdout).not.toContain('gate line 10\n');
    expect(show.stdout).not.toContain(SECRET);
    expect((await land(repo.dir, ['show', id, '--json'])).json().gateLogTail).toEqual(EXPECTED);

    // The same tree again, on another branch: failed from the verdict cache, with the lines of the
    // log of the train that judged it.
    repo.branch('loud-again', { 'loud.txt': 'a\n' });
    const again = (await land(repo.dir, ['submit', 'loud-again', '--json'])).json().job.id as string;
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    const cached = readJobFile(repo, again);
    expect(cached).toMatchObject({ state: 'failed', gate: { mode: 'cached' } });
    expect(cached.gateLogTail).toEqual(EXPECTED);

    // The log is not on this machine: land why tells the record's lines under "now".
    rmSync(record.gateLog as string);
    const gone = await land(repo.dir, ['why', id]);
    expect(gone.code, gone.stderr).toBe(0);
    const lines = gone.stdout.split('\n');
    const heading = lines.indexOf('  excerpt of the gate log (kept on the job record):');
    expect(heading, gone.stdout).toBeGreaterThan(lines.findIndex((line) => line.startsWith('now: failed')));
    expect(lines.slice(heading + 1, heading + 21)).toEqual(EXPECTED.map((line) => `    | ${line}`));

    const retry = await land(repo.dir, ['retry', id]);
    expect(retry.code, retry.stderr).toBe(0);
    const reopened = readJobFile(repo, id);
    expect(reopened.state).toBe('queued');
    expect(reopened.error).toBeNull();
    expect(reopened).not.toHaveProperty('gateLogTail');
    expect((await land(repo.dir, ['show', id])).stdout).not.toContain('excerpt of the gate log');
  });

  it('reaches another clone of a queue kept in a remote, on the record and in the published log', async () => {
    const team = makeTeam({ policy: queuePolicy({}, { gates: LOUD_GATE, ...FAIL_AT_ONCE }) });
    const dev = team.clone('dev');
    dev.branch('loud', { 'loud.txt': 'a\n' });
    const submitted = await land(dev.dir, ['submit', 'loud', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id as string;
    const ci = team.clone('ci');
    const run = await land(ci.dir, ['run'], { env: { LOGTAIL_TOKEN: SECRET } });
    expect(run.code, run.stderr).toBe(0);

    const why = await land(dev.dir, ['why', id]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toMatch(/\nnow: failed \(gate\)/);
    // The drainer published the failed train's log (docs/remote.md): why reads it in this clone.
    expect(why.stdout).toMatch(/ {2}excerpt of gate test's output:\n +\| gate line 11\n/);
    expect(why.stdout).toContain('    | token ***');
    expect(why.stdout).not.toContain(SECRET);
    const show = (await land(dev.dir, ['show', id, '--json'])).json();
    expect(show).toMatchObject({ state: 'failed', gateLogTail: EXPECTED });
  });
});
