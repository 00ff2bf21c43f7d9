// The job records (jobs/<id>.json): one file a job, written atomically and fsynced (or not, under a
// drain's unsynced mark: lib/queue/unsyncedWrites.ts). Only lib/queue's
// transition functions write them, after journaling.
import { existsSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { LandError } from '../../errors.js';
import { TEMP_MARK, writeJsonAtomic } from '../atomic.js';
import { assertSafeId, type StatePaths } from '../paths.js';
import { jobRecordSchema, type JobRecord } from '../formats/index.js';
import { jobsFolderVersion } from '../watch.js';
import { parseShape, parseWith, readText } from './parse.js';

export interface CorruptRecord {
  file: string;
  problem: string;
}

/** One record read: the job, or what is wrong with its file. */
export type JobRead = { ok: true; job: JobRecord } | { ok: false; corrupt: CorruptRecord };

export interface JobListing {
  jobs: JobRecord[];
  corrupt: CorruptRecord[];
}

/** One job; null when there is no such record; a corrupt record is a `corrupt` error. */
export function readJob(paths: StatePaths, id: string): JobRecord | null {
  const path = paths.job(id);
  const text = readText(path);
  if (text === null) return null;
  const parsed = parseWith(jobRecordSchema, text);
  if (!parsed.ok) throw new LandError('corrupt', `job record ${basename(path)} is corrupt: ${parsed.problem}`);
  return parsed.value;
}

export function jobExists(paths: StatePaths, id: string): boolean {
  return existsSync(paths.job(id));
}

/** One job's record, or what is wrong with it (by file name, as listJobs reports it); null when there is none. */
export function readJobOrProblem(paths: StatePaths, id: string): JobRead | null {
  const name = `${assertSafeId(id)}.json`;
  const text = readText(paths.job(id));
  if (text === null) return null;
  const parsed = parseWith(jobRecordSchema, text);
  if (!parsed.ok) return { ok: false, corrupt: { file: name, problem: parsed.problem } };
  if (parsed.value.id !== id) return { ok: false, corrupt: { file: name, problem: `id ${parsed.value.id} does not match the file name` } };
  return { ok: true, job: parsed.value };
}

/**
 * Every job record; corrupt ones are returned by file name, never thrown. Reads every record ever
 * written: for `land status --all`, `land reconcile` and the rebuild of the index of active jobs;
 * everything else reads the index (lib/queue/activeSet.ts). `check: 'shape'`: only the shape
 * the counting readers need (lib/store/formats/jobShape.ts; `land stats` over 10,000 records), not the schema.
 */
export function listJobs(paths: StatePaths, opts: { check?: 'schema' | 'shape' } = {}): JobListing {
  let names: string[];
  try {
    names = readdirSync(paths.jobsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { jobs: [], corrupt: [] };
    throw error;
  }
  const jobs: JobRecord[] = [];
  const corrupt: CorruptRecord[] = [];
  const dir = paths.jobsDir; // a getter that joins: once, not per record
  for (const name of names.sort()) {
    if (!name.endsWith('.json') || name.includes(TEMP_MARK)) continue;
    const text = readText(`${dir}/${name}`);
    if (text === null) continue;
    const parsed = opts.check === 'shape' ? parseShape(text) : parseWith(jobRecordSchema, text);
    if (!parsed.ok) corrupt.push({ file: name, problem: parsed.problem });
    else if (`${parsed.value.id}.json` !== name) corrupt.push({ file: name, problem: `id ${parsed.value.id} does not match the file name` });
    else jobs.push(parsed.value);
  }
  return { jobs, corrupt };
}

/** Ids of job files (parsed or not), for id allocation. */
export function jobFileIds(paths: StatePaths): string[] {
  try {
    return readdirSync(paths.jobsDir)
      .filter((name) => name.endsWith('.json') && !name.includes(TEMP_MARK))
      .map((name) => name.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}

/** A token that changes whenever a job record is added, rewritten or removed. */
export function jobsVersion(paths: StatePaths): string {
  return jobsFolderVersion(paths.jobsDir);
}

/**
 * Writes a record. Only lib/queue's transition functions call this, after journaling. `durable`
 * false: not fsynced (a drain under the unsynced mark: lib/queue/unsyncedWrites.ts).
 */
export function writeJob(paths: StatePaths, job: JobRecord, durable = true): void {
  assertSafeId(job.id);
  writeJsonAtomic(paths.job(job.id), job, { durable });
}
