// Fault test 2, the soak: 60 jobs (10% culprits) drained by `land run` processes that are killed
// with SIGKILL at random moments, 15 times, each restarted; then one drain to the end. Nothing may
// be lost, landed twice or stuck, and no culprit may land. The seed is printed (LAND_SOAK_SEED
// replays a run).
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';
import { afterFault, createBranches, makeFaultRepo, pick, seededRandom, sleep, submitAll } from '../helpers/faultHarness.js';

afterAll(cleanupTempDirs);

const SEED = Number(process.env.LAND_SOAK_SEED ?? 20261130);
const JOBS = 60;
const CULPRITS = 6;
const KILLS = 15;
/** The drainer events a kill follows: recovery, a train just built (its merges), a gate running, a verdict (the CAS and record writes), a landing. */
const KILL_AFTER = ['drain_started', 'train_built', 'gate_started', 'verdict', 'landed'] as const;

/** What the drainer was doing when it was killed: its last JSON event (a torn last line counts as the one before). */
function phaseOf(stdout: string): string {
  const types = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => (JSON.parse(line) as { type: string }).type);
  return types[types.length - 1] ?? 'start-up';
}

describe.sequential('fault test 2: the soak', () => {
  it(`${JOBS} jobs, ${CULPRITS} culprits, the drainer killed ${KILLS} times: each good job lands once, culprits fail, nothing stuck`, {
    timeout: 900_000,
  }, async () => {
    const setUp = Date.now();
    const random = seededRandom(SEED);
    console.log(`soak seed ${SEED} (LAND_SOAK_SEED replays it)`);
    const fault = makeFaultRepo({ gateSleep: 0.07 });
    const culprits = pick(random, JOBS, CULPRITS);
    const numbers = Array.from({ length: JOBS }, (_, i) => i + 1);
    const branches = createBranches(fault, numbers, culprits);
    const ids = await submitAll(
      fault,
      branches.map((b) => b.name),
    );
    expect(new Set(ids).size).toBe(JOBS);
    const started = Date.now();
    console.log(`soak set-up ${((started - setUp) / 1000).toFixed(1)} s`);
    const phases: string[] = [];
    for (let attempt = 0; phases.length < KILLS && attempt < KILLS * 3; attempt += 1) {
      // A kill moment is an event of the drainer's own progress (so it lands in recovery, gates,
      // merges and landings whatever the machine's speed) plus a random delay after it.
      const after = KILL_AFTER[Math.floor(random() * KILL_AFTER.length)] ?? 'drain_started';
      const delay = Math.floor(random() * 400);
      const drainer = startLand(fault.repo.dir, ['run', '--json']);
      const reached = await Promise.race([
        drainer.done.then(() => false),
        waitUntil(`the drainer's ${after} event`, () => drainer.output().stdout.includes(`"type":"${after}"`), 300_000).then(() => true),
      ]);
      const finished = !reached || (await Promise.race([drainer.done.then(() => true), sleep(delay).then(() => false)]));
      if (finished) {
        const { code, stderr } = await drainer.done;
        throw new Error(`the drain ended (exit ${code}) before kill ${phases.length + 1} of ${KILLS}: ${stderr}`);
      }
      drainer.child.kill('SIGKILL');
      const killed = await drainer.done;
      phases.push(phaseOf(killed.stdout));
      await afterFault(fault, 'crashed', `after kill ${phases.length} (${delay} ms after ${after}, last event ${phases[phases.length - 1]})`);
    }
    const killing = (Date.now() - started) / 1000;
    const last = await land(fault.repo.dir, ['run', '--json'], { timeoutMs: 600_000 });
    const seconds = (Date.now() - started) / 1000;
    const histogram = [...new Set(phases)].map((p) => `${p} ${phases.filter((q) => q === p).length}`).join(', ');
    console.log(`soak run time ${seconds.toFixed(1)} s (${killing.toFixed(1)} s of it killing); ${phases.length} kills (${histogram}); seed ${SEED}`);
    expect(last.code, last.stderr).toBe(0);
    const report = await afterFault(fault, 'settled', 'at the end of the soak');

    // The target's merges are exactly the non-culprit jobs, each once.
    const byBranch = new Map(report.outcomes.map((o) => [o.name, o]));
    const goodJobs = branches.filter((b) => b.kind === 'good').map((b) => byBranch.get(b.name)?.jobs[0]);
    expect([...report.merged].sort()).toEqual([...goodJobs].sort());
    for (const b of branches) {
      const outcome = byBranch.get(b.name);
      if (b.kind === 'good') expect(outcome, b.name).toMatchObject({ state: 'landed' });
      else expect(outcome, b.name).toMatchObject({ state: 'failed', reason: 'gate' });
    }
    expect(phases).toHaveLength(KILLS);
  });
});
