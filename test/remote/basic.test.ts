import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { makeTeam } from './setup.js';

afterAll(cleanupTempDirs);

describe('a queue kept in a remote', () => {
  it('takes a submission in one clone, shows it in another, and a fresh clone drains it', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    dev.branch('feature', { 'a.txt': 'a\n' });
    const submitted = await land(dev.dir, ['submit', 'feature', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id as string;
    expect(team.server('for-each-ref', '--format=%(refname)', 'refs/land/')).toContain(`refs/land/jobs/${id}`);

    const other = team.clone('other');
    const status = await land(other.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs.map((j: { id: string }) => j.id)).toEqual([id]);

    const ci = team.clone('ci');
    const run = await land(ci.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    expect(team.server('show', 'main:a.txt')).toBe('a');
    const show = await land(other.dir, ['show', id, '--json']);
    expect(show.json().state).toBe('landed');
  });
});

describe('a server that declines the queue', () => {
  it('a submit refused by a server hook (not a lost race) is exit 13 at once, and nothing is queued anywhere', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    writeFileSync(join(team.bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "no queue here" >&2\nexit 1\n');
    chmodSync(join(team.bare, 'hooks', 'pre-receive'), 0o755);
    dev.branch('feature', { 'a.txt': 'a\n' });
    const submitted = await land(dev.dir, ['submit', 'feature']);
    expect(submitted.code, submitted.stderr).toBe(13);
    expect(submitted.stderr).toMatch(/^land: the remote origin refused the push: refs\/land\/\S+ \[remote rejected\] \(pre-receive hook declined\)/);
    expect(team.server('for-each-ref', 'refs/land/')).toBe('');
    const status = await land(dev.dir, ['status', '--json']);
    expect(status.json().jobs).toEqual([]);
  });
});
