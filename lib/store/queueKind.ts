// Where the queue is kept and who drains it, as `land status` shows it (QueueStore.describe).

export interface QueueView {
  /** The git remote that holds the queue; null: this clone's own. */
  remote: string | null;
  /** Who drains it (the lease as fetched): null when nobody ever did, or for a clone's own queue. */
  drainer: { holder: string; host: string; pid: number; epoch: number; released: boolean; commit: string } | null;
}

/** What `land gc` asks the store to remove (lib/gc/plan.ts): finished jobs, and trains only they rode. */
export interface PruneRequest {
  jobs: readonly string[];
  trains: readonly string[];
  /** The members of each train in `trains` (as the rows name them): a train goes only while none of them was retried. */
  members: Readonly<Record<string, readonly string[]>>;
}

/** What it removed: the job records and train logs (and, for a queue in a remote, how many refs its one push deleted). */
export interface PruneResult {
  jobs: string[];
  trains: string[];
  remoteRefs: number;
}
