// Fault test 3, races: two `land run` started at the same instant, ten times (one drains, the other
// waits, or exits 6 under --no-wait; their gates never overlap), and 50 `land submit` racing a
// running drain (every job exists once, with a unique id, lands once, in queue order).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';
import { afterFault, createBranches, makeFaultRepo, submitAll } from '../helpers/faultHarness.js';
import { readRecords } from '../helpers/invariants.js';

afterAll(cleanupTempDirs);

const RACE_GATE = join(FIXTURES, 'gates', 'race-gate.sh');

type Event = { type: string; members?: string[]; message?: string };

function events(stdout: string): Event[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);
}

const landedBy = (stdout: string) => events(stdout).flatMap((e) => (e.type === 'landed' ? (e.members ?? []) : []));

describe.sequential('fault test 3: races', () => {
  it('two `land run` at the same instant, ten times: one drains, the other waits or exits 6; every job lands once', { timeout: 900_000 }, async () => {
    const raceDir = tempDir('land-race-');
    const fault = makeFaultRepo({ gate: { run: ['sh', RACE_GATE], env: { RACE_DIR: raceDir } } });
    const go = join(raceDir, 'go');
    for (let round = 1; round <= 10; round += 1) {
      const noWait = round % 2 === 1;
      rmSync(go, { force: true });
      const made = createBranches(fault, [1, 2], [], `r${round}-`);
      const ids = await submitAll(
        fault,
        made.map((b) => b.name),
      );
      const args = noWait ? ['run', '--no-wait', '--json'] : ['run', '--json'];
      const pair = [startLand(fault.repo.dir, args), startLand(fault.repo.dir, args)];
      // The gate holds the winner until `go`: whatever the loser does, it does while the winner drains.
      if (noWait) {
        const first = await Promise.race(pair.map((p, i) => p.done.then((r) => ({ i, r }))));
        expect(first.r.code, `round ${round}: the first to end is the loser: ${first.r.stderr}`).toBe(6);
        expect(first.r.stderr).toMatch(/another drainer holds the queue/);
      } else {
        await waitUntil(
          `round ${round}: one drainer in its gate and the other waiting for the lock`,
          () =>
            existsSync(join(raceDir, 'busy')) &&
            pair.some((p) => events(p.output().stdout).some((e) => e.type === 'warning' && /waiting for the drain lock/.test(e.message ?? ''))),
          300_000,
        );
      }
      writeFileSync(go, '');
      const results = await Promise.all(pair.map((p) => p.done));
      const codes = results.map((r) => r.code).sort();
      expect(codes, `round ${round}: ${results.map((r) => r.stderr).join('\n')}`).toEqual(noWait ? [0, 6] : [0, 0]);
      const drained = results.filter((r) => landedBy(r.stdout).length > 0);
      expect(drained, `round ${round}: exactly one drainer landed jobs`).toHaveLength(1);
      expect(landedBy(drained[0]?.stdout ?? '').sort()).toEqual([...ids].sort());
      expect(results.flatMap((r) => events(r.stdout)).filter((e) => e.type === 'train_built')).toHaveLength(1);
      await afterFault(fault, 'settled', `after round ${round}`);
    }
    expect(existsSync(join(raceDir, 'overlaps')), 'two gates ran at the same time').toBe(false);
    const gates = readFileSync(join(raceDir, 'started'), 'utf8').trim().split('\n');
    expect(gates).toHaveLength(10);
  });

  it('50 `land submit` (10 at a time) racing a running drain: all exist, ids unique, each lands once, in queue order', { timeout: 900_000 }, async () => {
    const fault = makeFaultRepo({ gateSleep: 0.05 });
    const numbers = Array.from({ length: 50 }, (_, i) => i + 1);
    const branches = createBranches(fault, numbers);
    const watcher = startLand(fault.repo.dir, ['run', '--watch', '--json']);
    await waitUntil('the drainer to start', () => watcher.output().stdout.includes('"drain_started"'), 300_000);
    const waves: string[][] = [];
    for (let wave = 0; wave < 5; wave += 1) {
      const names = branches.slice(wave * 10, wave * 10 + 10).map((b) => b.name);
      const results = await Promise.all(names.map((name) => land(fault.repo.dir, ['submit', name, '--json'])));
      for (const [i, r] of results.entries()) expect(r.code, `submit ${names[i]}: ${r.stderr}`).toBe(0);
      waves.push(results.map((r) => r.json().job.id as string));
    }
    await waitUntil('every job to be landed', () => readRecords(fault.repo.dir).records.filter((job) => job.state === 'landed').length === 50, 600_000);
    // The last records are written before the drainer finishes its pass and goes idle: a SIGTERM
    // in between stops it at a train boundary (exit 130). Idle, it stops cleanly (exit 0).
    await waitUntil(
      'the drainer to be idle again',
      () => {
        const seen = watcher
          .output()
          .stdout.split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { type: string });
        const lastLanded = seen.map((e) => e.type).lastIndexOf('landed');
        return seen.slice(lastLanded + 1).some((e) => e.type === 'idle');
      },
      300_000,
    );
    watcher.child.kill('SIGTERM');
    const stopped = await watcher.done;
    expect(stopped.code, stopped.stderr).toBe(0);

    const ids = waves.flat();
    expect(new Set(ids).size, 'job ids are unique').toBe(50);
    const { records, unreadable } = readRecords(fault.repo.dir);
    expect(unreadable).toEqual([]);
    expect(records).toHaveLength(50);
    expect(new Set(records.map((job) => job.branch)).size).toBe(50);
    // Queue order: a wave submitted after another got larger ids, and `order` follows the id. Ids
    // sort as text (j-<day>-<number of the day>), also across midnight UTC.
    for (let wave = 1; wave < waves.length; wave += 1) {
      const first = [...(waves[wave] ?? [])].sort()[0] ?? '';
      const previousLast = [...(waves[wave - 1] ?? [])].sort().at(-1) ?? '';
      expect(first > previousLast, `wave ${wave + 1} starts at ${first}, after ${previousLast}`).toBe(true);
    }
    for (const job of records) expect(job.order).toBe(job.id);
    const report = await afterFault(fault, 'settled', 'after 50 racing submits');
    // Nothing failed, so the target took the jobs in queue order (first in, first landed).
    expect(report.merged).toEqual([...ids].sort());
    expect(report.outcomes.every((o) => o.state === 'landed')).toBe(true);
  });
});
