// Reading objects someone else wrote: their type and size without reading them (objectInfo), a
// commit's message (readCommitMessages), and a blob of many pipe chunks read whole (readBlobs).
import { afterAll, describe, expect, it } from 'vitest';
import { chainCommits, objectInfo, readBlobs, readCommitMessages } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

describe('objectInfo, readCommitMessages, chainCommits', () => {
  it('says type and size, reads messages, and a chain newest-capped oldest first', async () => {
    const repo = makeRepo();
    const big = `${'0123456789abcdef'.repeat(64 * 1024)}end\n`; // 1 MB: many 64 KB chunks
    const first = repo.commit('first', { 'big.txt': big });
    const second = repo.commit('second\n\nbody line', { 'a.txt': 'a\n' });
    const infos = await objectInfo(repo.dir, [`${first}:big.txt`, second, 'no-such-thing']);
    expect(infos.get(`${first}:big.txt`)).toEqual({ oid: repo.git('rev-parse', `${first}:big.txt`), type: 'blob', size: big.length });
    expect(infos.get(second)?.type).toBe('commit');
    expect(infos.get('no-such-thing')).toBeNull();
    expect((await readBlobs(repo.dir, [`${first}:big.txt`])).get(`${first}:big.txt`)).toBe(big);
    const messages = await readCommitMessages(repo.dir, [second, repo.git('rev-parse', `${second}^{tree}`)]);
    expect(messages.get(second)).toBe('second\n\nbody line\n');
    expect([...messages.values()][1]).toBeNull();
    expect(await chainCommits(repo.dir, { tip: second, since: null }, 2)).toEqual([first, second]);
    expect(await chainCommits(repo.dir, { tip: second, since: null }, 1)).toEqual([second]);
    expect(await chainCommits(repo.dir, { tip: second, since: first }, 10)).toEqual([second]);
  });
});
