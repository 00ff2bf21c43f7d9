// The report for a person: the same sections as text tables (the terminal) or as Markdown
// (`--markdown BENCHMARKS.md`). Pure: a report in, a string out.
import type { SleepDrain } from './parallel.js';
import { metText, type Report, sweepGoal } from './report.js';

export interface Section {
  title: string;
  headers: string[];
  rows: string[][];
  /** Columns aligned right (numbers). */
  right: number[];
  notes: string[];
}

const ms = (value: number) => `${Math.round(value)} ms`;
const sec = (value: number) => `${(value / 1000).toFixed(2)} s`;
const secs = (value: number | null) => (value === null ? '-' : `${value.toFixed(2)} s`);
const mib = (kib: number | null) => (kib === null ? '-' : `${(kib / 1024).toFixed(1)} MiB`);
const fix = (value: number, digits = 2) => value.toFixed(digits);

function startupSection(r: Report): Section {
  const s = r.startup;
  return {
    title: `a. startup (median of ${s.runs} after one warm-up)`,
    headers: ['command', 'wall', 'goal'],
    rows: [
      ["node -e 0 (Node's own start, for reference)", ms(s.nodeBaselineMs), '-'],
      ['land --version', ms(s.versionMs), `<= 1.5 x node (${ms(1.5 * s.nodeBaselineMs)})`],
      [`land status --json (${s.statusJobs} queued jobs)`, ms(s.statusMs), `<= 2 x node (${ms(2 * s.nodeBaselineMs)})`],
    ],
    right: [1],
    notes: [],
  };
}

function overheadSection(r: Report): Section {
  const { train: t, overhead: o } = r;
  const drain = (label: string, run: typeof t.window32) => [
    label,
    sec(run.ms),
    String(run.summary.trains),
    String(run.summary.gateRuns),
    String(run.summary.landed.length),
    String(run.mergesOnMain),
    mib(run.maxRssKiB),
  ];
  return {
    title: `b. overhead: ${t.branches} one-line branches, gate \`true\` (submitting not timed; HEAD detached, so no checkout follows main)`,
    headers: ['run', 'wall', 'trains', 'gate runs', 'landed', 'merges on main', 'peak RSS'],
    rows: [
      drain(`land run, window ${t.branches}`, t.window32),
      drain('land run, window 1 (batch.max 1)', t.window1),
      [`git loop (${t.loop.gitProcesses} git processes; median of ${t.loop.runs.length})`, sec(t.loop.ms), '-', '-', '-', String(t.loop.mergesOnMain), '-'],
    ],
    right: [1, 2, 3, 4, 5, 6],
    notes: [
      `landMs / rawGitMs (window ${t.branches} / git loop): ${fix(o.ratio, 1)}x; window 1 / git loop: ${fix(t.ratioWindow1, 1)}x`,
      `per-train overhead = (window 1 - window ${t.branches}) / (${o.trainsWindow1} trains - 1) = ${ms(o.perTrainOverheadMs)} (goal <= 30 ms)`,
      `git loop runs: ${t.loop.runs.map(ms).join(', ')}`,
    ],
  };
}

function sweepSection(r: Report): Section {
  const patterns = ['uniform', 'head', 'burst'];
  // The rate rows first (N of the settings, culprits spread, p one of the rates), then the short queues.
  const rank = (row: (typeof r.pSweep)[number]) =>
    row.n === r.settings.sweep.n && row.pattern === 'uniform' && r.settings.sweep.rates.includes(row.p) ? 0 : 1;
  const rows = [...r.pSweep].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      a.n - b.n ||
      a.p - b.p ||
      patterns.indexOf(a.pattern) - patterns.indexOf(b.pattern) ||
      (a.policy === b.policy ? 0 : a.policy === 'serial' ? -1 : 1),
  );
  const sw = r.settings.sweep;
  const short = sw.short
    ? `; then N = ${sw.short.ns.join(' and ')} with k = ${sw.short.ks.join(', ')} culprits spread, at the head or in a burst (default policy, ${sw.short.seeds} queue(s), the head one once)`
    : '';
  return {
    title: `pSweep: culprit-rate sweep, N = ${sw.n}, batch.max ${sw.batchMax}, gate sleeps ${sw.gateMs} ms, ${sw.seeds} seeded queue(s) per p (serial on the first ${sw.serialSeeds ?? sw.seeds})${short}; the two policies' drains of a queue run side by side`,
    headers: [
      'n',
      'p',
      'k',
      'pattern',
      'policy',
      'seeds',
      'gate runs/job',
      '/landed',
      'bound/job',
      'replay',
      'replay x2000',
      'landed',
      'failed',
      'wrong',
      'wall',
      'goal',
      'met',
    ],
    rows: rows.map((row) => {
      const g = sweepGoal(r.pSweep, row);
      return [
        String(row.n),
        String(row.p),
        String(row.k),
        row.pattern,
        row.policy,
        String(row.seeds),
        fix(row.gateRunsPerJob, 3),
        fix(row.gateRunsPerLanded, 3),
        fix(row.boundPerJob, 3),
        fix(row.simulatedPerJob, 3),
        fix(row.simulatedManyPerJob, 3),
        String(row.landed),
        String(row.failed),
        String(row.wrongVerdicts),
        `${fix(row.wallSeconds)} s`,
        g ? g.goal : '(for comparison)',
        g ? metText(g.met) : '-',
      ];
    }),
    right: [0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    notes: [
      'pattern: uniform, k culprits at seeded positions; head, the first k jobs; burst, k consecutive jobs from a seeded start',
      'gate runs/job and /landed: averaged over the seeds; bound/job = log2(C(N, k)) / N; wall: seconds per queue (mean over the seeds)',
      'each real drain is a new repository: its gate has no flake history, so the FAIL of each culprit is confirmed by re-runs of its tree (docs/drain.md#flaky-gates-the-evidence-rule; about two more runs per culprit until the gate has about a hundred clean runs)',
      'replay: gate runs/job of the planner replayed without git (lib/landing/plan/simulate.ts) on the same queues, each a new repository as the real drains are (equal to gate runs/job when the model holds); replay x2000: the same planner over 2000 seeded queues with a gate known deterministic (a clean history: no confirming re-run), the expected figure of a repository in use without the noise of a few queues',
      'landed, failed and wrong (wrong verdicts) are summed over the seeds',
    ],
  };
}

function scaleSection(r: Report): Section {
  const s = r.scale;
  return {
    title: `scale: ${s.jobs} jobs in the state folder (${s.finished} finished, ${s.queued} queued; built in ${fix(s.buildSeconds, 1)} s, not through the CLI)`,
    headers: ['figure', `${s.jobs} jobs`, 'small queue', 'goal'],
    rows: [
      ['land status --json (median)', ms(s.statusMs), '-', '< 300 ms'],
      ['one more land submit (median)', ms(s.submitMs), ms(s.submitMsSmall), 'the same'],
      ['per-train overhead of a drain', ms(s.perTrainOverheadMs), ms(s.perTrainOverheadMsSmall), 'does not grow'],
    ],
    right: [1, 2],
    notes: ['"the same" / "does not grow": within 20% or 10 ms of the small queue, whichever is larger'],
  };
}

function statsSection(r: Report): Section {
  const s = r.stats;
  return {
    title: `stats: land stats --json over ${s.jobs} finished jobs and ${s.trains} metrics rows (built in ${fix(s.buildSeconds, 1)} s, not through the CLI)`,
    headers: ['figure', 'wall', 'goal'],
    rows: [[`land stats --json (median of ${s.runs} after one warm-up)`, ms(s.statsMs), '< 1000 ms']],
    right: [1],
    notes: [`CPU time (user + system, GNU time) of the same command: ${s.statsCpuMs === null ? 'not measured (no GNU time)' : ms(s.statsCpuMs)}`],
  };
}

function parallelSection(r: Report): Section {
  const p = r.parallel;
  const notes = [
    `culprits at ${p.culprits.join(' ') || 'none'} (seed ${p.seed}); ratio wall(2) / wall(1) = ${p.ratio === null ? '-' : fix(p.ratio)} (goal <= 0.65)`,
    'gate runs: gate processes started (abandoned speculative ones included); finished: those that ran to their verdict',
  ];
  if (p.error) notes.push(`not measured: ${p.error}`);
  return {
    title: `parallel: N = ${p.n}, p = ${p.p} (k = ${p.k}), gates sleep ${p.gateSeconds} s, default policy`,
    headers: ['batch.parallel', 'wall', 'gate runs', 'finished', 'trains', 'landed', 'failed', 'wrong'],
    rows: [1, 2].map((parallel) => {
      const run = p.runs.find((x) => x.parallel === parallel);
      if (!run) return [String(parallel), 'not measured', '-', '-', '-', '-', '-', '-'];
      return [String(parallel), ...drainCells(run)];
    }),
    right: [0, 1, 2, 3, 4, 5, 6, 7],
    notes,
  };
}

/** The cells of one drain of the sleeping-gate queue (bench/parallel.ts drainCopy): wall, gate runs, finished, trains, landed, failed, wrong. */
function drainCells(run: SleepDrain): string[] {
  return [secs(run.wallSeconds), ...[run.gateRuns, run.gateRunsFinished, run.trains, run.landed, run.failed, run.wrongVerdicts].map(String)];
}

function executorsSection(r: Report): Section {
  const e = r.executors;
  const notes = [
    `culprits at ${e.culprits.join(' ') || 'none'} (seed ${e.seed}); ratio wall(ssh ${e.slots}) / wall(local 1) = ${e.ratio === null ? '-' : fix(e.ratio)} (goal <= 0.45)`,
    `for comparison, the same ${e.slots} slots on the drainer: wall(local ${e.slots}) / wall(local 1) = ${e.wallSecondsLocalK && e.wallSecondsLocal1 ? fix(e.wallSecondsLocalK / e.wallSecondsLocal1) : '-'}`,
  ];
  if (e.skipped) notes.push(`not measured: ${e.skipped}`);
  if (e.error) notes.push(`not measured: ${e.error}`);
  return {
    title: `executors: N = ${e.n}, p = ${e.p} (k = ${e.k}), gates sleep ${e.gateSeconds} s; 1 local gate slot vs ${e.slots} slots on ${e.hosts} sshd hosts`,
    headers: ['gate slots', 'wall', 'gate runs', 'finished', 'trains', 'landed', 'failed', 'wrong'],
    rows: e.runs.map((run) => [run.slots, ...drainCells(run)]),
    right: [1, 2, 3, 4, 5, 6, 7],
    notes,
  };
}

function sandboxSection(r: Report): Section {
  const s = r.sandbox;
  return {
    title: `sandbox: the cost of the gate sandbox per gate (${s.runs} runs of gate \`true\` each, medians; goal at most 20 ms)`,
    headers: ['gate run', 'wall'],
    rows: [
      ['unsandboxed', ms(s.plainMs)],
      [`sandboxed (${s.mechanism ?? 'no bubblewrap'})`, s.sandboxedMs === null ? '-' : ms(s.sandboxedMs)],
    ],
    right: [1],
    notes: [s.perGateMs === null ? `no sandbox here: ${s.note}` : `added per gate: ${ms(s.perGateMs)}`],
  };
}

function flakySection(r: Report): Section {
  const first = r.flaky[0];
  const queues = first ? `${first.seeds} seeded queues of ${first.n} per row (the sweep's), expected figures over ${first.expected.queues}` : 'no rows';
  return {
    title: `flaky: a gate that also fails a good tree with probability f per fresh run; planner replay, ${queues}`,
    headers: ['p', 'f', 'policy', 'good ejected', 'culprits landed', 'runs/job', 'runs/job f=0', 'expected ejected/320', 'expected runs/job', 'expected f=0'],
    rows: r.flaky.map((row) => [
      String(row.p),
      String(row.f),
      row.policy,
      String(row.goodEjected),
      String(row.culpritsLanded),
      fix(row.gateRunsPerJob, 3),
      fix(row.gateRunsPerJobNoFlakes, 3),
      fix(row.expected.goodEjectedPer320, 2),
      fix(row.expected.gateRunsPerJob, 3),
      fix(row.expected.gateRunsPerJobNoFlakes, 3),
    ]),
    right: [0, 1, 3, 4, 5, 6, 7, 8, 9],
    notes: [
      'policy: default, a policy that says nothing about flakes; flaky0 and flaky2, retries.flaky 0 and 2 (a lone failed job is gated again up to that many times)',
      'runs/job f=0: the same policy on the same queues with a deterministic gate',
    ],
  };
}

function clearingSection(r: Report): Section {
  const first = r.clearing[0];
  const what = first ? `batch.parallel ${first.parallel}, batch.max ${first.batchMax}, ${first.queues} seeded queues of ${first.n} per row` : 'no rows';
  return {
    title: `clearing: optimistic clearing (flaky.clearing) off and on, a gate that fails a good tree with probability f; the pipeline's replay (land tune's), ${what}`,
    headers: ['shape', 'p', 'f', 'clearing', 'runs/job', 'ejected/320', 'culprits landed', 'cleared/queue', 'p50 to land (gate times)'],
    rows: r.clearing.map((row) => [
      row.shape,
      String(row.p),
      String(row.f),
      row.clearing ? 'on' : 'off',
      fix(row.gateRunsPerJob, 3),
      fix(row.goodEjectedPer320, 2),
      String(row.culpritsLanded),
      fix(row.clearedPerQueue, 2),
      fix(row.p50GateTimes, 2),
    ]),
    right: [1, 2, 4, 5, 6, 7, 8],
    notes: [
      'shape: backlog, every job submitted at once; trickle, one job every quarter of a gate time',
      'the default flaky rule, each queue from no flake history (a new repository)',
    ],
  };
}

function remoteSection(r: Report): Section {
  const q = r.remote;
  return {
    title: `remote: N = ${q.branches} one-line branches, batch.max 1 (one train per job), gate \`true\`; a clone's own queue vs a queue kept in a file:// remote`,
    headers: ['queue', 'wall', 'trains', 'per train', 'fetches', 'pushes'],
    rows: [
      ["the clone's own", ms(q.localMs), String(q.trains), ms(q.localMs / Math.max(1, q.trains)), '0', '0'],
      ['file:// remote', ms(q.remoteMs), String(q.trains), ms(q.remoteMs / Math.max(1, q.trains)), String(q.fetches), String(q.pushes)],
    ],
    right: [1, 2, 3, 4, 5],
    notes: [
      `added per train: ${ms(q.addedPerTrainMs)}; per train, without the drain's first fetch and the lease's take and release: ${fix(q.fetchesPerTrain)} fetch(es), ${fix(q.pushesPerTrain)} push(es) (goal: at most one of each)`,
      `landed on the server: ${q.landedOnServer} merge(s)`,
    ],
  };
}

function culpritSection(r: Report): Section[] {
  if (!r.culprits) return [];
  return [
    {
      title: 'c. gate runs per culprit scenario (window = N = batch.max; gate fixtures/gates/counted.sh)',
      headers: ['N', 'culprits', 'gate runs', 'bound', 'landed', 'failed', 'runs/landed', 'trains', 'wall', 'failed branches'],
      rows: r.culprits.map((row) => [
        String(row.n),
        `${row.label}${row.culprits.length ? ` [${row.culprits.join(' ')}]` : ''}`,
        String(row.gateRuns),
        row.bound === null ? '-' : String(row.bound),
        String(row.landed),
        String(row.failed),
        row.landed ? fix(row.gateRuns / row.landed) : '-',
        String(row.trains),
        sec(row.ms),
        row.failedBranches.join(' ') || '-',
      ]),
      right: [0, 2, 3, 4, 5, 6, 7, 8],
      notes: ['bound = ceil(log2 N) + 2 (lib/landing/plan/trainPlan.ts bisectionBound), stated for one culprit'],
    },
  ];
}

function goalSection(r: Report): Section {
  return {
    title: 'goals',
    headers: ['figure', 'measured', 'goal', 'met'],
    rows: r.goals.map((g) => [g.figure, g.measured, g.goal, metText(g.met)]),
    right: [1],
    notes: [`${r.goals.filter((g) => g.met).length} of ${r.goals.length} met`],
  };
}

/** Every section of the report, in the order the terminal prints them (goals last). */
export function sectionsOf(r: Report): Section[] {
  const rss: Section = {
    title: `d. peak RSS: ${r.rss.tool ? `${r.rss.tool}; ${r.rss.note}` : r.rss.note}`,
    headers: ['run', 'peak RSS'],
    rows: r.rss.tool
      ? [
          [`land run, window ${r.train.branches}`, mib(r.train.window32.maxRssKiB)],
          ['land run, window 1', mib(r.train.window1.maxRssKiB)],
        ]
      : [],
    right: [1],
    notes: [],
  };
  return [
    startupSection(r),
    overheadSection(r),
    sweepSection(r),
    scaleSection(r),
    statsSection(r),
    parallelSection(r),
    executorsSection(r),
    remoteSection(r),
    sandboxSection(r),
    flakySection(r),
    clearingSection(r),
    ...culpritSection(r),
    rss,
    goalSection(r),
  ];
}

function textTable(s: Section): string[] {
  if (s.rows.length === 0) return [];
  const widths = s.headers.map((h, i) => Math.max(h.length, ...s.rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, i) => (s.right.includes(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()}`;
  return [line(s.headers), line(widths.map((w) => '-'.repeat(w))), ...s.rows.map(line)];
}

export function machineLine(r: Report): string {
  const m = r.machine;
  return `${m.cpus} CPU(s) ${m.cpuModel}; ${m.platform}; ${m.memoryGiB} GiB; node ${m.node}; git ${m.git}`;
}

function loadLine(r: Report): string {
  return `load average at start ${r.machine.loadAverageAtStart.join(' ')}, at end ${r.loadAverageAtEnd.join(' ')}`;
}

export function formatReport(r: Report): string {
  const out = [`land bench${r.settings.quick ? ' (--quick)' : ''}: ${machineLine(r)}`, `${loadLine(r)}; total ${r.totalSeconds} s`];
  for (const s of sectionsOf(r)) out.push('', s.title, ...textTable(s), ...s.notes.map((note) => `  ${note}`));
  return `${out.join('\n')}\n`;
}

const DEFINITIONS = `
## What the figures mean

- **startup**: wall time of \`node -e 0\`, \`land --version\` and \`land status --json\` on a small queue, median after one warm-up.
- **overhead**: \`land run\` drains the same N one-line branches (gate \`true\`) with window N (one train) and with window 1
  (\`batch.max\` 1, one train per job), against the same merges by git alone (\`merge-tree\`, \`commit-tree\`, one \`update-ref\`).
  \`landMs\` = the window-N drain, \`rawGitMs\` = the git loop, \`ratio\` = landMs / rawGitMs, and
  \`perTrainOverheadMs\` = (window-1 drain - window-N drain) / (trains - 1): what one more train costs. The goal
  "per-train tool overhead above the raw-git loop at most 30 ms" is read with this figure.
- **pSweep**: N branches, exactly k = round(p x N) culprits at seeded positions, a gate that sleeps and counts its runs;
  \`serial\` is \`batch.max\` 1, \`default\` the default policy with \`batch.max\` 8. bound/job = log2(C(N, k)) / N, the
  information bound. "wrong" counts verdicts that disagree with the culprits (must be 0). The short-queue rows
  (issue 23) drain N = 16 and 24 jobs with k = 1, 2, 3 culprits spread (\`uniform\`), the first k (\`head\`) or k
  consecutive from a seeded start (\`burst\`), default policy only; their goals read the replay x2000 (the expected
  figure: a few real queues of 16 jobs are too noisy for two decimals), and the real drains check it.
- **scale**: a state folder with that many job records, built directly; medians of \`land status --json\`, of one more
  \`land submit\`, and the per-train overhead of a drain, against the same on a small queue.
- **stats**: \`land stats --json\` over a state folder of that many finished jobs (built directly, as for scale) whose
  metrics rows carry what a drain writes (times, windows, gate results; some failed, cached and flaky trains); median
  wall time after one warm-up.
- **parallel**: N branches, k = round(p x N) culprits at positions from a fixed seed, gates that sleep; wall seconds of
  \`land run\` with \`batch.parallel\` 1 and 2; ratio = wall(2) / wall(1).
- **executors**: the parallel row's queue drained with 1 local gate slot, then with 4 slots on two sshd processes on
  127.0.0.1 as two [executors](docs/executors.md) (2 slots each, \`batch.parallel\` 4, the executors' land this build);
  ratio = wall(ssh 4) / wall(local 1), gate runs and finished as for parallel; the third run puts the same 4 slots on the
  drainer (\`local 4\`): what the plan gets from 4 slots without ssh's cost. On a machine without sshd the row is
  \`{ skipped: "no sshd (...)" }\` with null figures. Both "hosts" are this machine: the 4 gates and the 2 sshds share its cores.
- **remote**: the same N one-line branches (gate \`true\`, \`batch.max\` 1) drained from a clone's own queue and from a queue
  kept in a \`file://\` remote ([docs/remote.md](docs/remote.md)); both drains run through a PATH shim that logs each git
  command, which counts the fetches and pushes. Per train = (count - the drain's first fetch, its lease take and release) / trains.
- **flaky**: the sweep's seeded queues (N = 64, p = 0 and 0.1) drained by the planner's replay
  (lib/landing/plan/simulate.ts: the drain's own planner, settlement and re-run decision) with a gate that also fails a
  good tree with probability f on each fresh run (seeded, independent per run), under \`default\` (a policy that says
  nothing about flakes), \`flaky0\` and \`flaky2\` (\`retries.flaky\` 0 and 2); \`runs/job f=0\` is the same policy on the
  same queues with a deterministic gate, and the expected figures average many more seeded queues. A replay, not real
  drains: five queues of 64 are too few to read an ejection rate; the pSweep rows check the replay against real drains.
- The old culprit rows (N = 8 and 16, one or two culprits at fixed positions) run only with \`--culprits\`: the sweep supersedes them.
- Timings come from one machine, often shared: compare figures from the same run, not across runs.
`;

const mdCell = (cell: string) => cell.replaceAll('|', '\\|');

function markdownTable(s: Section): string[] {
  if (s.rows.length === 0) return [];
  const row = (cells: readonly string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [row(s.headers), row(s.headers.map((_, i) => (s.right.includes(i) ? '---:' : '---'))), ...s.rows.map(row), ''];
}

/** BENCHMARKS.md: what ran where, the goals first, then every section, then what the figures mean. */
export function formatMarkdown(r: Report): string {
  const sections = sectionsOf(r);
  const ordered = [...sections.filter((s) => s.title === 'goals'), ...sections.filter((s) => s.title !== 'goals')];
  const out = [
    '# Benchmarks',
    '',
    'Generated by `npm run bench -- --markdown BENCHMARKS.md` (bench/format.ts); do not edit by hand, run it again. The same report as JSON:',
    '`npm run -s bench -- --json > bench.json` (without `-s`, npm prints its own banner on stdout before the JSON).',
    '',
    `- command: \`${r.command}\``,
    `- date: ${r.date}${r.settings.quick ? ' (--quick: smaller counts; the goals are stated for the full run)' : ''}`,
    `- machine: ${machineLine(r)}`,
    `- ${loadLine(r)}`,
    `- total: ${r.totalSeconds} s (${Object.entries(r.partSeconds)
      .map(([part, s]) => `${part} ${s} s`)
      .join(', ')})`,
    '',
  ];
  for (const s of ordered) {
    out.push(`## ${s.title}`, '', ...markdownTable(s));
    if (s.notes.length) out.push(...s.notes.map((note) => `- ${note}`), '');
  }
  out.push(DEFINITIONS.trim(), '');
  return out.join('\n');
}
