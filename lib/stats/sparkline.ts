// A terminal sparkline (▁▂▃▄▅▆▇█) of a series of sizes, for `land stats`'s window history. Pure.

const BARS = '▁▂▃▄▅▆▇█';

/** The longest sparkline drawn; a longer series is downsampled to this many points. */
export const SPARKLINE_WIDTH = 60;

/**
 * Downsamples `values` to at most `width` points: the series is cut into `width` consecutive
 * buckets of (nearly) equal length and each bucket is drawn as its smallest value, so a window
 * that shrank for a moment (a culprit) still shows. A series no longer than `width` is kept.
 */
export function downsample(values: readonly number[], width = SPARKLINE_WIDTH): number[] {
  if (values.length <= width) return [...values];
  const out: number[] = [];
  for (let i = 0; i < width; i += 1) {
    const start = Math.floor((i * values.length) / width);
    const end = Math.floor(((i + 1) * values.length) / width);
    let low = values[start] as number;
    for (let k = start + 1; k < end; k += 1) low = Math.min(low, values[k] as number);
    out.push(low);
  }
  return out;
}

/**
 * One bar per value (after downsampling), its height proportional to the value against the
 * largest one (0 draws the lowest bar; the largest draws █): a window of 4 under a max of 8 is
 * half height. Empty for no values.
 */
export function sparkline(values: readonly number[], width = SPARKLINE_WIDTH): string {
  const points = downsample(values, width);
  const top = Math.max(0, ...points);
  if (points.length === 0) return '';
  return points
    .map((value) => {
      if (top <= 0 || value <= 0) return BARS[0];
      const level = Math.ceil((value / top) * BARS.length) - 1;
      return BARS[Math.max(0, Math.min(BARS.length - 1, level))];
    })
    .join('');
}
