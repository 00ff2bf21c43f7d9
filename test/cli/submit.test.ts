// `land submit` end to end: concurrent submits lose nothing, idempotence, tip updates, refusals,
// and branch names full of shell characters that must never reach a shell.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { BASIC_POLICY, errorLines, journal, jobDirEntries, jobFiles, readJobFile, walk } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

describe('land submit: 20 processes at once', () => {
  it('leaves exactly 20 jobs with distinct ids, 20 records and 20 journal lines', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const branches = Array.from({ length: 20 }, (_, i) => `feature-${String(i).padStart(2, '0')}`);
    const tips = new Map<string, string>();
    for (const branch of branches) tips.set(branch, repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` }));

    const results = await Promise.all(branches.map((branch) => land(repo.dir, ['submit', branch, '--json'])));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const outcomes = results.map((result) => result.json());
    expect(outcomes.every((o) => o.outcome === 'created')).toBe(true);

    const ids = outcomes.map((o) => o.job.id as string);
    expect(new Set(ids).size).toBe(20);

    // The files on disk: 20 records, no temp file, each the branch at its tip.
    const files = jobFiles(repo);
    expect(files).toHaveLength(20);
    expect(jobDirEntries(repo).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(files.map((f) => f.slice(0, -5)).sort()).toEqual([...ids].sort());
    const records = ids.map((id) => readJobFile(repo, id));
    expect(records.map((r) => r.branch).sort()).toEqual(branches);
    for (const record of records) {
      expect(record.state).toBe('queued');
      expect(record.tip).toBe(tips.get(record.branch));
    }

    const submitted = journal(repo).filter((entry) => entry.event === 'submitted');
    expect(submitted).toHaveLength(20);
    expect(submitted.map((entry) => entry.job).sort()).toEqual([...ids].sort());
  }, 120_000); // 20 node processes on two cores: about 10 s alone, longer on a busy machine
});

describe('land submit: idempotence, tip updates and refusals', () => {
  it('returns the same job for the same tip, and moves it to a new tip of its branch', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const oldTip = repo.branch('topic', { 'a.txt': 'a\n' });
    const first = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().outcome).toBe('created');
    const id = first.json().job.id;

    const again = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().outcome).toBe('existing');
    expect(again.json().job.id).toBe(id);
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    expect(readJobFile(repo, id).tip).toBe(oldTip);
    expect(journal(repo).map((entry) => entry.event)).toEqual(['submitted']);

    repo.git('checkout', '-q', 'topic');
    const newTip = repo.commit('second change', { 'b.txt': 'b\n' });
    repo.git('checkout', '-q', 'main');
    expect(newTip).not.toBe(oldTip);

    const updated = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.json().outcome).toBe('tip_updated');
    expect(updated.json().job.id).toBe(id);
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    const record = readJobFile(repo, id);
    expect(record.tip).toBe(newTip);
    expect(record.state).toBe('queued');
    expect(journal(repo).map((entry) => entry.event)).toEqual(['submitted', 'tip_updated']);
    expect(journal(repo)[1]).toMatchObject({ job: id, from: 'queued', to: 'queued', detail: { from: oldTip, to: newTip } });
  });

  it('refuses a missing branch (4), the target (5), a contained tip (5), a space (2) and a shorthand (2)', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.git('branch', 'merged-already', 'main');
    repo.branch('previous', { 'p.txt': 'p\n' }); // leaves @{-1} naming "previous"
    const mainTip = repo.tip('main');

    const [missing, target, contained, spaced, shorthand] = await Promise.all([
      land(repo.dir, ['submit', 'no-such-branch']),
      land(repo.dir, ['submit', 'main']),
      land(repo.dir, ['submit', 'merged-already']),
      land(repo.dir, ['submit', 'has space']),
      land(repo.dir, ['submit', '@{-1}']),
    ]);

    expect(missing.code).toBe(4);
    expect(errorLines(missing.stderr)).toHaveLength(1);
    expect(errorLines(missing.stderr)[0]).toMatch(/"no-such-branch" does not exist/);

    expect(target.code).toBe(5);
    expect(errorLines(target.stderr)).toHaveLength(1);
    expect(errorLines(target.stderr)[0]).toMatch(/target branch "main"/);

    expect(contained.code).toBe(5);
    expect(errorLines(contained.stderr)).toHaveLength(1);
    expect(errorLines(contained.stderr)[0]).toMatch(/"merged-already" .* already contained in main/);

    expect(spaced.code).toBe(2);
    expect(errorLines(spaced.stderr)).toHaveLength(1);
    expect(errorLines(spaced.stderr)[0]).toContain('"has space"');

    expect(shorthand.code).toBe(2);
    expect(errorLines(shorthand.stderr)[0]).toContain('"@{-1}"');

    // Nothing was queued or journaled by a refusal, and the target did not move.
    expect(jobFiles(repo)).toEqual([]);
    expect(journal(repo)).toEqual([]);
    expect(repo.tip('main')).toBe(mainTip);
  });
});

describe('land submit: branch names with shell characters', () => {
  const NAME = `q'"s;$(touch\${IFS}PWNED)` + '`touch${IFS}PWNED2`';

  it('queues and shows the exact name and executes nothing from it', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const tip = repo.branch(NAME, { 'weird.txt': 'w\n' });
    expect(repo.git('rev-parse', '--verify', `refs/heads/${NAME}`)).toBe(tip);

    const submitted = await land(repo.dir, ['submit', NAME, '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id;
    expect(readJobFile(repo, id)).toMatchObject({ branch: NAME, tip });

    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs).toHaveLength(1);
    expect(status.json().jobs[0]).toMatchObject({ id, branch: NAME, tip });

    const show = await land(repo.dir, ['show', id, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.json().branch).toBe(NAME);

    const pwned = walk(repo.dir).filter((path) => /(^|\/)PWNED2?$/.test(path));
    expect(pwned).toEqual([]);
    expect(existsSync(join(process.cwd(), 'PWNED'))).toBe(false);
    expect(existsSync(join(process.cwd(), 'PWNED2'))).toBe(false);
  });
});
