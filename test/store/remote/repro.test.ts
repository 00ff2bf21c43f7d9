// `land repro --dir` in a queue kept in a remote: the store's folder is the cache
// (.git/land/remote/origin/), but the git folder it must keep out of is still the clone's .git.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam } from '../../helpers/remoteTeam.js';
import { ok } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('land repro in a remote queue', () => {
  it("refuses a --dir inside the clone's git folder, outside the queue's cache folder", async () => {
    const team = makeTeam();
    const alice = team.clone('alice');
    alice.branch('feature', { 'feature.txt': 'feature\n' });
    const id = JSON.parse(ok(await land(alice.dir, ['submit', 'feature', '--json'])).stdout).job.id as string;
    const refused = await land(alice.dir, ['repro', id, '--dir', '.git/repro']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("is inside the repository's git folder");
    expect(existsSync(join(alice.dir, '.git', 'repro'))).toBe(false);
  });
});
