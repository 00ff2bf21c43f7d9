// The window: how many jobs the next train may take. Pure functions, so the benchmark and the
// tests can replay any sequence of verdicts without a repository.

export type WindowEvent = 'PASS' | 'FAIL';

/** The persisted size as it applies now: never below 1, never above the policy's batch.max. */
export function clampWindow(size: number, max: number): number {
  return Math.max(1, Math.min(Math.floor(size), Math.max(1, Math.floor(max))));
}

/** After a train: a PASS grows the window by one, a FAIL halves it (rounding down, at least 1). */
export function nextWindow(size: number, event: WindowEvent, max: number): number {
  const current = clampWindow(size, max);
  return event === 'PASS' ? clampWindow(current + 1, max) : clampWindow(Math.floor(current / 2), max);
}

/** A repository with no window yet starts at batch.max: most trains pass, a FAIL halves it. */
export function initialWindow(max: number): number {
  return clampWindow(max, max);
}
