// `node dist/scripts/sweep.js`: the culprit-rate sweep of bench/sweep.ts on its own (the full
// benchmark, `npm run bench`, runs it too). Options: --n 64, --seeds 5, --gate-ms 50,
// --batch-max 8, --rates 0,0.02,0.1,0.3, --policies serial,default, --json, --keep.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureSweep, type SweepRow } from '../bench/sweep.js';

function option(args: readonly string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? (args[at + 1] as string) : fallback;
}

function table(rows: readonly SweepRow[]): string {
  const head = '| p | k | policy | seeds | runs/job | runs/landed | bound/job | wall s | landed | failed | wrong |';
  const lines = rows.map(
    (r) =>
      `| ${r.p} | ${r.k} | ${r.policy} | ${r.seeds} | ${r.gateRunsPerJob.toFixed(3)} | ${r.gateRunsPerLanded.toFixed(3)} | ${r.boundPerJob.toFixed(3)} | ${r.wallSeconds.toFixed(2)} | ${r.landed} | ${r.failed} | ${r.wrongVerdicts} |`,
  );
  return [head, '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |', ...lines].join('\n');
}

const args = process.argv.slice(2);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'land-sweep-')));
const started = performance.now();
try {
  const rows = await measureSweep(root, {
    n: Number(option(args, '--n', '64')),
    batchMax: Number(option(args, '--batch-max', '8')),
    rates: option(args, '--rates', '0,0.02,0.1,0.3').split(',').map(Number),
    seeds: Number(option(args, '--seeds', '5')),
    gateMs: Number(option(args, '--gate-ms', '50')),
    policies: option(args, '--policies', 'serial,default').split(',') as ('serial' | 'default')[],
    progress: (line) => process.stderr.write(`sweep: ${line} (${((performance.now() - started) / 1000).toFixed(1)}s)\n`),
  });
  process.stdout.write(args.includes('--json') ? `${JSON.stringify(rows, null, 2)}\n` : `${table(rows)}\n`);
} finally {
  if (args.includes('--keep')) process.stderr.write(`sweep: kept ${root}\n`);
  else rmSync(root, { recursive: true, force: true });
}
