// Reading objects someone else wrote: their type and size without reading them (objectInfo), a
// commit's message (readCommitMessages), and a blob of many pipe chunks read whole (readBlobs).
import { afterAll, describe, expect, it } from 'vitest';
import { chainCommits, chainMessages, objectInfo, readBlobs, readCommitMessages } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, sh } from '../helpers/repo.js';

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

describe('chainMessages', () => {
  it('reads messages as they come, oldest first, and drops one over the cap unread', async () => {
    const repo = makeRepo();
    const base = repo.tip('main');
    const tree = repo.git('rev-parse', 'main^{tree}');
    const commit = (parent: string, message: string) => sh(repo.dir, ['commit-tree', tree, '-p', parent, '-F', '-'], message);
    const tip = commit(commit(commit(base, 'one'), `two\n\n${'x'.repeat(300 * 1024)}`), 'three');
    expect(await chainMessages(repo.dir, [{ tip, since: base }], 100 * 1024)).toEqual({ messages: ['one', 'three'], tooLarge: 1 });
    const all = await chainMessages(repo.dir, [{ tip, since: base }], 1024 * 1024);
    expect(all.messages.map((message) => message.length)).toEqual([3, 3 + 2 + 300 * 1024, 5]);
  });
});
