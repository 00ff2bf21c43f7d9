// The stand-in ssh the lane tests run through (fixtures/ssh/fake-ssh): it must do what ssh does
// with what land passes it, or the lane tests would prove nothing. laneSshd.test.ts compares it
// with the real ssh where an sshd is installed.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { FAKE_SSH, SESSION_LOST, loseSession, runSsh } from '../helpers/fakeSsh.js';

afterAll(() => cleanupTempDirs());

const base = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('land-fake-home-') });

describe('the stand-in ssh', () => {
  it('joins the remote words with spaces and hands them to sh -c, as sshd does (the caller quotes)', async () => {
    const r = await runSsh(FAKE_SSH, ['-o', 'BatchMode=yes', 'lane', 'printf', '"%s|"', 'a b', "'c  d'", '$((1+2))', ';', 'echo', 'next'], { env: base() });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('a|b|c  d|3|next\n');
  });

  it("starts in the remote user's HOME with a fresh environment; stdin, stdout and stderr pass through", async () => {
    const env = { ...base(), SECRET_HERE: 'x', LANG: 'C.UTF-8' };
    const r = await runSsh(FAKE_SSH, ['lane', 'pwd; echo "[$SECRET_HERE][$LANG]"; cat; echo err >&2'], { env, input: 'from stdin\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${env.HOME}\n[][C.UTF-8]\nfrom stdin\n`);
    expect(r.stderr).toBe('err\n');
    const home = tempDir('land-fake-home-');
    expect((await runSsh(FAKE_SSH, ['lane', 'pwd'], { env: { ...base(), FAKE_SSH_HOME: home } })).stdout).toBe(`${home}\n`);
  });

  it("exits with the remote command's status, and 255 when the host does not resolve", async () => {
    expect((await runSsh(FAKE_SSH, ['lane', 'exit 7'], { env: base() })).code).toBe(7);
    expect((await runSsh(FAKE_SSH, ['lane', 'no-such-command-here'], { env: base() })).code).toBe(127);
    const unknown = await runSsh(FAKE_SSH, ['-o', 'ConnectTimeout=5', 'user@lane.invalid', 'true'], { env: base() });
    expect(unknown.code).toBe(255);
    expect(unknown.stderr).toContain('Could not resolve hostname lane.invalid');
    const unlisted = await runSsh(FAKE_SSH, ['other', 'true'], { env: { ...base(), FAKE_SSH_HOSTS: 'lane, lane2' } });
    expect(unlisted.code).toBe(255);
    expect((await runSsh(FAKE_SSH, ['lane2', 'true'], { env: { ...base(), FAKE_SSH_HOSTS: 'lane, lane2' } })).code).toBe(0);
  });

  it("parses ssh's options: combined flags, attached values, options after the host, a missing -F file", async () => {
    const r = await runSsh(FAKE_SSH, ['-qT', '-oBatchMode=yes', '-p', '22', 'lane', '-o', 'ConnectTimeout=5', 'echo', 'ok'], { env: base() });
    expect(r).toMatchObject({ code: 0, stdout: 'ok\n' });
    const noConfig = await runSsh(FAKE_SSH, ['-F', join(tempDir(), 'missing'), 'lane', 'true'], { env: base() });
    expect(noConfig.code).toBe(255);
    expect(noConfig.stderr).toContain("Can't open user config file");
    expect((await runSsh(FAKE_SSH, ['-Z', 'lane', 'true'], { env: base() })).code).toBe(255);
    expect((await runSsh(FAKE_SSH, ['lane'], { env: base() })).code).toBe(255);
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s ends it at once with 255, as ssh without a terminal: the remote command is not signaled, its stdin ends, its output is closed',
    async (signal) => {
      expect(await loseSession(FAKE_SSH, ['lane'], signal, tempDir(), base())).toEqual(SESSION_LOST);
    },
  );

  it('ends only when the remote output is closed (a background process still writing is waited for)', async () => {
    const r = await runSsh(FAKE_SSH, ['lane', '(sleep 0.5; echo late) & echo early'], { env: base() });
    expect(r).toMatchObject({ code: 0, stdout: 'early\nlate\n' });
  });
});
