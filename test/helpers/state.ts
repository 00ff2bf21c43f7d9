// Reads the state folder of a test repository directly from disk, so tests assert on the files
// (evidence) and not only on what the CLI printed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobRecord, JournalEntry } from '../../lib/store/index.js';
import type { TestRepo } from './repo.js';

/** A policy that validates and gates nothing costly. */
export const BASIC_POLICY = { target: 'main', gates: [{ name: 'test', run: ['true'] }] };

/**
 * Policy keys that make a failed gate final at once (flaky.rule "retries", retries.flaky 0), as a
 * gate with a clean history is under the default evidence rule: for tests whose subject is not
 * flakes (a cached FAIL's story, a timeout, a red target...). The evidence rule itself is tested in
 * test/landing/trains/flaky.test.ts and test/landing/plan/flakeEvidence.unit.test.ts.
 */
export const FAIL_AT_ONCE = { flaky: { rule: 'retries' } };

export function stateDir(repo: TestRepo): string {
  return join(repo.git('rev-parse', '--path-format=absolute', '--git-common-dir'), 'land');
}

export function jobsDir(repo: TestRepo): string {
  return join(stateDir(repo), 'jobs');
}

/** Every file name in jobs/ (records, temp files, anything). */
export function jobDirEntries(repo: TestRepo): string[] {
  const dir = jobsDir(repo);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** The job record files (`<id>.json`, temp files excluded). */
export function jobFiles(repo: TestRepo): string[] {
  return jobDirEntries(repo).filter((name) => name.endsWith('.json') && !name.includes('.tmp-'));
}

/** A job record file as written (typed, not validated: the tests assert on its fields). */
export function readJobFile(repo: TestRepo, id: string): JobRecord {
  return JSON.parse(readFileSync(join(jobsDir(repo), `${id}.json`), 'utf8'));
}

/** The journal's lines, parsed (the file must have no torn line in these tests). */
export function journal(repo: TestRepo): JournalEntry[] {
  const path = join(stateDir(repo), 'journal.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Lines of stderr that carry an error message (`land: ...`), hints and details excluded. */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('land: '));
}

/** Every path under `dir`, relative, recursively. */
export function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    out.push(rel);
    if (entry.isDirectory()) out.push(...walk(join(dir, entry.name), rel));
  }
  return out;
}
