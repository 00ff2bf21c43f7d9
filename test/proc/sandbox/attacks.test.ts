// Step 11: a queued change's own code attacks the drainer from its gate (fixtures/gates/hostile.sh:
// a forged verdict, a planted hook, fsmonitor, hooksPath and attributes, the drainer's environment
// through /proc, erasing another job, moving the target, a daemon and a tmux session that outlive
// the train, a connection to the drainer's loopback), then fails. With the sandbox: main moves only
// by the good job's landing, the culprit fails, the bystander job survives, no file of the git folder
// changes, the secret is never printed, no process survives, the connection never arrives. With
// `mode: off`: what docs/sandbox.md says a gate can still do, and the warning that says so.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../../../lib/proc/sandbox/mechanism.js';
import { FIXTURES, land } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../../helpers/repo.js';

const REQUIRED = process.env.LAND_REQUIRE_SANDBOX === '1';
const HAVE_BWRAP = findBwrap() !== null || REQUIRED;
const NEEDS = 'needs bubblewrap: apt-get install bubblewrap (LAND_REQUIRE_SANDBOX=1 makes its absence a failure)';
const SECRET = 'drainer-secret-5f1c2a9e';

const BENIGN = [
  'set -e',
  'git log --oneline -1 > build.out',
  'git describe --always >> build.out',
  'git diff --stat HEAD~1 >> build.out',
  'git status --short >> build.out',
  'mkdir -p out && echo built > out/artifact',
  'for f in culprit-*; do if [ -e "$f" ]; then exit 1; fi; done',
  '',
].join('\n');

let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});
afterAll(() => server.close());
afterEach(() => {
  cleanupTempDirs();
  // An unsandboxed hostile gate (mode off) may leave its daemon behind: never another test's problem.
  for (const line of survivors()) process.kill(Number(line.split(':')[0]), 'SIGKILL');
});

/** Hashes of every file in the git folder but the state folder and what a landing itself writes. */
function gitFolderFiles(gitDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (['land', 'logs', 'worktrees', 'objects', 'index', 'refs/heads/main', 'ORIG_HEAD'].includes(r)) continue;
      if (statSync(path).isDirectory()) walk(path, r);
      else out.set(r, createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(gitDir, '');
  return out;
}

/** Live processes whose command line names one of the attack's sleeps. */
function survivors(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (/sleep 373[78]/.test(cmd)) found.push(`${pid}: ${cmd}`);
    } catch {
      // gone
    }
  }
  return found;
}

function hostileRepo(sandbox: Record<string, unknown>): { repo: TestRepo; evil: string; good: string; bystander: string } {
  const repo = makeRepo({
    // One job a train: the culprit's gate runs while the others wait in the queue.
    policy: {
      target: 'main',
      gates: [{ name: 'test', run: ['sh', 'ci/test.sh'], timeoutSeconds: 60, env: { PROBE_PORT: String(port) } }],
      batch: { max: 1 },
      sandbox,
    },
  });
  repo.commit('ci', { 'ci/test.sh': BENIGN });
  const hostile = readFileSync(join(FIXTURES, 'gates', 'hostile.sh'), 'utf8');
  return {
    repo,
    evil: repo.branch('evil', { 'ci/test.sh': hostile, 'culprit-evil': 'x\n' }),
    good: repo.branch('good', { 'good.txt': 'good\n' }),
    bystander: repo.branch('bystander', { 'bystander.txt': 'b\n' }),
  };
}

describe.skipIf(!HAVE_BWRAP)(HAVE_BWRAP ? 'a hostile gate in the sandbox' : `a hostile gate in the sandbox (${NEEDS})`, () => {
  it('lands nothing of its own, changes no file of the git folder, reads no secret, erases no job and leaves no process', async () => {
    const { repo, good, bystander } = hostileRepo({ mode: 'required' });
    const gitDir = join(repo.dir, '.git');
    // As actions/checkout leaves a CI checkout: a token in the repository's config.
    repo.git('config', 'http.https://example.invalid/.extraheader', `AUTHORIZATION: basic ${SECRET}`);
    const before = gitFolderFiles(gitDir);
    const mainBefore = repo.tip('main');
    const submitted = await land(repo.dir, ['submit', 'evil', 'good', 'bystander', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const [evilJob, goodJob, bystanderJob] = submitted.lines().map((line) => line.job.id as string);
    const run = await land(repo.dir, ['run', '--json'], { env: { DRAINER_SECRET_CANARY: SECRET } });
    expect(run.code, run.stderr).toBe(0);

    const logs = readdirSync(join(gitDir, 'land', 'logs')).map((name) => readFileSync(join(gitDir, 'land', 'logs', name), 'utf8'));
    const evilLog = logs.join('\n');
    for (const attack of ['verdict', 'hook', 'fsmonitor', 'hookspath', 'attributes', 'erase', 'move', 'network']) {
      expect(evilLog).toContain(`attack ${attack}: refused`);
    }
    expect(evilLog).not.toContain('attack environ');
    expect(`${run.stdout}${run.stderr}${evilLog}`).not.toContain(SECRET);
    // main moved only by the good job's landing; the culprit failed.
    expect(repo.git('merge-base', '--is-ancestor', good, 'main')).toBe('');
    expect(() => repo.git('merge-base', '--is-ancestor', repo.tip('evil'), 'main')).toThrow();
    expect(repo.git('rev-list', '--first-parent', `${mainBefore}..main`).split('\n')).toHaveLength(2);
    const state = async (id: string | undefined) => (await land(repo.dir, ['show', id as string, '--json'])).lines()[0]?.state;
    expect(await state(evilJob)).toBe('failed');
    expect(await state(goodJob)).toBe('landed');
    // Queued while the attacks ran: its record, journal lines and index entry were never touched.
    expect(await state(bystanderJob)).toBe('landed');
    expect(gitFolderFiles(gitDir)).toEqual(before);
    expect(existsSync(join(gitDir, 'hooks', 'reference-transaction'))).toBe(false);
    expect(survivors()).toEqual([]);
    expect(connections).toBe(0);
    expect(repo.git('merge-base', '--is-ancestor', bystander, 'main')).toBe('');
    // The good job's gate ran git read commands and wrote build output in its checkout.
    expect(evilLog).toContain('sandboxed');
  });

  it("a refresh entry that points the checkout's .git at a folder it made never gets land's own git to run its code", async () => {
    const marker = join(tempDir('land-marker-'), 'escaped');
    const repo = makeRepo({
      policy: {
        target: 'main',
        gates: [{ name: 'test', run: ['true'] }],
        refresh: [{ paths: ['**'], run: ['sh', 'ci/refresh.sh'], message: 'refresh' }],
        trusted: ['ci/test.sh'],
        sandbox: { mode: 'required' },
      },
    });
    repo.commit('ci', { 'ci/refresh.sh': 'true\n', 'ci/test.sh': 'true\n' });
    // Inside the sandbox: a git folder of its own in the checkout whose fsmonitor writes the marker,
    // the checkout's .git pointed at it, and a file changed so land stages and commits after it.
    const redirect = [
      'set -e',
      'common=$(git rev-parse --path-format=absolute --git-common-dir)',
      'git init -q --bare .evilgit',
      'echo "$common/objects" > .evilgit/objects/info/alternates',
      'git --git-dir=.evilgit config core.bare false',
      `git --git-dir=.evilgit config core.fsmonitor 'touch ${marker}; true'`,
      'cp "$common/HEAD" .evilgit/HEAD 2>/dev/null || true',
      'printf "gitdir: %s/.evilgit\\n" "$PWD" > .git',
      'echo refreshed > refreshed.txt',
      '',
    ].join('\n');
    repo.branch('evil', { 'ci/refresh.sh': redirect, 'ci/test.sh': 'exit 0\n' });
    expect((await land(repo.dir, ['submit', 'evil'])).code).toBe(0);
    const run = await land(repo.dir, ['run']);
    expect(run.stdout + run.stderr).not.toContain('internal error');
    expect(existsSync(marker)).toBe(false);
  });

  it('a sandbox path inside the git folder: land config and land run exit 3, and no job is taken', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['true'], readWrite: ['.git/land'] }], sandbox: { mode: 'required' } } });
    repo.branch('feature', { 'f.txt': 'f\n' });
    expect((await land(repo.dir, ['submit', 'feature'])).code).toBe(0);
    const config = await land(repo.dir, ['config']);
    expect(config.code).toBe(3);
    expect(config.stderr).toContain('sandbox: .git/land is inside the git folder');
    const run = await land(repo.dir, ['run']);
    expect(run.code).toBe(3);
    const status = await land(repo.dir, ['status', '--json']);
    expect(status.lines()[0]?.jobs.map((job: { state: string }) => job.state)).toEqual(['queued']);
  });

  it('land doctor starts a sandbox and reports each protection', async () => {
    const { repo } = hostileRepo({ mode: 'required' });
    const doctor = await land(repo.dir, ['doctor', '--json']);
    expect(doctor.code, doctor.stderr).toBe(0);
    const report = doctor.lines()[0]?.sandbox;
    expect(report.ok).toBe(true);
    expect(report.findings.map((f: { check: string; ok: boolean }) => [f.check, f.ok])).toEqual([
      ['git_folder_read_only', true],
      ['state_hidden', true],
      ['environment', true],
      ['pid_namespace', true],
      ['network', true],
      ['git_reads', true],
      ['private_home', true],
    ]);
  });
});

describe('without a sandbox', () => {
  it('mode off: the gate writes the git folder, as docs/sandbox.md says, and every drain says it runs unsandboxed', async () => {
    const { repo } = hostileRepo({ mode: 'off' });
    expect((await land(repo.dir, ['submit', 'evil'])).code).toBe(0);
    const run = await land(repo.dir, ['run'], { env: { DRAINER_SECRET_CANARY: SECRET } });
    expect(run.stderr).toContain('sandbox: OFF (mode off)');
    expect(existsSync(join(repo.dir, '.git', 'hooks', 'reference-transaction'))).toBe(true);
    // What survives depends on whether the descendant scan saw the daemon before it detached: not asserted.
  });

  it('required on a machine without one: exit 14 before any gate, nothing failed; auto: a warning in run, status and config', async () => {
    const { repo } = hostileRepo({ mode: 'required' });
    expect((await land(repo.dir, ['submit', 'good'])).code).toBe(0);
    const none = { LAND_BWRAP: 'none' };
    const refused = await land(repo.dir, ['run'], { env: none });
    expect(refused.code).toBe(14);
    expect(refused.stderr).toContain('sandbox.mode is required and there is no sandbox on this machine');
    const status = await land(repo.dir, ['status', '--json'], { env: none });
    expect(status.lines()[0]?.jobs.map((j: { state: string }) => j.state)).toEqual(['queued']);
    expect(status.stderr).toContain('sandbox: REFUSED');
    repo.policy({ target: 'main', gates: [{ name: 'test', run: ['sh', 'ci/test.sh'] }], sandbox: { mode: 'auto' } });
    const config = await land(repo.dir, ['config'], { env: none });
    expect(config.stderr).toContain('warning: sandbox: OFF (mode auto): no sandbox');
    const run = await land(repo.dir, ['run'], { env: none });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('sandbox: OFF (mode auto)');
    const doctor = await land(repo.dir, ['doctor'], { env: none });
    expect(doctor.code).toBe(14);
    expect(doctor.stdout).toContain('UNSANDBOXED');
  });
});
