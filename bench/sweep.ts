// STUB: replaced by helper planner. The culprit-rate sweep's interface (bench/sweep.ts), with
// placeholder rows so the harness and its report can be run and tested before the real module lands.
export interface SweepRow {
  n: number;
  p: number;
  k: number;
  policy: 'serial' | 'default';
  seeds: number;
  gateRunsPerJob: number;
  gateRunsPerLanded: number;
  boundPerJob: number;
  wallSeconds: number;
  landed: number;
  failed: number;
  wrongVerdicts: number;
}

function log2Choose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log2((n - k + i) / i);
  return sum;
}

// STUB: replaced by helper planner
export function measureSweep(
  _root: string,
  opts: {
    n: number;
    batchMax: number;
    rates: readonly number[];
    seeds: number;
    gateMs: number;
    policies: readonly ('serial' | 'default')[];
    progress: (line: string) => void;
  },
): SweepRow[] {
  opts.progress('STUB: bench/sweep.ts is a placeholder (helper planner replaces it): the pSweep rows are not measured');
  return opts.policies.flatMap((policy) =>
    opts.rates.map((p) => {
      const k = Math.round(p * opts.n);
      const bound = log2Choose(opts.n, k) / opts.n;
      const perJob = policy === 'serial' ? 1 : Math.max(1 / opts.batchMax, bound * 1.25 + k / opts.n);
      const landed = opts.n - k;
      return {
        n: opts.n,
        p,
        k,
        policy,
        seeds: opts.seeds,
        gateRunsPerJob: perJob,
        gateRunsPerLanded: landed ? (perJob * opts.n) / landed : 0,
        boundPerJob: bound,
        wallSeconds: (perJob * opts.n * (opts.gateMs + 100)) / 1000,
        landed,
        failed: k,
        wrongVerdicts: 0,
      };
    }),
  );
}
