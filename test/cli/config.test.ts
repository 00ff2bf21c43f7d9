// The policy in force: read from the target's tip only, every problem reported at once, clear
// errors for a missing target or a missing .ctm.json; `land init` and `land config schema`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, describe, expect, it } from 'vitest';
import { gatesHash, parsePolicy } from '../../lib/config/index.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { BASIC_POLICY, errorLines, jobFiles, journal, readJobFile } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

/** The lines after the `land:` line that name a problem (`  <path>: <message>`). */
function problemLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('  '));
}

describe('land config: a bad policy on the target', () => {
  it('exits 3 and names every bad key path, one line each, all at once', async () => {
    const repo = makeRepo();
    const bad = { batch: { max: 'eight' }, gates: [{ name: 'test', run: 'true', tmeout: 5 }] };
    repo.commit('bad policy', { '.ctm.json': JSON.stringify(bad, null, 2) });
    repo.branch('topic', { 't.txt': 't\n' });

    const result = await land(repo.dir, ['config']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(errorLines(result.stderr)[0]).toContain('3 problems');
    const problems = problemLines(result.stderr);
    expect(problems).toHaveLength(3);
    for (const path of ['batch.max', 'gates[0].tmeout', 'target']) {
      expect(
        problems.filter((line) => line.trim().startsWith(`${path}:`)),
        path,
      ).toHaveLength(1);
    }

    // A submit under a bad policy queues nothing, and --json prints no JSON on failure.
    const submit = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(submit.code).toBe(3);
    expect(submit.stdout).toBe('');
    expect(jobFiles(repo)).toEqual([]);
  });

  it('exits 3 when the target branch does not exist', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.git('config', 'land.target', 'release');
    const result = await land(repo.dir, ['config']);
    expect(result.code).toBe(3);
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(errorLines(result.stderr)[0]).toContain('"release" does not exist');
    expect(repo.git('branch', '--list', 'release')).toBe('');
  });

  it('exits 3 with a hint about land init when the target has no .ctm.json', async () => {
    const repo = makeRepo();
    const result = await land(repo.dir, ['config']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('.ctm.json');
    expect(result.stderr).toMatch(/hint: .*land init/);
  });
});

describe('land config: the policy comes from the target, never from a member branch', () => {
  it("shows main's gates after a branch with a different .ctm.json is queued, checked out and edited", async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const mainTip = repo.tip('main');
    const basic = parsePolicy(JSON.stringify(BASIC_POLICY));
    assert(basic.ok, 'BASIC_POLICY is a valid policy');
    const mainHash = gatesHash(basic.policy.gates);
    const evilPolicy = { target: 'main', gates: [{ name: 'evil', run: ['sh', '-c', 'touch PWNED'] }] };
    const evilTip = repo.branch('evil', { '.ctm.json': JSON.stringify(evilPolicy) });

    const submitted = await land(repo.dir, ['submit', 'evil', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(readJobFile(repo, submitted.json().job.id).tip).toBe(evilTip);

    const expectMainPolicy = async () => {
      const result = await land(repo.dir, ['config', '--json']);
      expect(result.code, result.stderr).toBe(0);
      const out = result.json();
      expect(out.target).toBe('main');
      expect(out.tip).toBe(mainTip);
      expect(out.policy.gates.map((gate: any) => gate.name)).toEqual(['test']);
      expect(out.gatesHash).toBe(mainHash);
    };
    await expectMainPolicy();

    // With the member branch checked out in the worktree and its .ctm.json edited, not committed.
    repo.git('checkout', '-q', 'evil');
    writeFileSync(join(repo.dir, '.ctm.json'), JSON.stringify({ target: 'main', gates: [{ name: 'worktree', run: ['false'] }] }));
    expect(repo.git('status', '--porcelain')).toContain('.ctm.json');
    await expectMainPolicy();

    // Submitting the checked-out branch again (no name) finds the same job; main did not move.
    const again = await land(repo.dir, ['submit', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ outcome: 'existing', job: { id: submitted.json().job.id } });
    expect(repo.tip('main')).toBe(mainTip);
    expect(journal(repo).filter((entry) => entry.event === 'submitted')).toHaveLength(1);
  });
});

describe('land config: the ledger of land batch', () => {
  it('is left out where no gate runs land batch (a line says so), shown with --all, and always in --json', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const plain = await land(repo.dir, ['config']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('"ledger"');
    expect(plain.stdout).toContain('"retries"');
    expect(plain.stdout.trimEnd().split('\n').at(-1)).toBe('(ledger, the settings of land batch: its defaults, not shown; --all shows them)');
    const all = await land(repo.dir, ['config', '--all']);
    expect(all.stdout).toContain('"ledger": {\n    "providers": [\n      "claude-code"');
    expect(all.stdout).not.toContain('(ledger,');
    expect((await land(repo.dir, ['config', '--json'])).json().policy.ledger).toEqual({ providers: ['claude-code'] });

    repo.policy({ ...BASIC_POLICY, ledger: { lane: 'local' } });
    const used = await land(repo.dir, ['config']);
    expect(used.stdout).toContain('"lane": "local"');
    expect(used.stdout).not.toContain('(ledger,');
  });
});

describe('land init and land config schema', () => {
  it('writes a valid .ctm.json once and refuses a second time (exit 5)', async () => {
    const repo = makeRepo();
    const file = join(repo.dir, '.ctm.json');
    const first = await land(repo.dir, ['init', '--gate', 'make check']);
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
    const written = readFileSync(file, 'utf8');
    const parsed = parsePolicy(written);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.policy.target).toBe('main');
    expect(parsed.policy.gates.map((gate) => gate.run)).toEqual(['make check']);

    const second = await land(repo.dir, ['init']);
    expect(second.code).toBe(5);
    expect(errorLines(second.stderr)[0]).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe(written);

    // Once committed on main it is the policy in force.
    repo.commit('land policy', {});
    const config = await land(repo.dir, ['config', '--json']);
    expect(config.code, config.stderr).toBe(0);
    expect(config.json().tip).toBe(repo.tip('main'));
    expect(config.json().gatesHash).toBe(gatesHash(parsed.policy.gates));
  });

  it('prints a JSON Schema with properties.gates', async () => {
    const repo = makeRepo();
    const result = await land(repo.dir, ['config', 'schema']);
    expect(result.code, result.stderr).toBe(0);
    const schema = result.json();
    expect(schema.type).toBe('object');
    expect(schema.properties.gates.type).toBe('array');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['target', 'gates', 'batch']));
  });
});
