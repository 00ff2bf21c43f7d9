// The drain lease of a queue kept in a remote: refs/land/lease, a chain of commits whose tree
// holds lease.json (docs/remote.md). Taking it is a push with a lease on the value seen; every
// push the holder makes renews it (and a heartbeat every ttl/3 when nothing else is pushed), so a
// holder whose lease was taken over has every push refused. Expiry needs no shared clock: a
// waiter takes the lease once the ref has not moved for ttlSeconds by its own monotonic clock. A
// renewal the remote does not answer is tried again with a back-off (lib/store/outage.ts) until
// the lease's time has passed since the last renewal; then the holder counts its lease lost.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { LandError } from '../errors.js';
import { pushAtomic, readBlobs, writeCommits, type NewCommit, type RefUpdate } from '../git/index.js';
import { nextRetry, unreachableReason, type OutageNotice } from './outage.js';
import { leaseHost, leaseMessage, leaseText, parseLeaseText, remoteRefs, type Lease, type QueueRemote } from './remoteLayout.js';
import type { DrainHolder } from './formats/index.js';

interface Held {
  lease: Lease;
  oid: string;
  renewedAt: number;
  lost: Error | null;
}

export interface LeaseHooks {
  /** When the remote last answered, and what is said about an outage (the store's). */
  outage: OutageNotice;
  fetch(): Promise<void>;
  leaseRef(): string | null;
  /** Whether the lease ref names a commit (a forged blob or tree there is replaced by a new history). */
  leaseIsCommit(): boolean;
  /** Pushes a renewal under the queue lock when `stillDue()` says so there (a push meanwhile renews it too). */
  renew(stillDue: () => boolean): Promise<unknown>;
  /** When this host first saw lease commit `oid` (wall clock, ms), as kept in its cache; null when it never did. */
  firstSeen(oid: string): number | null;
  noteSeen(oid: string, at: number): void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function leaseFile(lease: Lease): NewCommit['files'] {
  return [{ name: 'lease.json', content: leaseText(lease) }];
}

/** A lease taken over from a holder that stopped renewing it (not one released, nor a first one). */
export interface LeaseTakeover {
  /** describeLease of the lease taken over. */
  from: string;
  /** When this host first saw that lease value (its own clock: a holder's clock plays no part). */
  silentSince: Date;
}

/** The line a drainer says when it took the lease over: whose, and since when nobody renewed it. */
export function takeoverText(remote: string, takeover: LeaseTakeover, now: Date = new Date()): string {
  const seconds = Math.round((now.getTime() - takeover.silentSince.getTime()) / 1000);
  const since = takeover.silentSince.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `took over the queue lease on ${remote} from ${takeover.from}, silent since ${since} (${seconds} s by this host's clock)`;
}

export function describeLease(lease: Lease | null): string {
  return lease
    ? `drainer ${lease.holder.slice(0, 8)} (pid ${lease.pid} on ${lease.host}, lease epoch ${lease.epoch})`
    : 'a drainer whose lease file is unreadable';
}

export class LeaseKeeper {
  private current: Held | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  readonly holder = randomBytes(8).toString('hex');

  constructor(
    private readonly queue: QueueRemote,
    private readonly hooks: LeaseHooks,
  ) {}

  held(): Lease | null {
    return this.current && !this.current.lost ? this.current.lease : null;
  }

  lost(): Error | null {
    return this.current?.lost ?? null;
  }

  private readonly known = new Map<string, Lease | null>();

  /** lease.json at commit `oid` (a commit never changes: read once per process). */
  async read(oid: string): Promise<Lease | null> {
    if (this.known.has(oid)) return this.known.get(oid) ?? null;
    const lease = await this.readOnce(oid);
    this.known.set(oid, lease);
    return lease;
  }

  /**
   * Null when lease.json is not exactly the form land writes (parseLeaseText), as the server's hook
   * refuses it: a lease of an unknown holder, never free at once, taken over once unmoved for
   * leaseSeconds like a dead holder's (take below).
   */
  private async readOnce(oid: string): Promise<Lease | null> {
    const text = (await readBlobs(this.queue.cwd, [`${oid}:lease.json`])).get(`${oid}:lease.json`);
    return typeof text === 'string' ? parseLeaseText(text) : null;
  }

  /**
   * Takes the lease: at once when nobody holds it, else once it expired (or `busy` without `wait`).
   * Returns whose expired lease it took over, if it did (null: the lease was free or released).
   */
  async take(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<LeaseTakeover | null> {
    const seen = { oid: undefined as string | null | undefined, since: 0 };
    let announced = false;
    for (let pass = 0; ; pass += 1) {
      if (pass > 0) await this.hooks.fetch(); // the first look uses the fetch the store has just made
      const oid = this.hooks.leaseRef();
      const lease = oid ? await this.read(oid) : null;
      if (oid !== seen.oid) Object.assign(seen, { oid, since: performance.now() });
      const ttl = lease?.ttlSeconds ?? this.queue.leaseSeconds;
      // This host saw the same commit before (an earlier run, `--no-wait` from cron): its own clock
      // since then counts too, so a dead holder's lease is taken without waiting out a whole TTL.
      const before = oid ? this.hooks.firstSeen(oid) : null;
      if (oid && before === null) this.hooks.noteSeen(oid, Date.now());
      const unmoved = Math.max(performance.now() - seen.since, before === null ? 0 : Date.now() - before);
      const held = oid !== null && lease?.released !== true;
      const free = !held || unmoved >= ttl * 1000;
      if (free && (await this.claim(oid, lease))) return held ? { from: describeLease(lease), silentSince: new Date(Date.now() - unmoved) } : null;
      if (free) continue; // another drainer took it first: look again
      if (!opts.wait) {
        throw new LandError('busy', `the queue on ${this.queue.remote} is drained by ${describeLease(lease)}`, {
          hint: `run without --no-wait to wait; a holder that died is taken over ${ttl} s after its last renewal`,
        });
      }
      if (opts.shouldStop?.()) throw new LandError('interrupted', 'stopped by a signal while waiting for the queue lease');
      if (!announced) {
        opts.onWaiting?.(lease ? { pid: lease.pid, host: lease.host, id: lease.holder, since: '' } : null);
        announced = true;
      }
      await sleep(Math.min(this.queue.pollSeconds * 1000, (ttl * 1000) / 4));
    }
  }

  private async claim(oid: string | null, previous: Lease | null): Promise<boolean> {
    const lease: Lease = {
      version: 1,
      holder: this.holder,
      host: leaseHost(hostname()),
      pid: process.pid,
      epoch: (previous?.epoch ?? 0) + 1,
      ttlSeconds: this.queue.leaseSeconds,
      released: false,
    };
    const parent = oid !== null && oid === this.hooks.leaseRef() && !this.hooks.leaseIsCommit() ? null : oid;
    const [commit] = await writeCommits(this.queue.cwd, [{ parent, files: leaseFile(lease), message: leaseMessage(lease) }]);
    const pushed = await pushAtomic(this.queue.cwd, this.queue.remote, [{ ref: remoteRefs(this.queue.remote).lease, to: commit as string, expect: oid }]);
    this.hooks.outage.reached();
    if (pushed.kind !== 'pushed') return false;
    this.current = { lease, oid: commit as string, renewedAt: performance.now(), lost: null };
    this.startHeartbeat();
    return true;
  }

  private startHeartbeat(): void {
    const every = (this.queue.leaseSeconds * 1000) / 3;
    const due = (held: Held) => !held.lost && this.current === held && performance.now() - held.renewedAt >= every * 0.9;
    // One renewal at a time: when a push takes longer than a third of the lease (a loaded machine,
    // a slow link), ticks that come meanwhile are skipped rather than lined up behind it.
    let renewing = false;
    let failures = 0;
    const renew = () => {
      const held = this.current;
      if (!held || renewing || !due(held)) return; // a push renewed it meanwhile
      renewing = true;
      const started = this.hooks.outage.clock();
      this.hooks
        .renew(() => due(held))
        .then(() => {
          failures = 0;
        })
        .catch((error: unknown) => {
          if (held.lost) return;
          failures += 1;
          this.renewalFailed(held, error, { failures, started }, renew);
        })
        .finally(() => {
          renewing = false;
        });
    };
    this.timer = setInterval(renew, every);
    this.timer.unref();
  }

  /**
   * A renewal failed: tried again after the back-off (an unreachable remote is said once), until
   * the lease's time has passed since the last renewal. Then another drainer may hold the lease by
   * now: it is lost (exit 13 when the remote could not be reached, else 6).
   */
  private renewalFailed(held: Held, error: unknown, attempt: { failures: number; started: number }, again: () => void): void {
    const { failures, started } = attempt;
    const reason = unreachableReason(error);
    const step = nextRetry(failures, performance.now() - held.renewedAt, this.queue);
    if (step.kind === 'give_up') {
      held.lost =
        reason !== null
          ? this.hooks.outage.gaveUp(reason)
          : new LandError('busy', `could not renew the queue lease on ${this.queue.remote} for ${this.queue.leaseSeconds} s: ${(error as Error).message}`);
      return;
    }
    if (reason !== null) this.hooks.outage.unreachable(reason, started);
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(again, step.waitMs);
    this.retry.unref();
  }

  /** The commit a push of the holder carries: the same lease, one commit further. */
  renewalCommit(): NewCommit & { parent: string } {
    const held = this.current as Held;
    return { parent: held.oid, files: leaseFile(held.lease), message: leaseMessage(held.lease) };
  }

  renewed(oid: string): void {
    if (!this.current) return;
    this.current.oid = oid;
    this.current.renewedAt = performance.now();
  }

  /** After a refused push (the cache just fetched): a lease ref that moved means another drainer took over. */
  checkAfterRefusal(): void {
    const held = this.current;
    if (!held || held.lost) {
      if (held?.lost) throw held.lost;
      return;
    }
    if (this.hooks.leaseRef() === held.oid) return;
    held.lost = new LandError('busy', `this drainer lost the queue lease on ${this.queue.remote} (another drainer took over); it stops without landing`);
    throw held.lost;
  }

  /**
   * Stops the heartbeat and hands the lease back (best effort: an unreachable remote lets it expire).
   * `carry`: updates that ride the release push (the drainer's last metrics rows), `done` once it went through.
   */
  async release(carry?: () => Promise<{ updates: RefUpdate[]; done: () => void } | null>): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.timer = null;
    this.retry = null;
    const held = this.current;
    this.current = null;
    if (!held || held.lost) return;
    const lease = { ...held.lease, released: true };
    try {
      const extra = (await carry?.().catch(() => null)) ?? null;
      const [commit] = await writeCommits(this.queue.cwd, [{ parent: held.oid, files: leaseFile(lease), message: leaseMessage(lease) }]);
      const leaseUpdate = { ref: remoteRefs(this.queue.remote).lease, to: commit as string, expect: held.oid };
      const pushed = await pushAtomic(this.queue.cwd, this.queue.remote, [leaseUpdate, ...(extra?.updates ?? [])]);
      if (pushed.kind === 'pushed') extra?.done();
      // The rows must never keep the lease held: refused with them, the lease goes back alone.
      else if (extra) await pushAtomic(this.queue.cwd, this.queue.remote, [leaseUpdate]);
    } catch {
      // it expires on its own
    }
  }
}
