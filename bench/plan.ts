// What one `npm run bench` measures: its command-line flags and the counts of each part, full or
// `--quick` (smaller counts, the same report shape).
import type { ClearingOptions } from './clearing.js';
import type { FlakyOptions } from './flaky.js';
import { BenchError } from './git.js';
import type { CulpritPattern, ShortQueues } from './sweep.js';

export interface BenchArgs {
  json: boolean;
  keep: boolean;
  quick: boolean;
  /** Also the old culprit rows (c): N = 8 and 16, one or two culprits at fixed positions. */
  culprits: boolean;
  /** Write the report as Markdown to this file (BENCHMARKS.md). */
  markdown: string | null;
  /** Run only this part (PARTS) and print its figures (and its goals) alone. */
  only: Part | null;
}

/** The parts of a run, in the order they run; `--only <part>` runs one. */
export const PARTS = [
  'startup',
  'overhead',
  'pSweep',
  'scale',
  'stats',
  'parallel',
  'executors',
  'remote',
  'sandbox',
  'flaky',
  'clearing',
  'culprits',
] as const;
export type Part = (typeof PARTS)[number];

export interface BenchSettings {
  quick: boolean;
  startupRuns: number;
  /** Branches of the overhead figure (b). */
  trainBranches: number;
  /** serialSeeds: the serial policy drains only the first queues (its gate runs per job are 1 plus main's own check by construction). */
  sweep: {
    n: number;
    batchMax: number;
    rates: number[];
    seeds: number;
    serialSeeds: number;
    gateMs: number;
    policies: ('serial' | 'default')[];
    /** The short-queue rows (issue 23): default policy, culprits spread, at the head, in a burst. */
    short: ShortQueues;
  };
  scale: { jobs: number; queued: number; runs: number };
  /** `land stats --json` over this many finished jobs (median of `runs`). */
  stats: { jobs: number; runs: number };
  parallel: { n: number; p: number; seed: number; gateSeconds: number };
  /** The executors row: the parallel row's queue on 1 local slot and on `slots` slots of two sshd hosts. */
  executors: { n: number; p: number; seed: number; gateSeconds: number; slots: number };
  /** The remote-queue row: one-job trains drained from a clone's own queue and from a file:// remote. */
  remote: { n: number };
  /** The flaky-gate rows (issue 24): the replay with a flaky gate, per policy. */
  flaky: FlakyOptions;
  /** Optimistic clearing on and off (bench/clearing.ts): the pipeline's replay with a flaky gate. */
  clearing: ClearingOptions;
  culprits: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick] [--json] [--markdown FILE] [--culprits] [--only PART] [--keep]
  --quick          smaller counts (a smoke run of a few minutes), the same report shape
  --json           print one JSON object on stdout instead of the tables (run it as
                   npm run -s bench -- --json: without -s, npm prints its banner on stdout first)
  --markdown FILE  also write the report as Markdown to FILE (BENCHMARKS.md)
  --culprits       also the old culprit rows (N = 8 and 16, culprits first, middle, last, two)
  --only PART      run only PART (${PARTS.join(', ')}) and print its figures and goals alone
  --keep           keep the temporary repositories
  --help           print this
`;

export function parseArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { json: false, keep: false, quick: false, culprits: false, markdown: null, only: null };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--json') args.json = true;
    else if (arg === '--keep') args.keep = true;
    else if (arg === '--quick') args.quick = true;
    else if (arg === '--culprits') args.culprits = true;
    else if (arg === '--markdown' || arg.startsWith('--markdown=')) {
      const file = arg === '--markdown' ? argv[++i] : arg.slice('--markdown='.length);
      if (!file || file.startsWith('--')) throw new BenchError(`--markdown needs a file name\n${USAGE}`);
      args.markdown = file;
    } else if (arg === '--only' || arg.startsWith('--only=')) {
      const part = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!part || !(PARTS as readonly string[]).includes(part)) throw new BenchError(`--only needs a part: ${PARTS.join(', ')}\n${USAGE}`);
      args.only = part as Part;
    } else throw new BenchError(`unknown argument ${arg}\n${USAGE}`);
  }
  if (args.only && args.markdown) throw new BenchError(`--markdown writes the whole report: not with --only\n${USAGE}`);
  return args;
}

export function settingsFor(args: Pick<BenchArgs, 'quick' | 'culprits'>): BenchSettings {
  const rates = [0, 0.02, 0.1, 0.3];
  const policies: ('serial' | 'default')[] = ['serial', 'default'];
  const patterns: CulpritPattern[] = ['uniform', 'head', 'burst'];
  if (args.quick) {
    return {
      quick: true,
      startupRuns: 3,
      trainBranches: 16,
      sweep: { n: 16, batchMax: 8, rates, seeds: 1, serialSeeds: 1, gateMs: 50, policies, short: { ns: [16], ks: [2], patterns, seeds: 1 } },
      scale: { jobs: 1000, queued: 100, runs: 3 },
      stats: { jobs: 1000, runs: 3 },
      parallel: { n: 16, p: 0.1, seed: 1, gateSeconds: 0.5 },
      executors: { n: 16, p: 0.1, seed: 1, gateSeconds: 0.5, slots: 4 },
      remote: { n: 6 },
      flaky: { n: 16, batchMax: 8, rates: [0, 0.1], flakeRates: [0.05, 0.15], seeds: 2, many: 200 },
      clearing: { n: 16, batchMax: 8, parallel: 2, rates: [0, 0.1], flakeRates: [0.05, 0.15], queues: 50 },
      culprits: args.culprits,
    };
  }
  return {
    quick: false,
    startupRuns: 5,
    trainBranches: 32,
    sweep: { n: 64, batchMax: 8, rates, seeds: 5, serialSeeds: 2, gateMs: 50, policies, short: { ns: [16, 24], ks: [1, 2, 3], patterns, seeds: 3 } },
    scale: { jobs: 10_000, queued: 100, runs: 5 },
    stats: { jobs: 10_000, runs: 5 },
    parallel: { n: 32, p: 0.1, seed: 1, gateSeconds: 1 },
    executors: { n: 32, p: 0.1, seed: 1, gateSeconds: 1, slots: 4 },
    remote: { n: 16 },
    flaky: { n: 64, batchMax: 8, rates: [0, 0.1], flakeRates: [0.05, 0.15], seeds: 5, many: 1000 },
    clearing: { n: 64, batchMax: 8, parallel: 2, rates: [0, 0.1], flakeRates: [0.05, 0.15], queues: 500 },
    culprits: args.culprits,
  };
}
