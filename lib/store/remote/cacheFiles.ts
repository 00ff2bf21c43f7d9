// The cache folder's own files: remote.json (the commit of each queue ref the cache holds),
// inflight.json (how to take back a transaction whose push's fate is unknown), lease-seen.json
// (when this clone first saw the lease's commit) and drainer-id (this clone's name as a drainer,
// random). Each is replaced by rename (never read half) but not fsynced. A process killed mid-way loses none of them (the page cache survives it). A power
// loss may: a stale remote.json costs a re-read of the records whose refs moved; a lost
// lease-seen.json counts the lease's age again from the next look; a lost inflight.json leaves a
// push's changes in the cache whether or not the remote took them, until those records move again.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeCacheFile } from '../atomic.js';
import { drainerIdSchema } from '../formats/published.js';
import { type LeaseSeen, leaseSeenSchema } from '../formats/lease.js';
import { emptyRemoteState, inflightSchema, remoteStateSchema, type Inflight, type RemoteState } from '../remoteLayout.js';

const writeCacheJson = (path: string, value: unknown) => writeCacheFile(path, `${JSON.stringify(value)}\n`);

export class RemoteCacheFiles {
  constructor(private readonly root: string) {}

  private get statePath(): string {
    return join(this.root, 'remote.json');
  }

  private get inflightPath(): string {
    return join(this.root, 'inflight.json');
  }

  readState(): RemoteState {
    // A new cache has published none of its metrics rows; a damaged state does not know how many (null).
    if (!existsSync(this.statePath))
      return { ...emptyRemoteState(), published: { metricsAt: 0, metrics: {}, logs: {}, trains: {}, skipped: [], pruned: null } };
    try {
      const parsed = remoteStateSchema.safeParse(JSON.parse(readFileSync(this.statePath, 'utf8')));
      // A damaged state file costs one full re-read of the records, nothing else.
      return parsed.success ? parsed.data : emptyRemoteState();
    } catch {
      return emptyRemoteState();
    }
  }

  writeState(state: RemoteState): void {
    writeCacheJson(this.statePath, state);
  }

  /** When this clone first saw the lease at commit `oid` (lease-seen.json), by its own clock. */
  leaseSeen(oid: string): number | null {
    try {
      const seen = leaseSeenSchema.safeParse(JSON.parse(readFileSync(join(this.root, 'lease-seen.json'), 'utf8')));
      return seen.success && seen.data.commit === oid && seen.data.at <= Date.now() ? seen.data.at : null;
    } catch {
      return null;
    }
  }

  noteLeaseSeen(oid: string, at: number): void {
    const seen: LeaseSeen = { commit: oid, at };
    writeCacheJson(join(this.root, 'lease-seen.json'), seen);
  }

  /** This clone's name as a drainer (its metrics ref, refs/land/metrics/<id>): random, made on first use. */
  drainerId(): string {
    const path = join(this.root, 'drainer-id');
    try {
      const id = readFileSync(path, 'utf8').trim();
      if (drainerIdSchema.safeParse(id).success) return id;
    } catch {
      // made below
    }
    const id = randomBytes(8).toString('hex');
    writeCacheFile(path, `${id}\n`);
    return id;
  }

  /** This clone's drainer name when it has one (null: it never published). */
  knownDrainerId(): string | null {
    try {
      const id = readFileSync(join(this.root, 'drainer-id'), 'utf8').trim();
      return drainerIdSchema.safeParse(id).success ? id : null;
    } catch {
      return null;
    }
  }

  hasInflight(): boolean {
    return existsSync(this.inflightPath);
  }

  saveInflight(inflight: Inflight): void {
    writeCacheJson(this.inflightPath, inflight);
  }

  /** The saved transaction; null when the file is unreadable (half a file is not possible: atomic write). */
  readInflight(): Inflight | null {
    try {
      const parsed = inflightSchema.safeParse(JSON.parse(readFileSync(this.inflightPath, 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  clearInflight(): void {
    rmSync(this.inflightPath, { force: true });
  }
}
