import { describe, expect, it } from 'vitest';
import { downsample, SPARKLINE_WIDTH, sparkline } from '../../lib/stats/sparkline.js';

describe('sparkline', () => {
  it('draws one bar per value, proportional to the largest', () => {
    expect(sparkline([])).toBe('');
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([8, 4, 2, 1])).toBe('█▄▂▁');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([3, 3, 3])).toBe('███');
  });

  it('downsamples a long history to at most 60 bars, each bucket drawn as its smallest value', () => {
    expect(SPARKLINE_WIDTH).toBe(60);
    const long = Array.from({ length: 6000 }, (_, i) => (i === 3001 ? 1 : 8));
    const points = downsample(long);
    expect(points).toHaveLength(60);
    // 100 values a bucket: the dip at 3001 is in bucket 30, and only there.
    expect(points.filter((p) => p === 1)).toHaveLength(1);
    expect(points.indexOf(1)).toBe(30);
    expect(sparkline(long)).toHaveLength(60);
    expect(sparkline(long)[30]).toBe('▁');
    // Uneven buckets cover every value once.
    // 7 values in 3 buckets: [5 1] [5 5] [5 2 5].
    expect(downsample([5, 1, 5, 5, 5, 2, 5], 3)).toEqual([1, 5, 2]);
    expect(downsample([1, 2, 3], 60)).toEqual([1, 2, 3]);
  });
});
