// A team around one remote, reached through either transport a team uses: file:// (the bare
// repository on this machine) or ssh:// through a real sshd on 127.0.0.1 (test/helpers/sshd.ts).
// Builds on test/helpers/remoteTeam.ts (makeTeam: the bare remote seeded with a main whose policy keeps the
// queue in it; separate clones for separate hosts). Over ssh, every clone carries core.sshCommand in
// its own git config, as a developer's clone would, so `land` (which runs git as a child) and plain
// git commands in the clone both reach the server without any extra environment.
//
//   for (const t of transportCases()) describe.skipIf(!t.available)(t.title, () => { ... makeRemoteSetup({ transport: t.transport }) ... });
//   afterAll(stopRemoteServers);
//
// Where sshd is not installed: with LAND_REQUIRE_SSHD=1 (CI) 'ssh' is still a transport and
// makeRemoteSetup fails saying what is missing; without it the ssh cases are left out, reported as
// skipped under a title that says what they need.
import { tempDir } from './repo.js';
import { SSHD, SSHD_REQUIRED, gitSshCommand, sshdInstalled, startSshd, type TestSshd } from './sshd.js';
import { makeTeam, queuePolicy, type Clone, type Team } from './remoteTeam.js';

export type Transport = 'file' | 'ssh';

export interface RemoteSetup extends Team {
  transport: Transport;
}

export interface TransportCase {
  transport: Transport;
  /** False only for ssh where sshd is missing and LAND_REQUIRE_SSHD is not set. */
  available: boolean;
  /** A describe title; for a missing sshd, it says what the cases need. */
  title: string;
}

/** Both transports, each with whether it can run here and a title that says why not. */
export function transportCases(): TransportCase[] {
  const ssh = sshdInstalled() || SSHD_REQUIRED;
  return [
    { transport: 'file', available: true, title: 'over file://' },
    {
      transport: 'ssh',
      available: ssh,
      title: ssh
        ? `over ssh:// (a real sshd on 127.0.0.1, ${SSHD})`
        : `over ssh:// (needs ${SSHD}: apt-get install openssh-server, or LAND_TEST_SSHD=<path to sshd>; LAND_REQUIRE_SSHD=1 makes its absence a failure)`,
    },
  ];
}

/** ['file'], plus 'ssh' where a real sshd can run (or LAND_REQUIRE_SSHD=1 demands it). */
export function transports(): Transport[] {
  return transportCases()
    .filter((t) => t.available)
    .map((t) => t.transport);
}

// One sshd per test file (vitest runs each file in its own process), started on first use.
let sshd: Promise<TestSshd> | null = null;

function serverSshd(): Promise<TestSshd> {
  if (sshd === null) {
    sshd = startSshd(tempDir('land-remote-sshd-')).catch((error: unknown) => {
      const message = (error as Error).message;
      throw new Error(SSHD_REQUIRED ? `LAND_REQUIRE_SSHD=1: ${message}` : message);
    });
  }
  return sshd;
}

/** Stops the sshd this file started, if any (afterAll). */
export async function stopRemoteServers(): Promise<void> {
  const started = sshd;
  sshd = null;
  if (started) (await started.catch(() => null))?.stop();
}

/**
 * A bare remote seeded with `policy` on main (default: queuePolicy(), the queue in origin with a
 * 4 s lease and 0.3 s polls) and clones of it over `transport`.
 */
export async function makeRemoteSetup(opts: { transport?: Transport; policy?: Record<string, unknown> } = {}): Promise<RemoteSetup> {
  const transport = opts.transport ?? 'file';
  const policy = opts.policy ?? queuePolicy();
  if (transport === 'file') return { ...makeTeam({ policy }), transport };
  const server = await serverSshd();
  const team = makeTeam({
    policy,
    url: (bare) => `ssh://${server.user}@127.0.0.1:${server.port}${bare}`,
    sshCommand: gitSshCommand(server),
  });
  return { ...team, transport };
}

/** A separate clone of the setup's remote (its own directory, `git clone <url>`), named for messages. */
export function cloneOf(setup: RemoteSetup, name?: string): Clone {
  return setup.clone(name);
}
