import { join } from 'node:path';
import { expect } from 'vitest';
import { FIXTURES, land, type CliResult } from './cli.js';
import { tempDir } from './repo.js';
import { makeTeam, queuePolicy, type Clone, type Team } from './remoteTeam.js';

export interface Job {
  id: string;
  branch: string;
  tip: string;
  state: string;
  reason?: string | null;
}

/** The server's refs under refs/land/ and the commit each names. */
export function serverRefs(team: Team): Map<string, string> {
  const out = team.server('for-each-ref', '--format=%(objectname) %(refname)', 'refs/land/');
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [oid, ref] = line.split(' ');
        return [ref as string, oid as string];
      }),
  );
}

export async function statusJobs(clone: Clone, all = true): Promise<Job[]> {
  const status = await land(clone.dir, ['status', ...(all ? ['--all'] : []), '--json']);
  expect(status.code, status.stderr).toBe(0);
  return status.json().jobs as Job[];
}

export function ok(result: CliResult): CliResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** A team whose gate waits for a file the test creates (fixtures/gates/wait-for-go.sh). */
export function blockingTeam() {
  const scratch = tempDir('land-team-gate-');
  const files = { started: join(scratch, 'started'), go: join(scratch, 'go'), counter: join(scratch, 'runs.txt') };
  const gate = {
    name: 'test',
    run: ['sh', join(FIXTURES, 'gates', 'wait-for-go.sh')],
    timeoutSeconds: 60,
    env: { GATE_STARTED: files.started, GATE_GO: files.go, GATE_COUNTER: files.counter },
  };
  return { team: makeTeam({ policy: queuePolicy({}, { gates: [gate], batch: { max: 8 } }) }), files };
}

/** The JSON lines a `land ... --json` printed (a drain's events, then its summary). */
export function jsonLines(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
