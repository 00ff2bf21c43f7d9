// The benchmark's report: the JSON shape (`--json`) and the table printed for a person.
import type { CulpritRow, Startup, TrainFigure } from './scenarios.js';

export interface Report {
  machine: {
    cpus: number;
    cpuModel: string;
    platform: string;
    memoryGiB: number;
    node: string;
    git: string;
    loadAverageAtStart: number[];
  };
  startup: Startup;
  train: TrainFigure;
  culprits: CulpritRow[];
  rss: { tool: string | null; note: string };
  loadAverageAtEnd: number[];
  totalSeconds: number;
}

const ms = (value: number) => `${Math.round(value)} ms`;
const sec = (value: number) => `${(value / 1000).toFixed(2)} s`;
const mib = (kib: number | null) => (kib === null ? '-' : `${(kib / 1024).toFixed(1)} MiB`);

function table(headers: readonly string[], rows: readonly (readonly string[])[], right: ReadonlySet<number> = new Set()): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()}`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export function formatReport(report: Report): string {
  const { machine: m, startup: s, train: t } = report;
  const out: string[] = [];
  out.push(`land bench: ${m.cpus} CPU(s) ${m.cpuModel}; ${m.platform}; ${m.memoryGiB} GiB; node ${m.node}; git ${m.git}`);
  out.push(`load average at start ${m.loadAverageAtStart.join(' ')}, at end ${report.loadAverageAtEnd.join(' ')}; total ${report.totalSeconds} s`);

  out.push('', `a. startup (median of ${s.runs} after one warm-up)`);
  out.push(
    ...table(
      ['command', 'wall'],
      [
        ["node -e 0 (Node's own start, for reference)", ms(s.nodeBaselineMs)],
        ['land --version', ms(s.versionMs)],
        [`land status --json (${s.statusJobs} queued jobs)`, ms(s.statusMs)],
      ],
      new Set([1]),
    ),
  );

  const w32 = t.window32;
  const w1 = t.window1;
  out.push('', `b. ${t.branches} one-line branches, gate \`true\` (submitting not timed; HEAD detached, so no checkout follows main)`);
  out.push(
    ...table(
      ['run', 'wall', 'trains', 'gate runs', 'landed', 'merges on main', 'peak RSS'],
      [
        [
          `land run, window ${t.branches}`,
          sec(w32.ms),
          String(w32.summary.trains),
          String(w32.summary.gateRuns),
          String(w32.summary.landed.length),
          String(w32.mergesOnMain),
          mib(w32.maxRssKiB),
        ],
        [
          'land run, window 1 (batch.max 1)',
          sec(w1.ms),
          String(w1.summary.trains),
          String(w1.summary.gateRuns),
          String(w1.summary.landed.length),
          String(w1.mergesOnMain),
          mib(w1.maxRssKiB),
        ],
        [
          `git loop, spawnSync (${t.loop.gitProcesses} git processes; median of ${t.loop.runs.length})`,
          sec(t.loop.ms),
          '-',
          '-',
          '-',
          String(t.loop.mergesOnMain),
          '-',
        ],
      ],
      new Set([1, 2, 3, 4, 5, 6]),
    ),
  );
  out.push(`  ratio land run (window ${t.branches}) / git loop: ${t.ratio.toFixed(1)}x`);
  out.push(`  ratio land run (window 1) / git loop: ${t.ratioWindow1.toFixed(1)}x`);
  out.push(`  per-train overhead ((window 1 - window ${t.branches}) / ${Math.max(1, w1.summary.trains - 1)} extra trains): ${ms(t.perTrainOverheadMs)}`);
  out.push(`  git loop runs: ${t.loop.runs.map((value) => ms(value)).join(', ')}`);

  out.push('', 'c. gate runs per culprit scenario (window = N = batch.max; gate fixtures/gates/counted.sh)');
  out.push(
    ...table(
      ['N', 'culprits', 'gate runs', 'bound', 'landed', 'failed', 'runs/landed', 'trains', 'wall', 'failed branches'],
      report.culprits.map((row) => [
        String(row.n),
        `${row.label}${row.culprits.length ? ` [${row.culprits.join(' ')}]` : ''}`,
        String(row.gateRuns),
        row.bound === null ? '-' : String(row.bound),
        String(row.landed),
        String(row.failed),
        row.landed ? (row.gateRuns / row.landed).toFixed(2) : '-',
        String(row.trains),
        sec(row.ms),
        row.failedBranches.join(' ') || '-',
      ]),
      new Set([0, 2, 3, 4, 5, 6, 7, 8]),
    ),
  );
  out.push('  bound = ceil(log2 N) + 2 (lib/landing/plan/trainPlan.ts bisectionBound), stated for one culprit');

  out.push('', `d. peak RSS: ${report.rss.tool ? `${report.rss.tool}; ${report.rss.note}` : report.rss.note}`);
  if (report.rss.tool) out.push(`  land run, window ${t.branches}: ${mib(w32.maxRssKiB)}; window 1: ${mib(w1.maxRssKiB)}`);
  return `${out.join('\n')}\n`;
}
