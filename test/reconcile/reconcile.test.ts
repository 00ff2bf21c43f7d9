// land reconcile end to end: real git, the built CLI, disagreements planted in the state files as
// a crash or a tamper leaves them.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { journal, readJobFile } from '../helpers/state.js';
import { appendJournal, drain, editJob, kinds, makeReconcileRepo, metricsRows, reconcile, submit, writeMetricsRows } from '../helpers/reconcile.js';

afterAll(cleanupTempDirs);

describe('land reconcile', () => {
  it('finds nothing after a normal drain', async () => {
    const repo = makeReconcileRepo();
    const ids = await submit(repo, ['a', 'b', 'c']);
    await drain(repo);
    const check = await reconcile(repo, ['--check']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.out).toMatchObject({ scanned: 3, repaired: 0, disagreements: 0, nextAfter: null, found: [], uncertain: [] });
    const text = await land(repo.dir, ['reconcile']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('scanned 3 job(s): 0 disagreement(s)');
    for (const id of ids) expect(readJobFile(repo, id).state).toBe('landed');
  }, 180_000);

  it('repairs what evidence decides, moves the undecidable to uncertain, and a person resolves those', async () => {
    const repo = makeReconcileRepo();
    const side = repo.branch('side', { 'side.txt': 'never landed\n' });
    const [A, B, C, E, L, clean] = await submit(repo, ['a', 'b', 'c', 'e', 'l', 'k']);
    await drain(repo);
    const [G, H, I, J] = await submit(repo, ['g', 'h', 'i', 'j']);
    expect((await land(repo.dir, ['cancel', G as string])).code).toBe(0);
    const ids = { A, B, C, E, L, G, H, I, J } as Record<string, string>;

    editJob(repo, ids.A as string, { state: 'in_progress' }); // its train is in main: stranded_landed
    editJob(repo, ids.B as string, { train: side }); // landed, its train not in main
    editJob(repo, ids.C as string, { state: 'failed', reason: 'gate' }); // failed, its train in main
    // E's name taken out of its train's row (the other members keep theirs).
    writeMetricsRows(
      repo,
      metricsRows(repo).map((row) => ({ ...row, members: (row.members as string[]).filter((m) => m !== ids.E) })),
    );
    editJob(repo, ids.L as string, { ledger: { stage: { missing: true, ledgerDir: null } } });
    writeMetricsRows(repo, [...metricsRows(repo), { train: 'b-20261130-000000-aaaaaa-1', members: [ids.G], commit: side, landed: true, verdict: 'PASS' }]);
    appendJournal(repo, { kind: 'transition', job: ids.H, from: 'queued', to: 'canceled', event: 'canceled' });
    const batch = { id: 'b-20261130-000000-bbbbbb', members: [ids.I], attempt: 1, index: 0, train: 'b-20261130-000000-bbbbbb-1' };
    editJob(repo, ids.I as string, { state: 'in_progress', batch });
    editJob(repo, ids.J as string, { state: 'failed', reason: 'gate' }); // no journal line says so
    const mainBefore = repo.tip('main');

    const check = await reconcile(repo, ['--check']);
    expect(check.code).toBe(12);
    const expected = [
      `${ids.A} stranded_landed`,
      `${ids.B} landed_not_in_target`,
      `${ids.C} train_in_target`,
      `${ids.E} metrics_row_missing`,
      `${ids.L} ledger_line_missing`,
      `${ids.G} metrics_row_not_in_target`,
      `${ids.H} journal_ahead`,
      `${ids.I} stranded`,
      `${ids.J} unjournaled`,
    ].sort();
    expect(kinds(check.out)).toEqual(expected);
    expect(check.out).toMatchObject({ scanned: 10, repaired: 0, disagreements: 9 });
    expect(readJobFile(repo, ids.A as string).state).toBe('in_progress'); // --check changed nothing
    const text = await land(repo.dir, ['reconcile', '--check']);
    expect(text.code).toBe(12);
    expect(text.stdout).toContain(`${ids.B} landed_not_in_target: landed, but its train ${side.slice(0, 12)} is not in main`);

    const repair = await reconcile(repo);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.out).toMatchObject({ repaired: 9, disagreements: 9 });
    const state = (key: string) => readJobFile(repo, ids[key] as string).state;
    expect([state('A'), state('B'), state('C'), state('E'), state('L'), state('G'), state('H'), state('I'), state('J')]).toEqual([
      'landed',
      'uncertain',
      'uncertain',
      'landed',
      'landed',
      'canceled',
      'queued',
      'queued',
      'uncertain',
    ]);
    expect(readJobFile(repo, clean as string).state).toBe('landed');
    expect(repair.out.uncertain.map((u) => u.job).sort()).toEqual([ids.B, ids.C, ids.J].sort());
    // The missing metrics row is appended, marked as reconcile's.
    const rowOfE = metricsRows(repo).filter((row) => (row.members as string[]).includes(ids.E as string));
    expect(rowOfE).toMatchObject([{ landed: true, reconciled: true, members: [ids.E], commit: readJobFile(repo, ids.E as string).train }]);
    // Every repair is journaled: a line per job, after the planted ones.
    const lines = journal(repo);
    for (const key of ['A', 'E', 'L', 'G', 'H', 'I']) expect(lines.some((e) => e.job === ids[key] && e.event === 'reconciled')).toBe(true);
    for (const key of ['B', 'C', 'J']) expect(lines.some((e) => e.job === ids[key] && e.event === 'uncertain' && e.to === 'uncertain')).toBe(true);
    expect(repo.tip('main')).toBe(mainBefore); // never moves the target

    // A second run finds nothing to repair; the uncertain jobs still wait for a person.
    const again = await reconcile(repo, ['--check']);
    expect(again.out).toMatchObject({ disagreements: 0, found: [] });
    expect(again.out.uncertain).toHaveLength(3);
    expect(again.code).toBe(12);

    const status = await land(repo.dir, ['status']);
    expect(status.stdout).toContain(`uncertain ${ids.B}`);
    expect(status.stdout).toContain(`land reconcile --resolve ${ids.B}`);
    expect((await land(repo.dir, ['status', '--json'])).json().uncertain).toHaveLength(3);
    expect((await land(repo.dir, ['show', ids.C as string])).stdout).toMatch(/state\s+uncertain[\s\S]*land reconcile --resolve/);
    expect((await land(repo.dir, ['cancel', ids.B as string])).code).toBe(5);
    const resubmit = await land(repo.dir, ['submit', 'j']); // the same tip as uncertain J: not a second job
    expect(resubmit.code, resubmit.stderr).toBe(5);
    expect(resubmit.stderr).toContain(`job ${ids.J} for "j" at this tip is uncertain`);

    // The drain lands the queued jobs and never picks an uncertain one.
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const built = run
      .lines()
      .filter((e) => e.type === 'train_built')
      .flatMap((e) => e.members as string[]);
    expect(built.sort()).toEqual([ids.H, ids.I].sort());
    expect([state('B'), state('C'), state('J')]).toEqual(['uncertain', 'uncertain', 'uncertain']);

    // A person decides; landed only when git agrees.
    const refused = await land(repo.dir, ['reconcile', '--resolve', ids.B as string, 'landed']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('is not in main');
    expect((await land(repo.dir, ['reconcile', '--resolve', ids.B as string, 'failed'])).code).toBe(0);
    expect((await land(repo.dir, ['reconcile', '--resolve', ids.C as string, 'landed'])).code).toBe(0);
    expect((await land(repo.dir, ['reconcile', '--resolve', ids.J as string, 'queued'])).code).toBe(0);
    expect([state('B'), state('C'), state('J')]).toEqual(['failed', 'landed', 'queued']);
    expect(
      journal(repo)
        .filter((e) => e.event === 'resolved')
        .map((e) => e.detail.by),
    ).toEqual(['test@land.invalid', 'test@land.invalid', 'test@land.invalid']);
    expect((await land(repo.dir, ['reconcile', '--resolve', ids.C as string, 'queued'])).code).toBe(5); // not uncertain any more

    const clean2 = await reconcile(repo, ['--check']);
    expect(clean2.code, JSON.stringify(clean2.out)).toBe(0);
    await drain(repo);
    expect(state('J')).toBe('landed');
    expect((await reconcile(repo, ['--check'])).code).toBe(0);
  }, 300_000);

  it('decides an uncertain job once its train is back in the target, and not before', async () => {
    const repo = makeReconcileRepo(1);
    const [first, second] = await submit(repo, ['a', 'b']);
    repo.git('checkout', '-q', '--detach');
    await drain(repo);
    const landedTip = repo.tip('main');
    expect(readJobFile(repo, second as string).train).toBe(landedTip);
    repo.git('update-ref', 'refs/heads/main', `${landedTip}^1`); // someone rewound main past the last train

    const repair = await reconcile(repo);
    expect(kinds(repair.out)).toEqual([`${second} landed_not_in_target`]);
    expect(repair.out.found[0]?.message).toContain('the journal shows its landing (landed)');
    expect(readJobFile(repo, second as string).state).toBe('uncertain');
    expect(readJobFile(repo, first as string).state).toBe('landed');
    expect((await reconcile(repo)).out).toMatchObject({ decided: [], disagreements: 0 });

    repo.git('update-ref', 'refs/heads/main', landedTip);
    const decided = await reconcile(repo);
    expect(decided.out.decided).toEqual([second]);
    expect(readJobFile(repo, second as string).state).toBe('landed');
    expect((await reconcile(repo, ['--check'])).code).toBe(0);
  }, 180_000);

  it('walks the records a page at a time, in id order', async () => {
    const repo = makeReconcileRepo();
    const ids = await submit(repo, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect([...ids].sort()).toEqual(ids);
    editJob(repo, ids[4] as string, { state: 'failed' });
    const one = await reconcile(repo, ['--check', '--limit', '3']);
    expect(one.out).toMatchObject({ scanned: 3, disagreements: 0, nextAfter: ids[2] });
    expect(one.code).toBe(0);
    const two = await reconcile(repo, ['--check', '--limit', '3', '--after', one.out.nextAfter as string]);
    expect(two.out).toMatchObject({ scanned: 3, disagreements: 1, nextAfter: ids[5] });
    expect(kinds(two.out)).toEqual([`${ids[4]} unjournaled`]);
    const three = await reconcile(repo, ['--check', '--limit', '3', '--after', two.out.nextAfter as string]);
    expect(three.out).toMatchObject({ scanned: 1, disagreements: 0, nextAfter: null });
    expect((await reconcile(repo, ['--check'])).out).toMatchObject({ scanned: 7, nextAfter: null });
    expect((await reconcile(repo, ['--check', '--after', ids[6] as string])).out).toMatchObject({ scanned: 0, nextAfter: null });
  }, 180_000);

  it('refuses bad arguments with exit 2', async () => {
    const repo = makeReconcileRepo();
    const [id] = await submit(repo, ['x']);
    for (const args of [
      ['--limit', '0'],
      ['--limit', '101'],
      ['--limit', 'ten'],
      ['--after', '../x'],
      ['landed'],
      ['--resolve', id as string],
      ['--resolve', id as string, 'merged'],
    ]) {
      const result = await land(repo.dir, ['reconcile', ...args]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
    expect((await land(repo.dir, ['reconcile', '--resolve', id as string, 'queued'])).code).toBe(5);
    expect((await land(repo.dir, ['reconcile', '--resolve', 'j-19990101-0001', 'queued'])).code).toBe(4);
  }, 180_000);
});
