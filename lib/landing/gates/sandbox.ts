// Whether and how a gate runs in a sandbox (docs/sandbox.md). The machine's support and the
// repository's folders are resolved once per command (SandboxHost); the policy, read from the
// target per train, decides the mode and what each gate may see besides its checkout.
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Gate, Policy, SandboxMode, SandboxPolicy } from '../../config/index.js';
import { LandError } from '../../errors.js';
import { within, type Mechanism, type SandboxMount, type SandboxSpec, type SandboxSupport, type SystemEntry } from '../../proc/sandbox/index.js';

/** What a command resolved once: the machine's sandbox support and the repository's folders. */
export interface SandboxHost {
  support: SandboxSupport;
  system: readonly SystemEntry[];
  tools: readonly string[];
  /** The git common dir, as git names it: read-only in the sandbox. */
  gitDir: string;
  /** Its real path (symlinks resolved): read-only too, and what policy paths are checked against. */
  gitReal: string;
  /** What a gate's git sees as the repository's config: the kept settings only (lib/git/gateConfig.ts). */
  gitConfigText: string;
  /** The state folder (`<git dir>/land`, every queue's): not visible at all. */
  stateDir: string;
  /** The repository's top-level folder, against which relative policy paths are read (null: bare). */
  topLevel: string | null;
  alternates: readonly string[];
  /** The mode when the policy names none: auto for a clone's own queue, required for a remote one. */
  defaultMode: 'auto' | 'required';
}

/** What the mode and the machine decide for every gate of a run. */
export type SandboxDecision =
  | { kind: 'sandbox'; mechanism: Mechanism }
  | { kind: 'unsandboxed'; mode: 'off' | 'auto'; warning: string }
  | { kind: 'refused'; message: string };

/** The mode in force: the policy's, else the queue's default. */
export function sandboxMode(policy: SandboxPolicy, host: Pick<SandboxHost, 'defaultMode'>): SandboxMode {
  return policy.mode ?? host.defaultMode;
}

/** Pure: the mode and what the machine offers decide whether gates are sandboxed, run plain, or refused. */
export function sandboxDecision(mode: SandboxMode, support: SandboxSupport): SandboxDecision {
  if (mode === 'off') {
    return {
      kind: 'unsandboxed',
      mode: 'off',
      warning: "sandbox.mode is off: gates run unsandboxed, and every queued change is trusted with the drainer's files and credentials",
    };
  }
  if (support.available) return { kind: 'sandbox', mechanism: support.mechanism };
  if (mode === 'auto') {
    return {
      kind: 'unsandboxed',
      mode: 'auto',
      warning: `no sandbox: gates run unsandboxed (${support.why}); a queued change's code can reach the drainer's files (docs/sandbox.md)`,
    };
  }
  return { kind: 'refused', message: `sandbox.mode is required and there is no sandbox on this machine: ${support.why}` };
}

/** The error a required sandbox that cannot be made stops a command with (exit 14, nothing failed). */
export function noSandboxError(message: string): LandError {
  return new LandError('no_sandbox', message, {
    hint: 'install bubblewrap (apt-get install bubblewrap) and run `land doctor`; or set sandbox.mode in .ctm.json (docs/sandbox.md)',
  });
}

/** A run's isolation: the host and the policy's sandbox section, with the decision they make. */
export interface Isolation {
  host: SandboxHost;
  policy: SandboxPolicy;
  decision: SandboxDecision;
}

export function isolationOf(host: SandboxHost, policy: SandboxPolicy): Isolation {
  return { host, policy, decision: sandboxDecision(sandboxMode(policy, host), host.support) };
}

/** The real path of `path` (symlinks resolved), or null when nothing is there. */
function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

const insideGit = (path: string, gitReal: string) =>
  new LandError('config', `sandbox: ${path} is inside the git folder ${gitReal}, which a gate never sees writable or whole`);

/**
 * Policy paths as mounts, each by its real path (symlinks resolved): an absolute one at that real
 * path, so the protections mounted after it at the git folder's real path cover whatever of the
 * repository it holds; a relative one from the top level into the checkout, refused when it holds
 * the git folder (its view in the checkout would not be covered). A path inside the git folder is
 * refused either way (exit 3); one that does not exist is listed in `missing`.
 */
export function policyMounts(
  paths: { readOnly: readonly string[]; readWrite: readonly string[] },
  where: { topLevel: string | null; worktree: string; gitReal: string },
): { mounts: SandboxMount[]; worktreeMounts: SandboxMount[]; missing: string[] } {
  const mounts: SandboxMount[] = [];
  const worktreeMounts: SandboxMount[] = [];
  const missing: string[] = [];
  const add = (path: string, access: 'ro' | 'rw') => {
    if (!isAbsolute(path) && where.topLevel === null)
      throw new LandError('config', `sandbox: ${path} is relative, and this repository has no top-level folder (bare)`);
    const source = isAbsolute(path) ? resolve(path) : resolve(where.topLevel as string, path);
    const real = realOrNull(source);
    if (real === null) return void missing.push(source);
    if (within(real, where.gitReal)) throw insideGit(path, where.gitReal);
    if (isAbsolute(path)) return void mounts.push({ access, source: real, dest: real });
    if (within(where.gitReal, real))
      throw new LandError('config', `sandbox: ${path} holds the git folder ${where.gitReal}; name the folders inside it the gates need`);
    worktreeMounts.push({ access, source: real, dest: resolve(where.worktree, path) });
  };
  for (const path of paths.readOnly) add(path, 'ro');
  for (const path of paths.readWrite) add(path, 'rw');
  // Parents before children, so a folder shown inside another is not covered by it.
  const byDepth = (a: SandboxMount, b: SandboxMount) => a.dest.split('/').length - b.dest.split('/').length;
  return { mounts: mounts.sort(byDepth), worktreeMounts: worktreeMounts.sort(byDepth), missing };
}

/** The sandbox settings of one gate (or refresh entry): the policy's, with the gate's additions. */
export type GateSandboxSettings = Pick<Gate, 'network' | 'readOnly' | 'readWrite'>;

const pathsOf = (policy: SandboxPolicy, gate: GateSandboxSettings) => ({
  readOnly: [...policy.readOnly, ...(gate.readOnly ?? [])],
  readWrite: [...policy.readWrite, ...(gate.readWrite ?? [])],
});

/**
 * Every gate's (and the refresh entries') sandbox paths checked before a drain takes a job: a path
 * inside the git folder is the policy's error (exit 3), not a train's. Nothing to check unsandboxed.
 */
export function checkSandboxPaths(iso: Isolation, gates: readonly GateSandboxSettings[]): void {
  if (iso.decision.kind !== 'sandbox') return;
  for (const gate of [{}, ...gates]) policyMounts(pathsOf(iso.policy, gate), { topLevel: iso.host.topLevel, worktree: '/', gitReal: iso.host.gitReal });
}

/**
 * Whether gates can run as the policy says, checked by a drain at its start and again for every
 * policy a pass reads (the target may have moved): a required sandbox this machine cannot make
 * stops the drain before it takes a job (exit 14), and so does a sandbox path inside the git folder
 * (exit 3). Returns the warning a drain gives at its start when gates will run unsandboxed. A policy
 * without gates or refresh entries runs none of a change's code: nothing to check.
 */
export function gateIsolationWarning(policy: Pick<Policy, 'gates' | 'refresh' | 'sandbox'>, host: SandboxHost): string | null {
  if (!policy.gates.length && !policy.refresh.length) return null;
  const iso = isolationOf(host, policy.sandbox);
  if (iso.decision.kind === 'refused') throw noSandboxError(iso.decision.message);
  checkSandboxPaths(iso, policy.gates);
  return iso.decision.kind === 'unsandboxed' ? describeIsolation(iso) : null;
}

/**
 * The sandbox one gate runs in, or null when gates run unsandboxed. Policy paths that do not exist
 * are left out, each with a note for the log. Throws the no-sandbox error for a refused decision.
 */
export function gateSandboxSpec(iso: Isolation, gate: GateSandboxSettings, worktree: string): { spec: SandboxSpec | null; notes: string[] } {
  const { host, policy, decision } = iso;
  if (decision.kind === 'refused') throw noSandboxError(decision.message);
  if (decision.kind === 'unsandboxed') return { spec: null, notes: [] };
  const placed = policyMounts(pathsOf(policy, gate), { topLevel: host.topLevel, worktree, gitReal: host.gitReal });
  const spec: SandboxSpec = {
    mechanism: decision.mechanism,
    system: host.system,
    worktree,
    gitDirs: unique([host.gitDir, host.gitReal]),
    gitConfigText: host.gitConfigText,
    alternates: host.alternates.filter((dir) => existsSync(dir)),
    hidden: unique([host.stateDir, realOrNull(host.stateDir) ?? host.stateDir]),
    tools: host.tools,
    mounts: placed.mounts,
    worktreeMounts: placed.worktreeMounts,
    network: gate.network ?? policy.network,
  };
  return { spec, notes: placed.missing.map((path) => `sandbox: ${path} does not exist; not shown to the gate`) };
}

const unique = (paths: readonly string[]) => [...new Set(paths)];

/** The sandbox of one gate or refresh entry run, its notes written to the run's log (null: unsandboxed). */
export function sandboxForRun(
  iso: Isolation | null | undefined,
  settings: GateSandboxSettings,
  worktree: string,
  log: { line(text: string): void },
): SandboxSpec | null {
  if (!iso) return null;
  const { spec, notes } = gateSandboxSpec(iso, settings, worktree);
  for (const note of notes) log.line(`== ${note}`);
  return spec;
}

/** One line saying how gates run, for `land config`, `land status` and the drain's start. */
export function describeSandbox(mode: SandboxMode, decision: SandboxDecision, network: boolean): string {
  switch (decision.kind) {
    case 'sandbox':
      return `sandbox: on (mode ${mode}, ${decision.mechanism.path}; network ${network ? 'allowed' : 'off'})`;
    case 'unsandboxed':
      return `sandbox: OFF (mode ${mode}): ${decision.warning}`;
    case 'refused':
      return `sandbox: REFUSED (mode ${mode}): ${decision.message}`;
    default: {
      const never: never = decision;
      return String(never);
    }
  }
}

export function describeIsolation(iso: Isolation): string {
  return describeSandbox(sandboxMode(iso.policy, iso.host), iso.decision, iso.policy.network);
}
