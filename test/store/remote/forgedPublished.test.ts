// Published refs anyone who can push can forge (docs/remote.md, "What drainers publish", "What a
// reader trusts"): an oversized log blob and an oversized metrics commit are skipped by their size,
// before they are read, with one warning, and remembered, so the next command does not read them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, sh } from '../../helpers/repo.js';
import { makeTeam } from '../../helpers/remoteTeam.js';
import { ok } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('forged published refs', () => {
  it('an oversized log and metrics message are skipped once, before they are read, and never read again', async () => {
    const team = makeTeam();
    const mallory = team.clone('mallory');
    // 50 MB of one line, and a 5 MB metrics message: a few KB each once compressed.
    const huge = 'the same line again and again\n'.repeat((50 * 1024 * 1024) / 30);
    const blob = sh(mallory.dir, ['hash-object', '-w', '--stdin'], huge);
    const tree = sh(mallory.dir, ['mktree'], `100644 blob ${blob}\tlog\n`);
    const logCommit = sh(mallory.dir, ['commit-tree', tree, '-m', 'land: gate log of train t-huge']);
    const rows = `land: metrics\n\n${'{"train":"t-x"}\n'.repeat((5 * 1024 * 1024) / 16)}`;
    const fat = sh(mallory.dir, ['commit-tree', tree, '-F', '-'], rows);
    mallory.git('push', '-q', 'origin', `${logCommit}:refs/land/logs/t-huge`, `${fat}:refs/land/metrics/0123456789abcdef`);

    const dev = team.clone('dev');
    const first = ok(await land(dev.dir, ['status']));
    expect(first.stderr).toContain(`refs/land/logs/t-huge on origin (${logCommit.slice(0, 12)}) holds a log of ${huge.length} bytes`);
    expect(first.stderr).toContain(`refs/land/metrics/0123456789abcdef on origin has a commit (${fat.slice(0, 12)}) too large to be metrics rows`);
    expect(first.stderr.match(/land: warning:/g)).toHaveLength(2);
    const state = JSON.parse(readFileSync(join(dev.dir, '.git', 'land', 'remote', 'origin', 'remote.json'), 'utf8'));
    expect(state.published.skipped.sort()).toEqual([logCommit, fat].sort());

    const second = ok(await land(dev.dir, ['status']));
    expect(second.stderr).not.toContain('warning');
  }, 60_000);
});
