// The throwaway sshd of the lane, remote-queue and executor tests (bench/sshd.ts, shared with the
// benchmark), with the master connection the tests' own ssh and git reuse. Git reaches it through
// ssh://<user>@127.0.0.1:<port>/<path> with gitSshCommand(). Stopped by its pid afterwards.
import { SSHD, sshdInstalled, startSshd as startSharedSshd, type TestSshd } from '../../bench/sshd.js';

export { SSHD, sshdInstalled, type TestSshd };

/** Set by .ci/run: a missing sshd fails the real-sshd lane tests instead of leaving them out. */
export const SSHD_REQUIRED = process.env.LAND_REQUIRE_SSHD === '1';

/**
 * The ssh command git runs to reach `sshd` at ssh://<user>@127.0.0.1:<port>/... (core.sshCommand or
 * GIT_SSH_COMMAND): the client key only, no user ssh config, no host-key or password prompt. Each
 * git command is its own session through the master connection startSshd keeps (its ControlPath's
 * %C is the same for 127.0.0.1, the port and the user), which saves a key exchange per fetch or
 * push on a slow machine; without the master, ssh connects on its own.
 */
export function gitSshCommand(sshd: Pick<TestSshd, 'port' | 'clientKey' | 'controlPath'>): string {
  return [
    'ssh',
    '-F /dev/null',
    `-i ${sshd.clientKey}`,
    `-p ${sshd.port}`,
    '-o IdentitiesOnly=yes',
    '-o StrictHostKeyChecking=no',
    '-o UserKnownHostsFile=/dev/null',
    '-o BatchMode=yes',
    '-o LogLevel=ERROR',
    '-o ControlMaster=no',
    `-o ControlPath=${sshd.controlPath}`,
  ].join(' ');
}

/** The tests' sshd: the shared one (bench/sshd.ts) with a master connection every ssh through its config reuses. */
export function startSshd(dir: string): Promise<TestSshd> {
  return startSharedSshd(dir, { master: true });
}

/**
 * One sshd for a test file: started in its beforeAll, stopped in its afterAll. A start that fails is
 * reported by every test that asks for it (started() throws), so that a missing sshd counts as failed
 * tests; with LAND_REQUIRE_SSHD=1 the error says so.
 */
export function suiteSshd(): { start(dir: string): Promise<void>; started(): TestSshd; stop(): void } {
  let sshd: TestSshd | null = null;
  let startError: unknown = null;
  return {
    async start(dir) {
      try {
        sshd = await startSshd(dir);
      } catch (error) {
        startError = SSHD_REQUIRED ? new Error(`LAND_REQUIRE_SSHD=1: ${(error as Error).message}`) : error;
      }
    },
    started() {
      if (startError !== null) throw startError;
      if (sshd === null) throw new Error('the test sshd was not started');
      return sshd;
    },
    stop() {
      sshd?.stop();
    },
  };
}
