// Fault test 7, secrets: tokens in the drainer's environment (GITHUB_TOKEN, NPM_TOKEN,
// AWS_SECRET_ACCESS_KEY) reach no gate and no file under the state folder; a value the policy
// passes by name (passEnv) does reach the gate, and is redacted wherever land stores or prints it:
// the gate log, `land show`, `land why`, `land log`, `land run`, also when the gate prints it as its
// last words on stderr.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { stateDir } from '../helpers/state.js';
import { afterFault, createBranches, makeFaultRepo, submitAll } from '../helpers/faultHarness.js';

afterAll(cleanupTempDirs);

const TOKENS = {
  GITHUB_TOKEN: 'ghp_faultTestGithubToken0123456789',
  NPM_TOKEN: 'npm_faultTestNpmToken0123456789',
  AWS_SECRET_ACCESS_KEY: 'aws/faultTestSecretAccessKey+0123456789',
};
const PASSED = 'pass-env-value-7f3a9c';
const ENV = { ...TOKENS, MY_SECRET: PASSED };

// Dumps what it sees (env, and the shell's own /proc/<pid>/environ) outside the worktree, prints
// the passed secret on stdout, and ends with it on stderr when it fails (CULPRIT-*) or cannot
// start (an INFRA file: exit 127).
const GATE = `#!/bin/sh
env > "$DUMP_DIR/env-$LAND_TRAIN.txt"
tr '\\000' '\\n' < /proc/$$/environ > "$DUMP_DIR/environ-$LAND_TRAIN.txt"
echo "the gate sees MY_SECRET=$MY_SECRET"
if [ -e INFRA ]; then
  echo "cannot start: $MY_SECRET" >&2
  exit 127
fi
for f in CULPRIT-*; do
  if [ -e "$f" ]; then
    echo "$MY_SECRET" >&2
    exit 1
  fi
done
exit 0
`;

/** Every file under `dir`, recursively, with its content. */
function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, 'latin1') });
  }
  return out;
}

/** Which of `values` occur in `text`, by name. */
function leaks(text: string, values: Record<string, string>): string[] {
  return Object.entries(values)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
}

describe.sequential('fault test 7: secrets', () => {
  it('tokens reach no gate and no state file; a passEnv value reaches the gate and is redacted everywhere land shows it', { timeout: 600_000 }, async () => {
    const dumps = tempDir('land-dumps-');
    const gate = join(dumps, 'gate.sh');
    writeFileSync(gate, GATE);
    const fault = makeFaultRepo({
      gate: { run: ['sh', gate], env: { DUMP_DIR: dumps }, passEnv: ['MY_SECRET'] },
      policy: { retries: { infra: 0 } },
    });
    createBranches(fault, [1, 2], [2], 's');
    const [good, culprit] = await submitAll(fault, ['s1', 's2']);
    const outputs: { what: string; text: string }[] = [];
    const run = await land(fault.repo.dir, ['run', '--json'], { env: ENV });
    expect(run.code, run.stderr).toBe(0);
    outputs.push({ what: 'land run --json', text: run.stdout + run.stderr });
    // A gate that cannot start: its last stderr line is quoted in the job's error.
    createBranches(fault, [3], [3], 's', () => 'INFRA');
    const [infra] = await submitAll(fault, ['s3']);
    const human = await land(fault.repo.dir, ['run'], { env: ENV });
    expect(human.code, human.stderr).toBe(0);
    outputs.push({ what: 'land run', text: human.stdout + human.stderr });

    for (const id of [good, culprit, infra] as string[]) {
      for (const args of [
        ['show', id, '--json'],
        ['show', id],
        ['why', id],
        ['why', id, '--json'],
        ['log', id],
      ]) {
        const result = await land(fault.repo.dir, args, { env: ENV });
        outputs.push({ what: `land ${args.join(' ')} (exit ${result.code})`, text: result.stdout + result.stderr });
      }
    }
    const status = await land(fault.repo.dir, ['status', '--all', '--json'], { env: ENV });
    outputs.push({ what: 'land status --all --json', text: status.stdout + status.stderr });

    // The gate ran and saw the passed value, and none of the tokens.
    const seen = filesUnder(dumps).filter((f) => f.path !== gate);
    expect(seen.length, 'the gate dumped its environment').toBeGreaterThanOrEqual(2);
    for (const dump of seen) {
      expect(dump.text, dump.path).toContain(`MY_SECRET=${PASSED}`);
      expect(leaks(dump.text, TOKENS), `tokens in the gate's environment (${dump.path})`).toEqual([]);
    }
    // No file under the state folder holds any of them (the gate logs included).
    const stored = filesUnder(stateDir(fault.repo));
    const logs = stored.filter((f) => f.path.includes('/logs/'));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.some((f) => f.text.includes('MY_SECRET=***'))).toBe(true);
    const storedLeaks = stored.flatMap((f) => leaks(f.text, ENV).map((name) => `${name} in ${f.path}`));
    expect(storedLeaks, 'secrets in the state folder').toEqual([]);
    // No command prints the passed value (or a token).
    const printed = outputs.flatMap((o) => leaks(o.text, ENV).map((name) => `${name} in ${o.what}`));
    expect(printed, 'secrets printed by land').toEqual([]);

    // The outcomes themselves: the failure and the infra error were reported, redacted.
    const show = (id: string) => outputs.find((o) => o.what.startsWith(`land show ${id} --json`))?.text ?? '';
    expect(JSON.parse(show(culprit as string))).toMatchObject({ state: 'failed', reason: 'gate' });
    expect(JSON.parse(show(infra as string))).toMatchObject({ state: 'failed', reason: 'infra' });
    expect(show(infra as string)).toContain('cannot start: ***');
    await afterFault(fault, 'settled', 'after the secrets run');
  });

  it('a passEnv value of several lines (a key) printed a line at a time is redacted line by line', { timeout: 300_000 }, async () => {
    const dumps = tempDir('land-dumps-');
    const gate = join(dumps, 'gate.sh');
    // One write per line, with a pause, so no piece of output ever holds the whole value.
    writeFileSync(gate, 'printf \'%s\\n\' "$MY_KEY" | while IFS= read -r line; do printf \'%s\\n\' "$line"; sleep 0.05; done\nexit 0\n');
    const fault = makeFaultRepo({ gate: { run: ['sh', gate], passEnv: ['MY_KEY'] } });
    createBranches(fault, [1], [], 'k');
    const [id] = await submitAll(fault, ['k1']);
    const lines = ['-----BEGIN FAULT TEST KEY-----', 'bXVsdGktbGluZS1rZXktb25l', 'bXVsdGktbGluZS1rZXktdHdv', '-----END FAULT TEST KEY-----'];
    const run = await land(fault.repo.dir, ['run', '--json'], { env: { MY_KEY: lines.join('\n') } });
    expect(run.code, run.stderr).toBe(0);
    const log = await land(fault.repo.dir, ['log', id as string]);
    const stored = filesUnder(stateDir(fault.repo)).map((f) => f.text);
    for (const line of lines) {
      expect(log.stdout, 'land log').not.toContain(line);
      expect(
        stored.filter((text) => text.includes(line)),
        'state files',
      ).toEqual([]);
    }
    expect(log.stdout.split('\n').filter((l) => l === '***')).toHaveLength(lines.length);
    await afterFault(fault, 'settled', 'after the multi-line secret');
  });
});
