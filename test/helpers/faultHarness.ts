// Shared pieces of the fault tests: a repository whose gate fails on CULPRIT-* files, branches made
// in one `git fast-import`, a seeded random source, and afterFault: the one place every fault test
// asks "did anything get lost, landed twice, landed unexpectedly or stuck?".
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FIXTURES, land } from './cli.js';
import { makeRepo, type TestRepo } from './repo.js';
import { FAIL_AT_ONCE } from './state.js';
import { checkInvariants, isClean, summarize, type InvariantReport, type SubmittedBranch } from './invariants.js';

export const FAULT_GATE = join(FIXTURES, 'gates', 'fault-gate.sh');

export interface FaultRepo {
  repo: TestRepo;
  target: string;
  /** The target's tip before any submission. */
  base: string;
  branches: SubmittedBranch[];
}

/**
 * A FAIL is final at once (FAIL_AT_ONCE: a crash or a race is these tests' subject, and a culprit's
 * confirming re-runs would only add runs: the soak took 78 s instead of 46) unless `policy` says
 * otherwise. Re-runs across a crash are tested in test/landing/trains/flaky.test.ts (the run cap).
 */
export function makeFaultRepo(
  opts: { gateSleep?: number; batchMax?: number; gate?: Record<string, unknown>; policy?: Record<string, unknown> } = {},
): FaultRepo {
  const repo = makeRepo({
    policy: {
      target: 'main',
      gates: [
        {
          name: 'test',
          run: ['sh', FAULT_GATE],
          timeoutSeconds: 60,
          env: { FAULT_GATE_SLEEP: String(opts.gateSleep ?? 0.07) },
          ...opts.gate,
        },
      ],
      batch: { max: opts.batchMax ?? 8 },
      ...FAIL_AT_ONCE,
      ...opts.policy,
    },
  });
  return { repo, target: 'main', base: repo.tip('main'), branches: [] };
}

/** Mulberry32: a small seeded generator, so a failing soak can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct numbers from 1..n, drawn with `random`. */
export function pick(random: () => number, n: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(1 + Math.floor(random() * n));
  return [...chosen].sort((a, b) => a - b);
}

/**
 * Creates branches `<prefix><i>` for i in `numbers`, each one commit on the target's tip adding its
 * own file (a culprit adds CULPRIT-<i>), all in one `git fast-import`; registers them on `fault`
 * (a "culprit" is any branch that must not land).
 */
export function createBranches(
  fault: FaultRepo,
  numbers: readonly number[],
  culprits: readonly number[] = [],
  prefix = 'b',
  fileOf: (i: number, culprit: boolean) => string = (i, culprit) => (culprit ? `CULPRIT-${i}` : `file-${prefix}${i}.txt`),
): SubmittedBranch[] {
  const from = fault.repo.tip(fault.target);
  const chunks: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (const i of numbers) {
    const culprit = culprits.includes(i);
    const file = fileOf(i, culprit);
    chunks.push(
      `commit refs/heads/${prefix}${i}\n`,
      `committer Land Test <test@land.invalid> ${1_700_000_000 + i} +0000\n`,
      data(`change on ${prefix}${i}`),
      `from ${from}\n`,
      `M 100644 inline ${file}\n`,
      data(`${prefix}${i}`),
    );
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: fault.repo.dir, input: chunks.join(''), stdio: ['pipe', 'ignore', 'pipe'] });
  const made = numbers.map((i) => ({
    name: `${prefix}${i}`,
    tip: fault.repo.tip(`refs/heads/${prefix}${i}`),
    kind: culprits.includes(i) ? ('culprit' as const) : ('good' as const),
  }));
  fault.branches.push(...made);
  return made;
}

/** Submits branches with the real CLI in one call; returns their job ids in order. */
export async function submitAll(fault: FaultRepo, names: readonly string[]): Promise<string[]> {
  const result = await land(fault.repo.dir, ['submit', ...names, '--json']);
  if (result.code !== 0) throw new Error(`land submit failed (${result.code}): ${result.stderr}`);
  return result.lines().map((line) => line.job.id as string);
}

/** Asserts the four invariants hold; on failure the message is the checker's summary. */
export function expectClean(report: InvariantReport, when: string): void {
  if (!isClean(report)) console.error(`invariants broken ${when}:\n${summarize(report)}`);
  expect(isClean(report), `invariants broken ${when}:\n${summarize(report)}`).toBe(true);
}

/**
 * Every fault test calls this after each fault (`crashed`: right after a kill, before any recovery)
 * and at the end (`settled`: every drainer finished). One place to add a check to all of them.
 */
export async function afterFault(fault: FaultRepo, phase: 'crashed' | 'settled', when: string = phase): Promise<InvariantReport> {
  const report = checkInvariants({ dir: fault.repo.dir, target: fault.target, base: fault.base, branches: fault.branches, phase });
  expectClean(report, when);
  // Checks every fault test makes go here, once. `land reconcile --check` runs once settled only:
  // right after a kill the dead drainer's in_progress jobs are expected to disagree.
  if (phase === 'settled') {
    const check = await land(fault.repo.dir, ['reconcile', '--check', '--json']);
    expect(check.code, `land reconcile --check ${when}: ${check.stdout}${check.stderr}`).toBe(0);
  }
  return report;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
