// The lane cases through a real sshd this file starts on 127.0.0.1 (test/helpers/sshd.ts), and the
// stand-in ssh checked against the real ssh. They run where sshd is installed. Under
// LAND_REQUIRE_SSHD=1 (.ci/run sets it) a missing sshd fails them; only without that variable are
// they left out (reported as skipped) on a machine without sshd.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { FAKE_SSH, SESSION_LOST, loseSession, runSsh } from '../helpers/fakeSsh.js';
import { laneCases, type TestLane } from '../helpers/laneCases.js';
import { SSHD, SSHD_REQUIRED, sshdInstalled, suiteSshd, type TestSshd } from '../helpers/sshd.js';
import { killLeftoverBatches } from '../helpers/batchWrapper.js';

const sshd = suiteSshd();
const started = (): TestSshd => sshd.started();

function realLane(): TestLane {
  const { host, config } = started();
  return { host, env: { LAND_SSH_CONFIG: config } };
}

describe.skipIf(!sshdInstalled() && !SSHD_REQUIRED)(`land batch over an ssh lane (a real sshd, ${SSHD})`, () => {
  beforeAll(() => sshd.start(tempDir('land-sshd-')));

  afterEach(() => killLeftoverBatches());

  afterAll(() => {
    sshd.stop();
    cleanupTempDirs();
  });

  it('sshd is installed and accepts a login', () => {
    expect(started().host).toBe('testlane');
  });

  // The stand-in runs every lane case (lane.test.ts); the real sshd the ones ssh itself could change.
  laneCases(realLane, 'transport');

  describe('the stand-in ssh answers as the real one does', () => {
    const cases: [string, string[], string | undefined][] = [
      ['quoting: words joined with spaces, split again by the remote shell', ['printf', '"%s|"', 'a b', "'c  d'", '$((1+2))', ';', 'echo', 'next'], undefined],
      ['the remote status', ['exit 7'], undefined],
      ['stdin, stdout and stderr', ['cat; echo err >&2'], 'from stdin\n'],
      ['the remote HOME and a fresh environment', ['pwd; echo "[$SECRET_HERE]"'], undefined],
    ];
    const env = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', SECRET_HERE: 'x' });
    const both = async (words: string[], input?: string) => {
      const { host, config } = started();
      const args = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-F', config, host, ...words];
      return { real: await runSsh('ssh', args, { env: env(), input }), fake: await runSsh(FAKE_SSH, args, { env: env(), input }) };
    };
    it.each(cases)('%s', async (_what, words, input) => {
      const { real, fake } = await both(words, input);
      expect(fake).toEqual(real);
    });

    it('a command that is not found: 127 from both (the login shell words the message its own way)', async () => {
      const { real, fake } = await both(['no-such-command-here']);
      expect([real.code, fake.code]).toEqual([127, 127]);
      expect(fake.stderr).toContain('no-such-command-here');
    });

    it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
      'killed by %s mid-session: both end at once with 255; the remote command is not signaled, its stdin ends, its output is closed',
      async (signal) => {
        const { host, config } = started();
        const args = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-F', config, host];
        // Through the test config's master connection (as the lane runs) and on a connection of its own.
        const alone = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-F', config, '-o', 'ControlPath=none', host];
        expect(await loseSession('ssh', args, signal, tempDir(), env())).toEqual(SESSION_LOST);
        expect(await loseSession('ssh', alone, signal, tempDir(), env())).toEqual(SESSION_LOST);
        expect(await loseSession(FAKE_SSH, args, signal, tempDir(), env())).toEqual(SESSION_LOST);
      },
    );

    it('a host that does not resolve: 255 from both', async () => {
      const { config } = started();
      const args = ['-o', 'BatchMode=yes', '-F', config, 'no-such-lane.invalid', 'true'];
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
      const [real, fake] = [await runSsh('ssh', args, { env }), await runSsh(FAKE_SSH, args, { env })];
      expect([real.code, fake.code]).toEqual([255, 255]);
      expect(fake.stderr).toContain('Could not resolve hostname no-such-lane.invalid');
      expect(real.stderr).toContain('no-such-lane.invalid');
    });
  });
});
