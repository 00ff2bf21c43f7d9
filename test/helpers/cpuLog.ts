// `LAND_TEST_CPU_LOG=<file> npm test` appends one line per test file: its wall time and the CPU it
// cost: the worker's own (the test, the in-process CLI) and its reaped children's (git, the CLI
// processes, gates). What docs/development.md's "Where the suite's time goes" is measured with.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

/** CPU seconds of this process's reaped children, from /proc/self/stat (cutime + cstime, in ticks). */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function ownCpu(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export function logCpuPerFile(file: string): void {
  // From here (the setup file runs before each test file is imported): the file's imports count too.
  const start = { wall: Date.now(), own: ownCpu(), children: childrenCpu() };
  afterAll(() => {
    const path = (expect.getState().testPath ?? '?').replace(`${process.cwd()}/`, '');
    const row = [((Date.now() - start.wall) / 1000).toFixed(1), (ownCpu() - start.own).toFixed(1), (childrenCpu() - start.children).toFixed(1), path];
    appendFileSync(file, `${row.join(' ')}\n`);
  });
}
