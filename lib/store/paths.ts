// Where each state file lives under `<git common dir>/land/`. Ids are checked before they become
// part of a path, so `../../etc/passwd` can never name a file.
import { join } from 'node:path';
import { LandError } from '../errors.js';
import { JOB_ID_PATTERN } from './formats/index.js';

export function assertSafeId(id: string, what = 'job id'): string {
  if (!JOB_ID_PATTERN.test(id) || id.length > 100) {
    throw new LandError('usage', `invalid ${what} ${JSON.stringify(id)}: expected lowercase letters, digits and dashes`);
  }
  return id;
}

const OBJECT_ID = /^[0-9a-f]{40,64}$/;
function assertObjectId(id: string): string {
  if (!OBJECT_ID.test(id)) throw new LandError('usage', `invalid object id ${JSON.stringify(id)}`);
  return id;
}
const HASH = /^[0-9a-f]{8,128}$/;

export class StatePaths {
  constructor(readonly root: string) {}

  get jobsDir(): string {
    return join(this.root, 'jobs');
  }
  job(id: string): string {
    return join(this.jobsDir, `${assertSafeId(id)}.json`);
  }
  /** The index of active jobs (lib/store/activeIndex.ts). */
  get index(): string {
    return join(this.root, 'index.json');
  }
  get branchesDir(): string {
    return join(this.root, 'branches');
  }
  /** The ids of every job of one branch, by a hash of its name. */
  branchJobs(key: string): string {
    if (!/^[0-9a-f]{40}$/.test(key)) throw new LandError('usage', `invalid branch key ${JSON.stringify(key)}`);
    return join(this.branchesDir, `${key}.json`);
  }
  get journal(): string {
    return join(this.root, 'journal.jsonl');
  }
  get window(): string {
    return join(this.root, 'window.json');
  }
  /** Exists while a drain writes records without fsync (lib/store/local/unsynced.ts). */
  get unsynced(): string {
    return join(this.root, 'unsynced.json');
  }
  get verdictsDir(): string {
    return join(this.root, 'verdicts');
  }
  verdict(tree: string, gatesHash: string): string {
    if (!HASH.test(gatesHash)) throw new LandError('usage', `invalid gates hash ${JSON.stringify(gatesHash)}`);
    return join(this.verdictsDir, `${assertObjectId(tree)}-${gatesHash}.json`);
  }
  get proofsDir(): string {
    return join(this.root, 'proofs');
  }
  proof(tree: string): string {
    return join(this.proofsDir, `${assertObjectId(tree)}.json`);
  }
  /** The latest proof of a tip, whatever target it was merged onto (names the proof's tree). */
  proofOfTip(tip: string): string {
    return join(this.proofsDir, 'tips', `${assertObjectId(tip)}.json`);
  }
  get logsDir(): string {
    return join(this.root, 'logs');
  }
  log(id: string): string {
    return join(this.logsDir, `${assertSafeId(id, 'log id')}.log`);
  }
  get metrics(): string {
    return join(this.root, 'metrics.jsonl');
  }
  /** What `land gc` kept of the jobs it pruned here (formats/prunedJob.ts). */
  get pruned(): string {
    return join(this.root, 'pruned.jsonl');
  }
  get trainsDir(): string {
    return join(this.root, 'trains');
  }
  train(id: string): string {
    return join(this.trainsDir, assertSafeId(id, 'train id'));
  }
  get locksDir(): string {
    return join(this.root, 'locks');
  }
  get queueLock(): string {
    return join(this.locksDir, 'queue');
  }
  get drainLock(): string {
    return join(this.locksDir, 'drain');
  }
  get drainHolder(): string {
    return join(this.locksDir, 'drain-holder.json');
  }
  get token(): string {
    return join(this.root, 'token');
  }
  /** Where land's protecting hook was installed, and what it holds (formats/protectHook.ts). */
  get protectHook(): string {
    return join(this.root, 'hooks.json');
  }
  /** Which executors the drain last found down (formats/executorHealth.ts). */
  get executorHealth(): string {
    return join(this.root, 'executors.json');
  }
  get publishState(): string {
    return join(this.root, 'publish.json');
  }
  get gatePassesDir(): string {
    return join(this.root, 'gate-passes');
  }
  /** Per-gate PASS records of a commit (selective gates). */
  gatePasses(commit: string): string {
    return join(this.gatePassesDir, `${assertObjectId(commit)}.json`);
  }
}
