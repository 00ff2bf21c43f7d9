// A gate runs as the drainer's user, so it can read everything under .git/land and every
// process's environment of that user. It must still not be able to move the protected target
// with the landing token (only a hash of it is ever on disk, and only while one landing runs), and
// when it moves the target anyway (the hook switched off), the drain must not call its members
// landed: an untested commit contains them, land did not land them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, LAND_BIN } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, UNSANDBOXED, type TestRepo } from '../helpers/repo.js';
import { journal, readJobFile } from '../helpers/state.js';
import { waitUntil } from '../helpers/wait.js';
import { submitInProcess } from '../helpers/drainHarness.js';
import { spawnSync } from 'node:child_process';

afterAll(cleanupTempDirs);

/**
 * Every way a gate could find the token: the token file and the drain holder (whole, and each
 * long word in them), every file under .git/land, and LAND_TOKEN in the environment of its
 * ancestors ($PPID and up) and of every process it can read. Each candidate is tried as
 * LAND_TOKEN on `git update-ref refs/heads/main HEAD` (HEAD: the train commit); a success is
 * written to $MOVED_FILE. $TRIED_FILE counts the attempts, so the test knows the gate ran.
 */
const ATTACK = `#!/bin/sh
gd=$(git rev-parse --path-format=absolute --git-common-dir)
try() {
  echo "$1" >> "$TRIED_FILE"
  if LAND_TOKEN=$2 git update-ref refs/heads/main HEAD 2>/dev/null; then echo "$1" >> "$MOVED_FILE"; fi
}
try token+holder "$(cat "$gd/land/token" 2>/dev/null; cat "$gd/land/locks/drain-holder.json" 2>/dev/null)"
try token "$(cat "$gd/land/token" 2>/dev/null)"
for f in "$gd/land/"* "$gd/land/locks/"* "$gd/land/jobs/"*; do
  [ -f "$f" ] || continue
  try "file $f" "$(cat "$f")"
done
for f in "$gd/land/token" "$gd/land/locks/"*; do
  [ -f "$f" ] || continue
  for w in $(tr -c 'A-Za-z0-9' '\\n' < "$f" | grep -E '^[A-Za-z0-9]{16,}$' | sort -u); do try "word $f" "$w"; done
done
try ppid-environ "$(tr '\\0' '\\n' < /proc/$PPID/environ 2>/dev/null | sed -n 's/^LAND_TOKEN=//p')"
pid=$PPID
while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
  try "environ $pid" "$(tr '\\0' '\\n' < /proc/$pid/environ 2>/dev/null | sed -n 's/^LAND_TOKEN=//p')"
  pid=$(sed 's/.*) [A-Za-z] \\([0-9]*\\).*/\\1/' /proc/$pid/stat 2>/dev/null)
done
for t in $(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | sed -n 's/^LAND_TOKEN=//p' | sort -u); do try "any process" "$t"; done
exit 0
`;

function attackRepo(script: string): { repo: TestRepo; moved: string; tried: string } {
  const scratch = tempDir('land-attack-');
  const gate = join(scratch, 'gate.sh');
  writeFileSync(gate, script, { mode: 0o755 });
  const moved = join(scratch, 'moved');
  const tried = join(scratch, 'tried');
  const repo = makeRepo({
    policy: {
      target: 'main',
      gates: [{ name: 'attack', run: ['sh', gate], timeoutSeconds: 120, env: { MOVED_FILE: moved, TRIED_FILE: tried } }],
      sandbox: UNSANDBOXED,
    },
  });
  repo.branch('b1', { 'b1.txt': 'b1\n' }, 'main');
  repo.branch('b2', { 'b2.txt': 'b2\n' }, 'main');
  repo.git('checkout', '-q', '--detach'); // the drainer's checkout is not on the target
  return { repo, moved, tried };
}

/** Submitted in this process: the drain's defence of the target is under test, not the submission. */
function submit(repo: TestRepo, branches: string[]): Promise<string[]> {
  return submitInProcess(repo.dir, branches);
}

describe('a gate that attacks the protected target', () => {
  it('cannot move the target with anything it can read: under .git/land, or any environment', async () => {
    const { repo, moved, tried } = attackRepo(ATTACK);
    repo.git('config', '--unset', 'core.hooksPath'); // makeRepo switches hooks off; this test needs them
    expect((await land(repo.dir, ['hooks', 'install'])).code).toBe(0);
    const base = repo.tip('main');
    const ids = await submit(repo, ['b1', 'b2']);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    // The gate ran its attempts (token file, holder, state files, environments) and none moved main.
    const attempts = readFileSync(tried, 'utf8').split('\n');
    expect(attempts).toContain('token+holder');
    expect(attempts.some((line) => line.startsWith('environ '))).toBe(true);
    expect(existsSync(moved) ? readFileSync(moved, 'utf8') : '').toBe('');
    // The members landed by the drainer's own CAS, on the base they were tested on.
    const summary = run.lines().at(-1);
    expect(summary).toMatchObject({ landed: ids, contained: [] });
    const landed = run.lines().find((e) => e.type === 'landed');
    expect(landed.commit).toBe(repo.tip('main'));
    expect(repo.git('rev-parse', 'main~2')).toBe(base);
    expect(existsSync(join(repo.dir, '.git', 'land', 'token'))).toBe(false);
  }, 120_000);
});

describe('a target moved during the gate by someone other than the drainer', () => {
  // The hook is off (makeRepo points core.hooksPath at /dev/null): the gate can move main.
  const variants = {
    'to the train commit (HEAD)': 'git update-ref refs/heads/main HEAD',
    'to an untested commit on top of the train':
      'git -c user.name=g -c user.email=g@g commit -q --allow-empty -m untested && git update-ref refs/heads/main HEAD',
  };
  for (const [name, move] of Object.entries(variants)) {
    it(`${name}: the members are rebuilt and reported already contained, never landed by that move`, async () => {
      const once = `[ -e "$MOVED_FILE" ] && exit 0\necho x > "$TRIED_FILE"\n${move} && echo moved > "$MOVED_FILE"\nexit 0\n`;
      const { repo, moved } = attackRepo(`#!/bin/sh\n${once}`);
      const ids = await submit(repo, ['b1', 'b2']);
      const run = await land(repo.dir, ['run', '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(moved, 'utf8')).toBe('moved\n');
      const events = run.lines();
      expect(events.find((e) => e.type === 'requeued')?.reason).toMatch(/target moved/);
      expect(events.filter((e) => e.type === 'landed')).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: 'summary', landed: [], contained: ids });
      for (const id of ids) {
        expect(readJobFile(repo, id)).toMatchObject({ state: 'landed', landedVia: 'contained' });
        // No landing was ever recorded for them: recovery (which trusts a recorded landing whose
        // train is in the target) could not take the gate's move for this drainer's.
        const entries = journal(repo).filter((entry) => entry.job === id);
        expect(entries.map((entry) => entry.event)).not.toContain('landing');
        expect(entries.at(-1)?.event).toBe('already_contained');
      }
    }, 120_000);
  }
});

describe('the landing token of a drainer killed with kill -9', () => {
  it('authorizes nothing once its process is gone, though the token file is still there', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 't', run: ['true'] }] } });
    repo.git('config', '--unset', 'core.hooksPath');
    expect((await land(repo.dir, ['hooks', 'install'])).code).toBe(0);
    const main = repo.tip('main');
    const other = repo.branch('other', { 'o.txt': 'o\n' });
    // A process standing for a drainer in the middle of a landing: it arms a token (as the drainer
    // does right before its CAS), reports it, and waits to be killed.
    const store = join(LAND_BIN, '..', '..', 'lib', 'store', 'index.js');
    const drainer = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { openStore } = await import(${JSON.stringify(store)}); const s = await openStore(process.cwd()); process.stdout.write(s.writeToken() + '\\n'); setInterval(() => {}, 1000);`,
      ],
      { cwd: repo.dir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let token = '';
    drainer.stdout.on('data', (chunk: Buffer) => (token += chunk.toString()));
    await waitUntil('the token', () => token.endsWith('\n'), 30_000);
    token = token.trim();
    const tryMove = (to: string, from: string) => {
      const { LAND_TOKEN: _drop, ...env } = process.env;
      return spawnSync('git', ['update-ref', 'refs/heads/main', to, from], { cwd: repo.dir, env: { ...env, LAND_TOKEN: token }, encoding: 'utf8' });
    };
    // While it lives, its token moves main (and so the test's token is the real one).
    expect(tryMove(other, main).status).toBe(0);
    drainer.kill('SIGKILL');
    await new Promise((resolve) => drainer.once('exit', resolve));
    expect(existsSync(join(repo.dir, '.git', 'land', 'token'))).toBe(true);
    const refused = tryMove(main, other);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('main is protected');
    expect(repo.tip('main')).toBe(other);
  }, 120_000);
});
