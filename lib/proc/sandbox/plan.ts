// What a gate's sandbox is made of (docs/sandbox.md), and the bubblewrap command line that makes
// it. Pure: the folders are found and checked by ./layout.ts; this module only orders the mounts.
// The order is the security: later mounts cover earlier ones, so the protections (the git folder
// read-only, the state folder hidden) come after everything a policy may add, and a policy path
// can never open them again.

/** A folder of the machine shown in the sandbox: read-only or read-write, at `dest`. */
export interface SandboxMount {
  access: 'ro' | 'rw';
  source: string;
  dest: string;
}

/** A system folder: a real folder (shown read-only) or a symlink kept as a symlink (merged /usr). */
export type SystemEntry = { path: string; kind: 'dir' } | { path: string; kind: 'symlink'; target: string };

export interface SandboxPlan {
  /** The train's checkout: read-write, the gate's working folder. */
  worktree: string;
  /** The repository's git folder (the common dir), as named and by its real path: read-only. */
  gitDirs: readonly string[];
  /** A file shown as the git folder's `config` (the kept settings only), or null: the real one. */
  gitConfig: string | null;
  /** Folders of other object stores the repository borrows from (objects/info/alternates): read-only. */
  alternates: readonly string[];
  /** Folders shown empty (the state folder): nothing of them is visible. */
  hidden: readonly string[];
  /** The folders of the tools a gate runs (PATH, Node, land itself): read-only. */
  tools: readonly string[];
  /** What the policy adds at absolute paths (shown before the protections). */
  mounts: readonly SandboxMount[];
  /** What the policy adds inside the checkout (relative paths; shown after it). */
  worktreeMounts: readonly SandboxMount[];
  network: boolean;
  /** This run's private /tmp and HOME, on the host, removed afterwards. */
  scratch: { tmp: string; home: string };
}

/** Where the gate's HOME is inside the sandbox. */
export const SANDBOX_HOME = '/home/land';

/** Folders a gate must keep for itself: a policy path that covers one of them is refused. */
export const SANDBOX_PRIVATE = ['/', '/tmp', '/home', SANDBOX_HOME, '/proc', '/dev'] as const;

/**
 * The bwrap argv that runs `argv` in the sandbox. The command runs through `sh -c 'exec "$@"'` so a
 * command that cannot be found or run exits 127 or 126 as it would outside (bwrap itself says 1).
 * bwrap reports on fd 3 (--json-status-fd): an `exit-code` line only once the command ran, so a
 * sandbox that could not be made is told from a command that exited 1 (sandboxFailed).
 */
export function bwrapArgs(bwrap: string, plan: SandboxPlan, system: readonly SystemEntry[], argv: readonly string[]): string[] {
  const args = [
    bwrap,
    '--json-status-fd',
    '3',
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
  ];
  for (const entry of system) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--bind', plan.scratch.tmp, '/tmp', '--bind', plan.scratch.home, SANDBOX_HOME);
  for (const tool of plan.tools) args.push('--ro-bind', tool, tool);
  for (const mount of plan.mounts) args.push(mount.access === 'ro' ? '--ro-bind' : '--bind', mount.source, mount.dest);
  for (const gitDir of plan.gitDirs) {
    args.push('--ro-bind', gitDir, gitDir);
    if (plan.gitConfig !== null) args.push('--ro-bind', plan.gitConfig, `${gitDir}/config`);
  }
  for (const store of plan.alternates) args.push('--ro-bind', store, store);
  for (const folder of plan.hidden) args.push('--tmpfs', folder);
  args.push('--bind', plan.worktree, plan.worktree);
  // Read-only once the checkout's mount point (which may lie inside one) is made.
  for (const folder of plan.hidden) args.push('--remount-ro', folder);
  for (const mount of plan.worktreeMounts) args.push(mount.access === 'ro' ? '--ro-bind' : '--bind', mount.source, mount.dest);
  args.push('--chdir', plan.worktree, '--', '/bin/sh', '-c', 'exec "$@"', 'land-gate', ...argv);
  return args;
}

/** bwrap's fd-3 report of a run that exited: true when the sandbox never ran the command. */
export function sandboxFailed(status: string): boolean {
  return !status.includes('"exit-code"');
}
