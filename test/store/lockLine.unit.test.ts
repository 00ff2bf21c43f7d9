// The queue lock's holds from one process take turns in the order they asked. A drainer's lease
// heartbeat asks for the lock every third of the lease; when its pushes are slow, a poll-only lock
// let each new heartbeat (polling every few ms) win over the drain's own change (backed off to
// 100 ms between polls): on a loaded CI machine the drain waited for minutes after its landing.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../lib/store/lock.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withFileLock within one process', () => {
  it('a waiter is served before askers that came after it, however often they ask', async () => {
    const lock = join(tempDir('land-lockline-'), 'queue.lock');
    const order: string[] = [];
    let inside = 0;
    let overlapped = false;
    const hold = (name: string, ms: number) =>
      withFileLock(lock, async () => {
        inside += 1;
        if (inside > 1) overlapped = true;
        order.push(name);
        await sleep(ms);
        inside -= 1;
      });
    // A slow "heartbeat" holds the lock; the drain asks; more heartbeats keep asking every 20 ms.
    const first = hold('heartbeat-0', 300);
    await sleep(20);
    const drain = hold('drain', 10);
    const later: Promise<void>[] = [];
    for (let i = 1; i <= 10; i += 1) {
      await sleep(20);
      later.push(hold(`heartbeat-${i}`, 30));
    }
    await Promise.all([first, drain, ...later]);
    expect(order.slice(0, 2)).toEqual(['heartbeat-0', 'drain']);
    expect(order).toHaveLength(12);
    expect(overlapped).toBe(false);
  });

  it('a hold that throws passes the lock on to the next in line', async () => {
    const lock = join(tempDir('land-lockline-'), 'queue.lock');
    const failing = withFileLock(lock, async () => {
      await sleep(50);
      throw new Error('boom');
    });
    const next = withFileLock(lock, () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
