// A title (and a branch name, and a gate's output, and a corrupt window.json) made to spoof the
// terminal: colour and window-title escape sequences, a carriage return, a newline, C1 controls,
// DEL and a right-to-left override. Human output shows them escaped, one line where there was
// one line; --json keeps the exact title. A title longer than the limit is refused (exit 2) and
// nothing is queued.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveReporter, UP_AND_CLEAR } from '../../lib/cli/progress/liveReporter.js';
import { plainReporter } from '../../lib/cli/progress/plainReporter.js';
import { makeColors } from '../../lib/cli/progress/reporter.js';
import type { ProgressSource } from '../../lib/cli/progress/source.js';
import type { DrainEvent } from '../../lib/landing/events.js';
import { TITLE_MAX_CHARS } from '../../lib/queue/submit.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { errorLines, jobFiles, stateDir } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

/** What no human output may carry raw: C0 controls but newline and tab, DEL, C1, bidi controls, line separators. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectClean(text: string, what: string): void {
  const found = RAW_CONTROL.exec(text);
  const code = found ? `U+${(found[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')}` : '';
  expect(found, `${what} holds a raw ${code}: ${JSON.stringify(text)}`).toBeNull();
}

const TITLE = '\x1b[31mRED\x1b[0m \x1b]0;owned\x07 one\r\ntwo \u202eevil\u202c \u009b2J\x7f';
/** The title as printable() shows it. */
const SHOWN = '\\x1b[31mRED\\x1b[0m \\x1b]0;owned\\x07 one\\r\\ntwo \\u202eevil\\u202c \\x9b2J\\x7f';
const BIDI_BRANCH = 'feat/\u202egnp.exe';

// The gate fails when the train holds bad.txt, and prints a window-title sequence, colour, a
// carriage return and a right-to-left override (octal escapes: dash's printf).
const GATE = 'if [ -f bad.txt ]; then printf "\\033]0;owned\\007\\033[31mboom\\r\\n\\342\\200\\256evil\\n" >&2; exit 1; fi';

describe('a hostile title on the terminal', () => {
  it('land status, show, why and run show it escaped; --json keeps it exact', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: GATE }], batch: { max: 1 } } });
    repo.branch(BIDI_BRANCH, { 'ok.txt': 'ok\n' });
    repo.branch('feature/hostile', { 'bad.txt': 'bad\n' });
    const first = await land(repo.dir, ['submit', BIDI_BRANCH, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const submitted = await land(repo.dir, ['submit', 'feature/hostile', '--title', TITLE, '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id: string = submitted.json().job.id;
    expect(submitted.json().job.title).toBe(TITLE);

    const status = await land(repo.dir, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expectClean(status.stdout, 'land status');
    const lines = status.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5); // summary, header, two rows, eta: the title's newline made no line
    expect(lines.find((line) => line.includes(id))).toContain(SHOWN);
    expect(status.stdout).toContain('"feat/\\u202egnp.exe"');
    const statusJson = await land(repo.dir, ['status', '--json']);
    expect(statusJson.json().jobs.find((job: { id: string }) => job.id === id).title).toBe(TITLE);

    const show = await land(repo.dir, ['show', id]);
    expectClean(show.stdout, 'land show');
    expect(show.stdout).toMatch(new RegExp(`^title +${SHOWN.replace(/[\\[\]]/g, '\\$&')}$`, 'm'));
    expect((await land(repo.dir, ['show', id, '--json'])).json().title).toBe(TITLE);

    const run = await land(repo.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    expectClean(run.stderr, 'land run progress');
    expect(run.stderr).toContain('feat/\\u202egnp.exe');
    expect(repo.git('merge-base', '--is-ancestor', BIDI_BRANCH, 'main')).toBe('');

    const why = await land(repo.dir, ['why', id]);
    expect(why.code, why.stderr).toBe(0);
    expectClean(why.stdout, 'land why');
    expect(why.stdout).toContain(`"${SHOWN}"`);
    expect(why.stdout).toContain('| \\x1b]0;owned\\x07\\x1b[31mboom\\r'); // the gate's own output line, escaped
    expect((await land(repo.dir, ['why', id, '--json'])).json().job.title).toBe(TITLE);
    expect(why.stdout).toMatch(/^now: failed/m);
  }, 120_000);

  it(`refuses a title longer than ${TITLE_MAX_CHARS} characters with exit 2, and queues nothing`, async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [] } });
    repo.branch('feature/long', { 'long.txt': 'long\n' });
    const refused = await land(repo.dir, ['submit', 'feature/long', '--title', 'x'.repeat(100_000)]);
    expect(refused.code).toBe(2);
    expect(errorLines(refused.stderr)).toEqual([`land: --title is 100000 characters long; the limit is ${TITLE_MAX_CHARS}`]);
    expect(jobFiles(repo)).toEqual([]);
    const atLimit = await land(repo.dir, ['submit', 'feature/long', '--title', 'é'.repeat(TITLE_MAX_CHARS), '--json']);
    expect(atLimit.code, atLimit.stderr).toBe(0);
    expect(atLimit.json().job.title).toBe('é'.repeat(TITLE_MAX_CHARS));
  }, 120_000);

  it('a corrupt window.json holding escape sequences is reported on one line without them', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [] } });
    repo.branch('feature/a', { 'a.txt': 'a\n' });
    expect((await land(repo.dir, ['submit', 'feature/a'])).code).toBe(0);
    writeFileSync(join(stateDir(repo), 'window.json'), '\x1b]0;owned\x07\x1b[2J\r\n{"size": \u202e\x9b');
    for (const args of [['status'], ['run']]) {
      const result = await land(repo.dir, args);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(8);
      expectClean(result.stderr, `land ${args[0]} stderr`);
      const [error, ...more] = errorLines(result.stderr);
      expect(error).toMatch(/^land: window\.json is corrupt: not valid JSON/);
      expect(error).toContain('\\x1b]0;owned');
      expect(more).toEqual([]);
    }
  }, 120_000);
});

describe('the progress reporters escape what events carry', () => {
  const source: ProgressSource = {
    branchOf: (job) => ({ 'j-1': BIDI_BRANCH, 'j-2': 'x\x1b[2Jy' })[job] ?? null,
    queuedCount: () => 1,
    gateHistory: () => ({ trainSeconds: [], gateSeconds: {} }),
  };
  const COMMIT = 'c'.repeat(40);
  const EVENTS: DrainEvent[] = [
    { type: 'drain_started', pid: 1, target: 'main' },
    { type: 'train_built', train: 't-1', attempt: 1, kind: 'merge', base: COMMIT, commit: COMMIT, tree: COMMIT, members: ['j-1', 'j-2'] },
    { type: 'member_skipped', train: 't-1', job: 'j-2', against: 'target', paths: ['a\x1b]0;owned\x07.txt', 'b\nc.txt'] },
    { type: 'failed', job: 'j-1', reason: 'infra', message: `could not start: \x1b[31m${TITLE}` },
    { type: 'warning', message: 'line\r\x1b[2Kspoofed' },
  ];

  it('plain lines: one line per sentence, no raw control', () => {
    const lines: string[] = [];
    const reporter = plainReporter({ write: (line) => lines.push(line), source, colors: makeColors(false), heartbeatSeconds: 30, now: () => 0 });
    for (const event of EVENTS) reporter.event(event);
    reporter.close();
    for (const line of lines) expectClean(line, 'a plain progress line');
    expect(lines.filter((line) => line.includes('\n'))).toEqual([]);
    expect(lines.join('\n')).toContain('conflicts with the target (a\\x1b]0;owned\\x07.txt, b\\nc.txt)');
    expect(lines.join('\n')).toContain(SHOWN);
  });

  it('the live block: only its own cursor and colour sequences reach the terminal', () => {
    let now = 0;
    const writes: string[] = [];
    const reporter = liveReporter({
      terminal: { write: (text) => writes.push(text), columns: () => 200 },
      source,
      colors: makeColors(true),
      now: () => now,
      window: 1,
    });
    for (const event of EVENTS) {
      now += 300;
      reporter.event(event);
    }
    reporter.close();
    const screen = writes
      .join('')
      .split(UP_AND_CLEAR)
      .join('')
      .replace(/\x1b\[[0-9;]*m/g, '') // picocolors' own colours
      .replace(/\r/g, ''); // the reporter's own carriage return before the block is taken back
    expectClean(screen, 'the live block');
    expect(screen).toContain('"feat/\\u202egnp.exe"'.slice(1, -1));
    expect(screen).toContain('x\\x1b[2Jy');
  });
});
