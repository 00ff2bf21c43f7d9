// What differs between a clone's own queue and a queue kept in a remote, as the commands and the
// drain see it: methods of the store (FileStore, RemoteStore), never a question about its class.

/** Where the queue is kept and who drains it, as `land status` shows it. */
export interface QueueView {
  /** The git remote that holds the queue; null: this clone's own. */
  remote: string | null;
  /** Who drains it (the lease as fetched): null when nobody ever did, or for a clone's own queue. */
  drainer: { holder: string; host: string; pid: number; epoch: number; released: boolean; commit: string } | null;
}

/**
 * How a queue kept in a remote lands a train: one atomic push that moves the target (with a lease
 * on the train's base) together with the queue changes `fn` makes, or nothing moves. A clone's own
 * queue has none: it lands with a compare-and-swap of the local ref.
 */
export interface LandingPush {
  /** Runs `fn` under the queue lock and pushes its changes with the target update; QueueRaced when refused. */
  pushLanding<T>(fn: () => Promise<T> | T, target: { ref: string; to: string; expect: string }): Promise<T>;
  /** After the push went through: the clone's view of the target moves with it (no fetch). */
  noteTargetMoved(target: string, commit: string): Promise<void>;
}
