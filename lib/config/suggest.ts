// "did you mean ...?" for an unknown key: the nearest known key by edit distance, or none when
// nothing is close enough to be a likely typo.

/**
 * Optimal-string-alignment distance (Damerau-Levenshtein restricted to adjacent transpositions
 * of untouched letters): insertions, deletions, substitutions and swaps of two neighbours cost 1.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Case, `_` and `-` do not count: `timeout_seconds` and `TimeoutSeconds` are `timeoutSeconds`. */
function normalize(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

/** How many edits still read as a typo of a key this long: one per three letters, 1 to 3. */
function allowedEdits(length: number): number {
  return Math.min(3, Math.max(1, Math.floor(length / 3)));
}

/**
 * The known key `unknown` most likely meant, or null. Close by edit distance (`gate` → `gates`,
 * `maxx` → `max`), or a shortened spelling of a longer key (`timeout` → `timeoutSeconds`).
 * Ties go to the earlier known key.
 */
export function nearestKey(unknown: string, known: readonly string[]): string | null {
  const wanted = normalize(unknown);
  if (wanted === '') return null;
  const limit = allowedEdits(wanted.length);
  let best: { key: string; score: number } | null = null;
  for (const key of known) {
    const candidate = normalize(key);
    const whole = editDistance(wanted, candidate);
    // A prefix of a longer key: compared with that key cut to the same length, ranked after a
    // whole-key match of the same distance.
    const prefix = wanted.length >= 4 && candidate.length > wanted.length ? editDistance(wanted, candidate.slice(0, wanted.length)) : Infinity;
    const distance = Math.min(whole, prefix);
    if (distance > limit) continue;
    const score = distance * 2 + (whole <= prefix ? 0 : 1);
    if (best === null || score < best.score) best = { key, score };
  }
  return best?.key ?? null;
}
