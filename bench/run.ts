// `npm run bench`: what `land` costs, measured on throwaway repositories with the real CLI.
//   a. startup: `land --version` and `land status --json` (median of 5, after a warm-up)
//   b. the figure: `land run` for 32 one-line branches with a gate `true`, window 32 and
//      window 1, against the same merges done by git alone (merge-tree/commit-tree/update-ref)
//   c. gate runs per landed job with culprits at several positions, N = 8 and 16
//   d. peak RSS of the `land run` processes of (b), through GNU time when it is there
// It measures and prints; it asserts nothing. `--json` prints one JSON object instead of the
// table; `--keep` leaves the temporary repositories. Progress goes to stderr.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { BenchError, git } from './git.js';
import { gnuTimeWorks } from './land.js';
import { formatReport, type Report } from './report.js';
import { measureCulprits, measureStartup, measureTrainFigure, prepareCulpritTemplate, type CulpritTemplate } from './scenarios.js';

function machine(root: string): Report['machine'] {
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    platform: `${platform()} ${release()} ${arch()}`,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    git: git(root, ['--version']).replace(/^git version /, ''),
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const keep = args.includes('--keep');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'land-bench-')));
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`bench: ${line} (${((performance.now() - started) / 1000).toFixed(1)}s)\n`);
  progress(`working in ${root}`);
  try {
    const rssFile = join(root, 'time-rss.txt');
    const rss = gnuTimeWorks(root, rssFile);
    const host = machine(root);
    // The culprit queues are submitted first: the N=8 one is also the small repository of (a).
    const templates = [8, 16].map((n) => {
      progress(`c. submitting ${n} branches for the culprit runs (not timed)`);
      return prepareCulpritTemplate(root, n);
    });
    progress('a. startup');
    const startup = measureStartup(root, (templates[0] as CulpritTemplate).dir);
    progress('b. 32 branches');
    const train = measureTrainFigure(root, { rssFile: rss ? rssFile : null, progress });
    progress('c. culprit runs');
    const culprits = measureCulprits(root, templates, progress);
    const report: Report = {
      machine: host,
      startup,
      train,
      culprits,
      rss: rss
        ? { tool: '/usr/bin/time -f %M', note: 'peak RSS of the largest process in the land run tree (node itself)' }
        : { tool: null, note: 'GNU time (/usr/bin/time -f %M) is not available: peak RSS skipped' },
      loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100),
      totalSeconds: 0,
    };
    report.totalSeconds = Math.round((performance.now() - started) / 100) / 10;
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return 0;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof BenchError ? error.message : ((error as Error)?.stack ?? String(error))}\n`);
    return 1;
  } finally {
    if (keep) process.stderr.write(`bench: kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
