// A team around one remote: a bare repository (the git server) seeded with a main branch whose
// policy keeps the queue in that remote, and separate clones of it standing for separate hosts
// (developer laptops, CI runners). Reached through file:// here; test/helpers/remote.ts adds ssh://.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitConfigLines } from './gitSettings.js';
import { fastBranchable, fastCommits, makeRepo, sh, tempDir } from './repo.js';

export interface Clone {
  dir: string;
  git(...args: string[]): string;
  /** A branch from origin/main (or `from`) with one commit writing `files`, left unchecked-out; returns its tip. */
  branch(branch: string, files: Record<string, string>, from?: string): string;
  tip(ref: string): string;
}

export interface Team {
  /** The bare repository standing for the git server. */
  bare: string;
  url: string;
  clone(name?: string): Clone;
  /** `git` run in the server repository. */
  server(...args: string[]): string;
}

export const PASS_GATE = [{ name: 'test', run: ['sh', '-c', 'test ! -e broken'] }];

export function queuePolicy(queue: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { target: 'main', gates: PASS_GATE, queue: { remote: 'origin', leaseSeconds: 4, pollSeconds: 1, ...queue }, ...extra };
}

function wrap(dir: string, committer: string): Clone {
  const git = (...args: string[]) => sh(dir, args);
  return {
    dir,
    git,
    tip: (ref) => git('rev-parse', ref),
    branch: (branch, files, from = 'origin/main') => {
      if (fastBranchable(dir, branch)) {
        // The same commit as below, without checking it out; HEAD ends detached at origin/main either way.
        const [tip] = fastCommits(dir, [{ ref: `refs/heads/${branch}`, message: `change on ${branch}`, files, from }], committer);
        git('checkout', '-q', '--detach', 'origin/main');
        return tip as string;
      }
      git('checkout', '-q', '-b', branch, from);
      for (const [path, content] of Object.entries(files)) {
        const full = join(dir, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
      git('add', '-A');
      git('commit', '-q', '-m', `change on ${branch}`);
      const tip = git('rev-parse', 'HEAD');
      git('checkout', '-q', '--detach', 'origin/main');
      return tip;
    },
  };
}

/** A bare remote seeded with `policy` on main, and a way to make clones of it. */
export function makeTeam(opts: { policy?: Record<string, unknown>; url?: (bare: string) => string; sshCommand?: string } = {}): Team {
  const seed = makeRepo({ policy: opts.policy ?? queuePolicy() });
  const bare = join(tempDir('land-remote-'), 'server.git');
  sh(dirname(bare), ['init', '-q', '--bare', '-b', 'main', bare]);
  // The server's own settings (as the environment's, test/helpers/gitSettings.ts, which sshd does not pass on).
  appendFileSync(join(bare, 'config'), gitConfigLines());
  const url = opts.url ? opts.url(bare) : `file://${bare}`;
  seed.git('push', '-q', bare, 'main:main');
  let n = 0;
  return {
    bare,
    url,
    server: (...args) => sh(bare, args),
    clone: (name) => {
      n += 1;
      const dir = join(tempDir(`land-clone-${name ?? n}-`), 'work');
      // `clone -c` writes each setting into the new clone's config: one git process for all of them.
      const settings = {
        'user.name': `dev ${name ?? n}`,
        'user.email': `dev${n}@land.invalid`,
        'commit.gpgSign': 'false',
        'gc.auto': '0',
        'core.hooksPath': '/dev/null',
        ...(opts.sshCommand ? { 'core.sshCommand': opts.sshCommand } : {}),
      };
      const cloneArgs = Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
      sh(dirname(dir), ['clone', '-q', '--no-checkout', ...cloneArgs, url, dir]);
      const clone = wrap(dir, `${settings['user.name']} <${settings['user.email']}>`);
      clone.git('checkout', '-q', '--detach', 'origin/main');
      return clone;
    },
  };
}
