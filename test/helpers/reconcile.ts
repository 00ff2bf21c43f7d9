// Plants what a crash or a tamper leaves in the state folder, by writing its files directly.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { land } from './cli.js';
import { makeRepo, type TestRepo } from './repo.js';
import { runDrain, submitInProcess } from './drainHarness.js';
import { jobsDir, readJobFile, stateDir } from './state.js';
import type { JobRecord } from '../../lib/store/index.js';

/** A repository whose gate passes at once; `batchMax` 1 makes a train (and a metrics row) per job. */
export function makeReconcileRepo(batchMax = 8): TestRepo {
  return makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['true'] }], batch: { max: batchMax } } });
}

/** Branches `names`, submitted in this process (the submission is not what the reconcile tests check). */
export async function submit(repo: TestRepo, names: readonly string[]): Promise<string[]> {
  for (const name of names) repo.branch(name, { [`${name}.txt`]: `${name}\n` });
  return submitInProcess(repo.dir, names);
}

/** A drain to the end, in this process (test/helpers/drainHarness.ts); one that stops fails the test. */
export async function drain(repo: TestRepo): Promise<void> {
  const run = await runDrain(repo.dir);
  if (run.summary.stopped) throw new Error(`the drain stopped: ${run.summary.stopped.message}`);
}

/** Rewrites a record as a tamper (or a lost journal line) would: no journal line. */
export function editJob(repo: TestRepo, id: string, patch: Partial<JobRecord> | Record<string, unknown>): void {
  const job = readJobFile(repo, id);
  writeFileSync(join(jobsDir(repo), `${id}.json`), JSON.stringify({ ...job, ...patch }, null, 2));
}

/** Appends a journal line whose record change never happened (a process killed between the two). */
export function appendJournal(repo: TestRepo, entry: Record<string, unknown>): void {
  appendFileSync(join(stateDir(repo), 'journal.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), detail: {}, ...entry })}\n`);
}

export function metricsPath(repo: TestRepo): string {
  return join(stateDir(repo), 'metrics.jsonl');
}

export function metricsRows(repo: TestRepo): Record<string, unknown>[] {
  const path = metricsPath(repo);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

export function writeMetricsRows(repo: TestRepo, rows: readonly Record<string, unknown>[]): void {
  writeFileSync(metricsPath(repo), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

export interface ReconcileJson {
  scanned: number;
  repaired: number;
  disagreements: number;
  nextAfter: string | null;
  found: { job: string; check: string; message: string; repaired: boolean; done: string }[];
  decided: string[];
  uncertain: { job: string; reason: string | null; message: string | null }[];
}

export async function reconcile(repo: TestRepo, args: string[] = []): Promise<{ code: number; out: ReconcileJson; stderr: string }> {
  const result = await land(repo.dir, ['reconcile', '--json', ...args]);
  if (result.stdout.trim() === '') throw new Error(`land reconcile ${args.join(' ')} printed nothing (exit ${result.code}): ${result.stderr}`);
  return { code: result.code, out: result.json<ReconcileJson>(), stderr: result.stderr };
}

export function kinds(out: ReconcileJson): string[] {
  return out.found.map((f) => `${f.job} ${f.check}`).sort();
}
