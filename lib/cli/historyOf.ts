// The recorded history as stats, report and tune read it: read once from the store, with what
// could not be read (a corrupt window.json) said on stderr as a warning rather than stopping.
import type { QueueStore } from '../store/index.js';
import { readHistory, type History } from '../stats/history.js';

export function historyOf(store: QueueStore, opts: { since: number | null; now: number }): History {
  const history = readHistory(store, opts);
  for (const problem of history.problems) process.stderr.write(`land: warning: ${problem}\n`);
  return history;
}
