// A forged landing (security issue, item 9): a record that says `landed` and names the target's
// tip as its train, while the job's own tip is not in the target. Reconcile must report it (exit 12
// under --check) and move it to uncertain, for a local queue and for a queue kept in a remote (where
// anyone who can push writes records, their journal lines included); real landings stay confirmed.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, sh } from '../helpers/repo.js';
import { readJobFile } from '../helpers/state.js';
import { makeTeam, queuePolicy } from '../helpers/remoteTeam.js';
import { ok } from '../helpers/teamKit.js';
import { appendJournal, drain, editJob, kinds, makeReconcileRepo, reconcile, submit, type ReconcileJson } from '../helpers/reconcile.js';

afterAll(cleanupTempDirs);

describe('land reconcile and a forged landing, local queue', () => {
  it('reports a landed record whose tip is not in main, and keeps the real landings', async () => {
    const repo = makeReconcileRepo();
    const [a, b] = await submit(repo, ['a', 'b']); // one train of two: landings by merge
    await drain(repo);
    expect([a, b].map((id) => readJobFile(repo, id as string).landedVia)).toEqual(['merge', 'merge']);
    const [evil, stolen] = await submit(repo, ['evil', 'stolen']);
    const main = repo.tip('main');
    // The attack: landed, train = main's tip; the journal says so too. Its tip is not in main.
    editJob(repo, evil as string, { state: 'landed', train: main, landedVia: 'fast-forward' });
    appendJournal(repo, { kind: 'transition', job: evil, from: 'queued', to: 'landed', event: 'landed', detail: { train: main } });
    // A record naming a tip that is in main (a's), claiming a merge that no merge in main names.
    editJob(repo, stolen as string, { state: 'landed', train: main, landedVia: 'merge', tip: readJobFile(repo, a as string).tip });
    appendJournal(repo, { kind: 'transition', job: stolen, from: 'queued', to: 'landed', event: 'landed', detail: { train: main } });

    const check = await reconcile(repo, ['--check']);
    expect(check.code, check.stderr).toBe(12);
    expect(kinds(check.out)).toEqual([`${evil} landed_not_in_target`, `${stolen} landed_not_in_target`].sort());
    const said = (id: string) => check.out.found.find((f) => f.job === id)?.message;
    expect(said(evil as string)).toContain(`its tip ${readJobFile(repo, evil as string).tip.slice(0, 12)} is not in main`);
    expect(said(stolen as string)).toContain(`names it (Land-Job: ${stolen})`);

    const repair = await reconcile(repo);
    expect(repair.code, repair.stderr).toBe(0);
    expect([a, b, evil, stolen].map((id) => readJobFile(repo, id as string).state)).toEqual(['landed', 'landed', 'uncertain', 'uncertain']);
    expect(repo.tip('main')).toBe(main);
    // The landing on record does not decide it later, and a person cannot call it landed.
    expect((await reconcile(repo, ['--check'])).out).toMatchObject({ disagreements: 0, decided: [] });
    const refused = await land(repo.dir, ['reconcile', '--resolve', evil as string, 'landed']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('is not in main');
  }, 180_000);
});

describe('land reconcile and a forged landing, queue kept in a remote', () => {
  it("reports a record pushed as landed with main's tip as its train; the real landing is confirmed", async () => {
    const team = makeTeam({ policy: queuePolicy({}, { batch: { max: 8 } }) });
    const dev = team.clone('dev');
    dev.branch('one', { 'one.txt': 'one\n' });
    dev.branch('two', { 'two.txt': 'two\n' });
    dev.branch('evil', { 'evil.txt': 'never gated\n' });
    const [one, two] = ok(await land(dev.dir, ['submit', 'one', 'two', '--json']))
      .lines()
      .map((line) => line.job.id as string);
    ok(await land(team.clone('ci').dir, ['run']));
    const evil = ok(await land(dev.dir, ['submit', 'evil', '--json'])).json().job.id as string;

    // The attacker rewrites its record on the server: landed, train = main's tip, a journal line to match.
    const main = team.server('rev-parse', 'main');
    const ref = `refs/land/jobs/${evil}`;
    const record = JSON.parse(team.server('show', `${ref}:record.json`));
    const forged = { ...record, state: 'landed', train: main, base: main, tree: team.server('rev-parse', `${main}^{tree}`), landedVia: 'fast-forward' };
    const line = { at: new Date().toISOString(), kind: 'transition', job: evil, from: 'queued', to: 'landed', event: 'landed', detail: { train: main } };
    const blob = sh(team.bare, ['hash-object', '-w', '--stdin'], `${JSON.stringify(forged, null, 2)}\n`);
    const tree = sh(team.bare, ['mktree'], `100644 blob ${blob}\trecord.json\n`);
    const message = `land: ${evil} queued -> landed (landed)\n\n${JSON.stringify(line)}\n`;
    const commit = sh(team.bare, ['commit-tree', tree, '-p', team.server('rev-parse', ref)], message);
    team.server('update-ref', ref, commit);
    expect(() => team.server('merge-base', '--is-ancestor', record.tip, main)).toThrow();

    const third = team.clone('third');
    const check = await land(third.dir, ['reconcile', '--check', '--json']);
    expect(check.code, check.stderr).toBe(12);
    const out = check.json<ReconcileJson>();
    expect(kinds(out)).toEqual([`${evil} landed_not_in_target`]);
    expect(out.found[0]?.message).toContain(`its tip ${record.tip.slice(0, 12)} is not in main`);
    expect(out.scanned).toBe(3); // one and two (a train of two, merged) are confirmed

    ok(await land(third.dir, ['reconcile', '--json']));
    // The move to uncertain is pushed: every clone (and the drain) sees it.
    expect(JSON.parse(team.server('show', `${ref}:record.json`)).state).toBe('uncertain');
    const landed = [one, two].map((id) => JSON.parse(team.server('show', `refs/land/jobs/${id}:record.json`)));
    expect(landed.map((job) => [job.state, job.landedVia])).toEqual([
      ['landed', 'merge'],
      ['landed', 'merge'],
    ]);
    expect(team.server('rev-parse', 'main')).toBe(main);
  }, 180_000);
});
