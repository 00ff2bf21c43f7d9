// `land gc`: the logs no metrics row names, pruned with the jobs they belong to. A train whose every
// member conflicted ran no gate and wrote no row (its claimed log stays empty); a target check's log
// (`<batch>-target`, `<batch>-target-2`, ...) is no train's. Both are found through the pruned
// jobs' `train_started` lines (their trains and batches), and go when no kept job's lines name
// the train or the batch. Pure: runGc reads the lines and asks which logs exist.
import { journalDetail, type JournalEntry } from '../store/index.js';

/** The trains and batches a job's journal lines say it rode. */
function ridden(lines: Iterable<readonly JournalEntry[]>): { trains: Set<string>; batches: Set<string> } {
  const trains = new Set<string>();
  const batches = new Set<string>();
  for (const entries of lines) {
    for (const entry of entries) {
      const detail = journalDetail(entry, 'train_started');
      if (detail?.train) trains.add(detail.train);
      if (detail?.batch) batches.add(detail.batch);
    }
  }
  return { trains, batches };
}

/** How many target-check logs of one batch are looked for (`-target`, `-target-2`, ...): a batch checks its target a few times at most. */
const TARGET_CHECKS_LOOKED_AT = 20;

/**
 * The logs to prune besides the planned trains': the pruned jobs' trains and their batches'
 * target checks that have a log, that `planned` does not hold, and that no kept job rode.
 */
export function strayTrainLogs(opts: {
  pruned: ReadonlyMap<string, readonly JournalEntry[]>;
  kept: ReadonlyMap<string, readonly JournalEntry[]>;
  planned: readonly string[];
  hasLog: (train: string) => boolean;
}): string[] {
  const gone = ridden(opts.pruned.values());
  const kept = ridden(opts.kept.values());
  const found = new Set<string>();
  for (const train of gone.trains) if (!kept.trains.has(train)) found.add(train);
  for (const batch of gone.batches) {
    if (kept.batches.has(batch)) continue;
    for (let n = 1; n <= TARGET_CHECKS_LOOKED_AT; n += 1) {
      const check = n === 1 ? `${batch}-target` : `${batch}-target-${n}`;
      if (!opts.hasLog(check)) break;
      found.add(check);
    }
  }
  return [...found].filter((train) => !opts.planned.includes(train) && opts.hasLog(train)).sort();
}
