// `land run`'s progress. Off a terminal: plain lines, the log path when a gate starts, a
// heartbeat while it runs, sentences that name branches. On a terminal (a pseudo-terminal here):
// a live block redrawn in place with the elapsed and expected gate time, coloured unless NO_COLOR.
// The reporters themselves are also driven with a fake clock and terminal.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { DrainEvent } from '../../../lib/landing/events.js';
import { liveReporter, MIN_REDRAW_MS, UP_AND_CLEAR } from '../../../lib/cli/progress/liveReporter.js';
import { colorEnabled, heartbeatSeconds, progressMode } from '../../../lib/cli/progress/mode.js';
import { plainReporter } from '../../../lib/cli/progress/plainReporter.js';
import { makeColors } from '../../../lib/cli/progress/reporter.js';
import type { ProgressSource } from '../../../lib/cli/progress/source.js';
import { land } from '../../helpers/cli.js';
import { landInPty } from '../../helpers/pty.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../../helpers/repo.js';
import { submitInProcess } from '../../helpers/drainHarness.js';

afterAll(() => cleanupTempDirs());

const SGR = /\x1b\[[0-9;]*m/; // a colour or style code
const COMMIT = 'c'.repeat(40);

// ---- the rules and the reporters, without a process ------------------------------------------

describe('which progress, which colours', () => {
  it('shows a live block only on a terminal, outside CI and --json; NO_COLOR never turns progress off', () => {
    expect(progressMode({ json: false, isTTY: true, env: {} })).toBe('live');
    expect(progressMode({ json: false, isTTY: true, env: { NO_COLOR: '1' } })).toBe('live');
    expect(progressMode({ json: false, isTTY: true, env: { CI: 'true' } })).toBe('plain');
    expect(progressMode({ json: false, isTTY: true, env: { CI: 'false' } })).toBe('live');
    expect(progressMode({ json: false, isTTY: true, env: { TERM: 'dumb' } })).toBe('plain');
    expect(progressMode({ json: false, isTTY: false, env: {} })).toBe('plain');
    expect(progressMode({ json: true, isTTY: true, env: {} })).toBe('json');
  });

  it('colours on a terminal; NO_COLOR turns colours off, FORCE_COLOR on (even into a pipe)', () => {
    expect(colorEnabled({ isTTY: true, env: {} })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: '1', FORCE_COLOR: '1' } })).toBe(false);
    expect(colorEnabled({ isTTY: false, env: {} })).toBe(false);
    expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: '0' } })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { CI: '1' } })).toBe(false);
  });

  it('beats every 30 s unless LAND_HEARTBEAT_SECONDS says otherwise', () => {
    expect(heartbeatSeconds({})).toBe(30);
    expect(heartbeatSeconds({ LAND_HEARTBEAT_SECONDS: '1.5' })).toBe(1.5);
    expect(heartbeatSeconds({ LAND_HEARTBEAT_SECONDS: '0' })).toBe(30);
    expect(heartbeatSeconds({ LAND_HEARTBEAT_SECONDS: 'soon' })).toBe(30);
  });
});

const source = (gateSeconds: Record<string, number[]> = {}): ProgressSource => ({
  branchOf: (job) => ({ 'j-1': 'feature/login', 'j-2': 'feature/x' })[job] ?? null,
  queuedCount: () => 3,
  gateHistory: () => ({ trainSeconds: [], gateSeconds }),
});

const TRAIN: DrainEvent[] = [
  { type: 'drain_started', pid: 1, target: 'main' },
  { type: 'train_built', train: 't-1', attempt: 1, kind: 'merge', base: COMMIT, commit: COMMIT, tree: COMMIT, members: ['j-1', 'j-2'] },
  { type: 'gate_started', train: 't-1', gate: 'test', log: '/state/logs/t-1.log' },
];

describe('the live reporter (fake terminal and clock)', () => {
  it('redraws the block in place, at most every 250 ms and only when its text changed', () => {
    let now = 0;
    const writes: { at: number; text: string }[] = [];
    const reporter = liveReporter({
      terminal: { write: (text) => writes.push({ at: now, text }), columns: () => 100 },
      source: source({ test: [20, 40] }),
      colors: makeColors(false),
      now: () => now,
      window: 2,
    });
    for (const event of TRAIN) reporter.event(event);
    for (now = 0; now <= 3000; now += 50) reporter.tick(now);

    const draws = writes.filter((w) => w.text.includes('train t-1'));
    for (let i = 1; i < draws.length; i += 1)
      expect((draws[i] as { at: number }).at - (draws[i - 1] as { at: number }).at).toBeGreaterThanOrEqual(MIN_REDRAW_MS);
    expect(draws.length).toBeLessThanOrEqual(6); // the text changes once a second, not on every tick
    const last = (draws.at(-1) as { text: string }).text;
    expect(last.startsWith(`\r${UP_AND_CLEAR.repeat(3)}`)).toBe(true);
    expect(last).toContain('train t-1 round 1: feature/login, feature/x');
    expect(last).toContain('gate test running 3s (expected ~30s)');
    expect(last).toContain('onto main: window 2, 3 queued');
  });

  it('prints the events that matter above the block, and clears the block at the end', () => {
    let now = 0;
    const writes: string[] = [];
    const reporter = liveReporter({
      terminal: { write: (text) => writes.push(text), columns: () => 100 },
      source: source(),
      colors: makeColors(true),
      now: () => now,
      window: null,
    });
    for (const event of TRAIN) reporter.event(event);
    now = 1000;
    reporter.tick(now);
    expect(writes.join('')).toContain('gate test running 1s (no history)');
    reporter.event({ type: 'landed', train: 't-1', commit: COMMIT, via: 'merge', members: ['j-1', 'j-2'] });
    const landed = writes.find((text) => text.includes('landed feature/login (j-1)')) as string;
    expect(landed.startsWith(`\r${UP_AND_CLEAR.repeat(3)}`)).toBe(true); // the block is taken back first
    expect(landed).toContain('\x1b[32m'); // green
    expect(landed).toContain('landed feature/x (j-2)');
    now = 2000;
    reporter.tick(now);
    reporter.close();
    expect(writes.at(-1)).toBe(`\r${UP_AND_CLEAR.repeat(2)}`); // "looking for the next train" and the window line
  });

  it('shows an idle watch drainer in the block, not as a permanent line', () => {
    const writes: string[] = [];
    const reporter = liveReporter({
      terminal: { write: (text) => writes.push(text), columns: () => 100 },
      source: source(),
      colors: makeColors(false),
      now: () => 0,
      window: 1,
    });
    reporter.event({ type: 'drain_started', pid: 1, target: 'main' });
    reporter.event({ type: 'idle', target: 'main', idleExitSeconds: 300, polling: false });
    reporter.tick(1000);
    const screen = writes.join('');
    expect(screen).toContain('queue empty; waiting for submissions (idle-exit after 300s)\n');
    expect(screen.split('queue empty').length).toBe(2); // drawn once (the text did not change), never printed as a line
  });

  it('cuts lines to the terminal width so that the block never wraps', () => {
    const writes: string[] = [];
    const reporter = liveReporter({
      terminal: { write: (text) => writes.push(text), columns: () => 30 },
      source: source(),
      colors: makeColors(false),
      now: () => 0,
      window: 1,
    });
    for (const event of TRAIN) reporter.event(event);
    for (const line of writes.join('').replaceAll(UP_AND_CLEAR, '').replaceAll('\r', '').split('\n')) expect([...line].length).toBeLessThan(30);
  });
});

describe('the plain reporter (fake clock)', () => {
  it('prints one line per event and a heartbeat per interval while a gate runs', () => {
    let now = 0;
    const lines: string[] = [];
    const reporter = plainReporter({ write: (line) => lines.push(line), source: source(), colors: makeColors(false), heartbeatSeconds: 30, now: () => now });
    for (const event of TRAIN) reporter.event(event);
    for (now = 0; now <= 95_000; now += 250) reporter.tick(now);
    reporter.event({ type: 'gate_finished', train: 't-1', gate: 'test', status: 'exit 0', seconds: 95 });
    for (; now <= 200_000; now += 250) reporter.tick(now);
    reporter.close();
    expect(lines.filter((line) => line.includes('running'))).toEqual([
      '  gate test running 30s; log /state/logs/t-1.log',
      '  gate test running 1m00s; log /state/logs/t-1.log',
      '  gate test running 1m30s; log /state/logs/t-1.log',
    ]);
    expect(lines).toContain('  gate test started; log /state/logs/t-1.log');
    expect(lines.some((line) => SGR.test(line))).toBe(false);
  });
});

// ---- the CLI, as a user runs it --------------------------------------------------------------

/** A repository whose gate sleeps (and fails at once on a train carrying a file named culprit). */
function sleepyRepo(sleepSeconds: number): TestRepo {
  return makeRepo({
    policy: {
      target: 'main',
      gates: [{ name: 'test', run: ['sh', '-c', `if [ -e culprit ]; then echo culprit found; exit 1; fi; sleep ${sleepSeconds}`] }],
      batch: { max: 4 },
    },
  });
}

async function submit(repo: TestRepo, branches: Record<string, Record<string, string>>): Promise<Record<string, string>> {
  for (const [branch, files] of Object.entries(branches)) repo.branch(branch, files);
  // Submitted in this process: `land run`'s progress is under test here, not `land submit`.
  const names = Object.keys(branches);
  const ids = await submitInProcess(repo.dir, names);
  return Object.fromEntries(names.map((branch, i) => [branch, ids[i] as string]));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('land run into a pipe (CI)', () => {
  it('prints the log path when a gate starts, a heartbeat while it runs, and sentences naming branches', async () => {
    const repo = sleepyRepo(2.5);
    const ids = await submit(repo, { 'feature/login': { 'login.txt': 'login\n' }, 'feature/signup': { 'signup.txt': 'signup\n' } });
    const run = await land(repo.dir, ['run'], { env: { LAND_HEARTBEAT_SECONDS: '1' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/\x1b/); // no colour, no cursor movement off a terminal

    const started = run.stderr.match(/^ {2}gate test started; log (\S+)$/m);
    expect(started, run.stderr).not.toBeNull();
    const log = (started as RegExpMatchArray)[1] as string;
    expect(existsSync(log)).toBe(true);
    expect(run.stderr).toMatch(new RegExp(`^ {2}gate test running \\d+s; log ${escapeRegExp(log)}$`, 'm'));
    expect(run.stderr).toContain('[feature/login feature/signup]'); // the train line lists branches
    expect(run.stderr).toContain(`landed feature/login (${ids['feature/login']})`);
    expect(run.stderr).toContain(`landed feature/signup (${ids['feature/signup']})`);
    // The landing is real: both tips are in main.
    for (const branch of ['feature/login', 'feature/signup']) expect(repo.git('merge-base', '--is-ancestor', branch, 'main')).toBe('');

    const broken = await submit(repo, { 'feature/broken': { culprit: 'x\n' } });
    const failed = await land(repo.dir, ['run'], { env: { LAND_HEARTBEAT_SECONDS: '1' } });
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stderr).toMatch(new RegExp(`failed feature/broken \\(${broken['feature/broken']}\\): gate test: exit 1; log `));
  });

  it('keeps --json events as they were: ids, and the log path on gate_started', async () => {
    const repo = sleepyRepo(0);
    const ids = await submit(repo, { 'feature/json': { 'json.txt': 'j\n' } });
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    expect(events.find((e) => e.type === 'gate_started')).toMatchObject({ gate: 'test', log: expect.stringMatching(/\.log$/) });
    expect(events.find((e) => e.type === 'landed')).toMatchObject({ members: [ids['feature/json']] });
    expect(run.stderr).toBe('');
  });
});

describe('land run on a terminal (pseudo-terminal)', () => {
  const ttyEnv = (extra: Record<string, string>) => ({
    ...process.env,
    CI: undefined,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    LAND_HEARTBEAT_SECONDS: undefined,
    TERM: 'xterm',
    ...extra,
  });

  it('redraws the train, the gate with its elapsed and expected time, the window and the queue', async () => {
    const repo = sleepyRepo(1.5);
    const first = await submit(repo, { 'feature/login': { 'login.txt': 'login\n' } });
    const plain = await landInPty(repo.dir, ['run'], ttyEnv({ NO_COLOR: '1' }));
    expect(plain.code, plain.output).toBe(0);
    expect(plain.output).toContain(UP_AND_CLEAR); // redrawn in place
    expect(plain.output).toMatch(/train \S+ round 1: feature\/login/);
    expect(plain.output).toMatch(/gate test running \d+s \(no history\)/);
    expect(plain.output).toMatch(/onto main: window \d+, \d+ queued/);
    expect(plain.output).toContain(`landed feature/login (${first['feature/login']})`);
    expect(plain.output).toMatch(/done: 1 train\(s\)/); // the summary stays
    expect(plain.output).not.toMatch(SGR); // NO_COLOR: no colours, progress all the same

    const second = await submit(repo, { 'feature/signup': { 'signup.txt': 'signup\n' } });
    const coloured = await landInPty(repo.dir, ['run'], ttyEnv({ FORCE_COLOR: '1' }));
    expect(coloured.code, coloured.output).toBe(0);
    expect(coloured.output).toMatch(/gate test running \d+s \(expected ~\d+s\)/); // from the first run's gate
    expect(coloured.output).toMatch(SGR);
    expect(coloured.output).toContain('\x1b[32m  landed feature/signup'); // green
    expect(coloured.output).toContain(`landed feature/signup (${second['feature/signup']})`);
    expect(repo.git('merge-base', '--is-ancestor', 'feature/signup', 'main')).toBe('');
  });
});
