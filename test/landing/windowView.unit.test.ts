// The window `land status` shows in a developer's clone of a remote queue (lib/landing/windowView.ts):
// the drainer's, from the metrics' tail the command already read (status reads it once, for the
// ETA and the window), never read a second time.
import { describe, expect, it } from 'vitest';
import { policyOrThrow } from '../../lib/config/index.js';
import { hasWindowRow, readWindowAndPolicy } from '../../lib/landing/windowView.js';
import type { QueueStore } from '../../lib/store/index.js';

const policy = {
  policy: policyOrThrow(JSON.stringify({ target: 'main', gates: [], batch: { max: 8 } }), 'test'),
  target: 'main',
  tip: 'a'.repeat(40),
  tree: 'b'.repeat(40),
};

describe('readWindowAndPolicy with the tail already read', () => {
  it("takes the drainer's window from the rows it is given, without reading the metrics again", async () => {
    let reads = 0;
    const store = {
      rowsPerDrainer: true,
      readWindow: () => null,
      readMetricsTail: () => {
        reads += 1;
        return [{ windowAfter: 2 }];
      },
    } as unknown as QueueStore;
    const tail = [{ train: 't1', windowAfter: 4 }, { train: 't2' }];
    expect(hasWindowRow(tail)).toBe(true);
    expect(hasWindowRow([{ train: 't2' }])).toBe(false);
    const { view } = await readWindowAndPolicy(store, async () => policy, tail);
    expect(view).toMatchObject({ size: 4, max: 8, from: 'drainer' });
    expect(reads).toBe(0);
    expect((await readWindowAndPolicy(store, async () => policy)).view.size).toBe(2); // alone, it reads the tail itself
    expect(reads).toBe(1);
  });
});
