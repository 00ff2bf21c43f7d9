// Where the queue is kept and who drains it, as `land status` shows it (QueueStore.describe).

export interface QueueView {
  /** The git remote that holds the queue; null: this clone's own. */
  remote: string | null;
  /** Who drains it (the lease as fetched): null when nobody ever did, or for a clone's own queue. */
  drainer: { holder: string; host: string; pid: number; epoch: number; released: boolean; commit: string } | null;
}
