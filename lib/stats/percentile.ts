// The one percentile of `land stats` (and of what reads its figures): nearest rank. The p-th
// percentile of n values is the value at rank ceil(p/100 x n) of the sorted values (rank 1 for
// p = 0), so every figure printed is a value that was observed (a median of 2 values is the lower).

/** The p-th percentile (0..100) of `values` by nearest rank; null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return percentileOfSorted(sorted, p);
}

/** The same on values already sorted ascending (no copy). */
export function percentileOfSorted(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** How a set of durations (seconds) spreads: count, sum, median and p90 (nearest rank; null when none). */
export interface Distribution {
  count: number;
  sum: number;
  median: number | null;
  p90: number | null;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const median = percentileOfSorted(sorted, 50);
  const p90 = percentileOfSorted(sorted, 90);
  return {
    count: sorted.length,
    sum: round3(sorted.reduce((total, value) => total + value, 0)),
    median: median === null ? null : round3(median),
    p90: p90 === null ? null : round3(p90),
  };
}
