// The pure tier (`npm run test:unit`, every *.unit.test.ts) stays pure: no file of it starts the
// built CLI, git, or any other process, so the tier keeps running in seconds and in threads
// (docs/development.md#test-tiers). A test that needs one of these is an end-to-end test: name it
// *.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SELF = fileURLToPath(import.meta.url); // names the patterns, so it is left out
const TEST_DIR = join(dirname(SELF), '..');

/** What a pure test may not import or call: the CLI and repository helpers, and process starts. */
const FORBIDDEN: [string, RegExp][] = [
  [
    'the CLI helpers',
    /helpers\/(cli|queue|drainHarness|story|faultHarness|reconcile|remote|remoteTeam|leaseKit|teamKit|pty|procs|sshd|fakeSsh|batchWrapper)\.js'/,
  ],
  ['a throwaway repository', /\b(makeRepo|makeQueueRepo|fastCommits)\(/],
  ['child processes', /node:child_process|\bspawn\(|\bexecFile(Sync)?\(/],
];

function unitFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return unitFiles(path);
    return entry.name.endsWith('.unit.test.ts') ? [path] : [];
  });
}

describe('the pure test tier', () => {
  it('has files, and none of them starts the CLI, git or another process', () => {
    const files = unitFiles(TEST_DIR).filter((path) => path !== SELF);
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((path) => {
      const text = readFileSync(path, 'utf8');
      return FORBIDDEN.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${relative(TEST_DIR, path)}: ${what}`);
    });
    expect(found).toEqual([]);
  });
});
