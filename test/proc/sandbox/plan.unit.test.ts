// The sandbox's decisions as pure functions: the order of bubblewrap's mounts (the protections
// last), what the mode and the machine decide, which policy paths are shown and where, which tool
// folders are never shown, and how a sandbox that bwrap could not make is told from a FAIL.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { policySchema } from '../../../lib/config/index.js';
import { isLandError } from '../../../lib/errors.js';
import { keptConfigText } from '../../../lib/git/gateConfig.js';
import { policyMounts, sandboxDecision } from '../../../lib/landing/gates/sandbox.js';
import { bwrapArgs, sandboxFailed, type SandboxPlan } from '../../../lib/proc/sandbox/plan.js';
import { toolFolders } from '../../../lib/proc/sandbox/layout.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';

afterEach(cleanupTempDirs);

const plan: SandboxPlan = {
  worktree: '/repo/.git/land/trains/t1',
  gitDirs: ['/repo/.git'],
  gitConfig: '/tmp/s/config',
  alternates: ['/shared/objects'],
  hidden: ['/repo/.git/land'],
  tools: ['/opt/node/bin'],
  mounts: [{ access: 'rw', source: '/srv', dest: '/srv' }],
  worktreeMounts: [{ access: 'ro', source: '/repo/node_modules', dest: '/repo/.git/land/trains/t1/node_modules' }],
  network: false,
  scratch: { tmp: '/tmp/s/tmp', home: '/tmp/s/home' },
};

describe('bwrapArgs', () => {
  const args = bwrapArgs(
    '/usr/bin/bwrap',
    plan,
    [
      { path: '/usr', kind: 'dir' },
      { path: '/bin', kind: 'symlink', target: 'usr/bin' },
    ],
    ['npm', 'test'],
  );
  const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, k) => args[i + k] === s));

  it('mounts the protections after everything a policy adds, and the checkout after the state folder is hidden', () => {
    expect(at('--ro-bind', '/usr', '/usr')).toBeGreaterThan(0);
    expect(at('--symlink', 'usr/bin', '/bin')).toBeGreaterThan(0);
    expect(at('--bind', '/tmp/s/tmp', '/tmp')).toBeLessThan(at('--ro-bind', '/opt/node/bin', '/opt/node/bin'));
    expect(at('--bind', '/srv', '/srv')).toBeLessThan(at('--ro-bind', '/repo/.git', '/repo/.git'));
    expect(at('--ro-bind', '/repo/.git', '/repo/.git')).toBeLessThan(at('--ro-bind', '/tmp/s/config', '/repo/.git/config'));
    expect(at('--ro-bind', '/tmp/s/config', '/repo/.git/config')).toBeLessThan(at('--tmpfs', '/repo/.git/land'));
    expect(at('--tmpfs', '/repo/.git/land')).toBeLessThan(at('--bind', plan.worktree, plan.worktree));
    expect(at('--bind', plan.worktree, plan.worktree)).toBeLessThan(at('--remount-ro', '/repo/.git/land'));
    expect(at('--remount-ro', '/repo/.git/land')).toBeLessThan(at('--ro-bind', '/repo/node_modules', '/repo/.git/land/trains/t1/node_modules'));
    expect(args.slice(at('--chdir'))).toEqual(['--chdir', plan.worktree, '--', '/bin/sh', '-c', 'exec "$@"', 'land-gate', 'npm', 'test']);
  });

  it('drops every capability, every namespace, reports on fd 3, and shares the network only when asked', () => {
    expect(at('--cap-drop', 'ALL')).toBeGreaterThan(0);
    expect(at('--json-status-fd', '3')).toBe(1);
    expect(args).toContain('--unshare-all');
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--new-session');
    expect(args).not.toContain('--share-net');
    expect(bwrapArgs('/usr/bin/bwrap', { ...plan, network: true }, [], ['true'])).toContain('--share-net');
  });
});

describe('keptConfigText', () => {
  it("keeps the repository's format and file handling, and drops remotes, tokens, helpers, includes and hooks", () => {
    const list = [
      'core.repositoryformatversion\n1',
      'core.bare\nfalse',
      'extensions.objectformat\nsha256',
      'remote.origin.url\nhttps://user:token@example.invalid/repo.git',
      'http.https://example.invalid/.extraheader\nAUTHORIZATION: basic c2VjcmV0',
      'credential.helper\nstore',
      'include.path\n/home/ci/.gitconfig-extra',
      'core.fsmonitor\nsh steal.sh',
      'core.hookspath\n/tmp/hooks',
      '',
    ].join('\0');
    expect(keptConfigText(list)).toBe('[core]\n\trepositoryformatversion = "1"\n\tbare = "false"\n[extensions]\n\tobjectformat = "sha256"\n');
  });
});

describe('sandboxFailed', () => {
  it('is true when bwrap never reported the command exit', () => {
    expect(sandboxFailed('{ "child-pid": 12 }\n')).toBe(true);
    expect(sandboxFailed('')).toBe(true);
    expect(sandboxFailed('{ "child-pid": 12 }\n{ "exit-code": 1 }\n')).toBe(false);
  });
});

describe('sandboxDecision', () => {
  const bwrap = { available: true as const, mechanism: { kind: 'bwrap' as const, path: '/usr/bin/bwrap' } };
  const none = { available: false as const, why: 'bubblewrap (bwrap) is not installed' };
  it('sandboxes when it can, warns or refuses when it cannot, and never sandboxes when off', () => {
    expect(sandboxDecision('auto', bwrap)).toEqual({ kind: 'sandbox', mechanism: bwrap.mechanism });
    expect(sandboxDecision('required', bwrap).kind).toBe('sandbox');
    expect(sandboxDecision('auto', none)).toMatchObject({ kind: 'unsandboxed', mode: 'auto' });
    expect(sandboxDecision('required', none)).toMatchObject({ kind: 'refused' });
    expect(sandboxDecision('off', bwrap)).toMatchObject({ kind: 'unsandboxed', mode: 'off' });
  });
});

describe('policyMounts', () => {
  const layout = () => {
    const root = tempDir('land-mounts-');
    const top = join(root, 'repo');
    const gitReal = join(top, '.git');
    mkdirSync(join(gitReal, 'land'), { recursive: true });
    mkdirSync(join(top, 'node_modules'));
    mkdirSync(join(root, 'cache'));
    symlinkSync(top, join(root, 'alias'));
    return { root, top, gitReal, where: { topLevel: top, worktree: join(gitReal, 'land', 'trains', 't1'), gitReal } };
  };
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return isLandError(error, 'config') ? error.message : `not a config error: ${String(error)}`;
    }
    return null;
  };

  it('shows an absolute path at its real path, a relative one in the checkout, and lists what is missing', () => {
    const { root, top, where } = layout();
    const placed = policyMounts({ readOnly: ['node_modules', join(root, 'alias')], readWrite: [join(root, 'cache'), join(root, 'gone')] }, where);
    expect(placed.mounts).toEqual([
      { access: 'ro', source: top, dest: top },
      { access: 'rw', source: join(root, 'cache'), dest: join(root, 'cache') },
    ]);
    expect(placed.worktreeMounts).toEqual([{ access: 'ro', source: join(top, 'node_modules'), dest: join(where.worktree, 'node_modules') }]);
    expect(placed.missing).toEqual([join(root, 'gone')]);
  });

  it('refuses a path inside the git folder (through a symlink too) and a relative path that holds it', () => {
    const { root, where } = layout();
    expect(refusal(() => policyMounts({ readOnly: [], readWrite: ['.git/land'] }, where))).toContain('inside the git folder');
    expect(refusal(() => policyMounts({ readOnly: [], readWrite: [join(root, 'alias', '.git')] }, where))).toContain('inside the git folder');
    expect(refusal(() => policyMounts({ readOnly: [], readWrite: ['.'] }, where))).toContain('holds the git folder');
  });

  it("the policy refuses the gate's own folders", () => {
    for (const path of ['/', '/tmp', '/tmp/', '/home', '/home/land', '/proc', '/dev']) {
      expect(policySchema.safeParse({ target: 'main', sandbox: { readWrite: [path] } }).success, path).toBe(false);
    }
    expect(policySchema.safeParse({ target: 'main', sandbox: { readWrite: ['/tmp/cache'], readOnly: ['node_modules'] } }).success).toBe(true);
  });
});

describe('toolFolders', () => {
  it('never shows a folder that holds the drainer home, /tmp or the repository', () => {
    const root = tempDir('land-tools-');
    const home = join(root, 'home');
    const bin = join(home, 'bin');
    const other = join(root, 'opt-tool');
    mkdirSync(bin, { recursive: true });
    mkdirSync(other);
    const tools = toolFolders({ PATH: ['/', '/tmp', home, bin, other, 'relative/bin'].join(':') }, [], [home, '/tmp']);
    expect(tools).toContain(bin);
    expect(tools).toContain(other);
    expect(tools).not.toContain('/');
    expect(tools).not.toContain('/tmp');
    expect(tools).not.toContain(home);
  });
});
