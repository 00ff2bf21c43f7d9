// The sandbox's cost per gate (docs/sandbox.md): the same gate (`true`) run through the gate
// runner's own path (lib/landing/gates/processGroup.ts) in a train-like checkout of a real
// repository, sandboxed and not, one after the other; the cost is the difference of the medians.
// Without bubblewrap the row says so and has no figures.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gateSandboxSpec, isolationOf } from '../lib/landing/gates/sandbox.js';
import { resolveSandboxHost } from '../lib/landing/gates/sandboxHost.js';
import { runInGroup } from '../lib/landing/gates/processGroup.js';
import { policySchema } from '../lib/config/index.js';
import { localStore } from '../lib/store/index.js';

export interface SandboxRow {
  runs: number;
  mechanism: string | null;
  /** Median wall of one gate run, unsandboxed and sandboxed (null: no sandbox here). */
  plainMs: number;
  sandboxedMs: number | null;
  /** sandboxedMs - plainMs: what the sandbox adds to every gate. */
  perGateMs: number | null;
  note: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const round = (ms: number) => Math.round(ms * 10) / 10;

export async function measureSandbox(root: string, opts: { runs: number; progress: (line: string) => void }): Promise<SandboxRow> {
  const repo = join(root, 'sandbox-repo');
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '--allow-empty', '-m', 'init');
  const state = join(repo, '.git', 'land');
  const worktree = join(state, 'trains', 'bench');
  git('worktree', 'add', '-q', '--detach', worktree, 'HEAD');
  const host = await resolveSandboxHost(repo, localStore(state), { probe: true });
  const policy = policySchema.parse({ target: 'main', sandbox: { mode: 'required' } });
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const once = async (sandboxed: boolean): Promise<number> => {
    const spec = sandboxed ? gateSandboxSpec(isolationOf(host, policy.sandbox), {}, worktree).spec : null;
    const started = performance.now();
    await runInGroup({
      argv: ['true'],
      cwd: worktree,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutSeconds: 30,
      output: sink,
      ownsCwd: true,
      sandbox: spec,
    });
    return performance.now() - started;
  };
  const plain: number[] = [];
  const boxed: number[] = [];
  for (let i = 0; i < opts.runs; i += 1) {
    plain.push(await once(false));
    if (host.support.available) boxed.push(await once(true));
  }
  opts.progress(`sandbox: ${opts.runs} runs each`);
  if (!host.support.available)
    return { runs: opts.runs, mechanism: null, plainMs: round(median(plain)), sandboxedMs: null, perGateMs: null, note: host.support.why };
  const plainMs = round(median(plain));
  const sandboxedMs = round(median(boxed));
  return {
    runs: opts.runs,
    mechanism: host.support.mechanism.path,
    plainMs,
    sandboxedMs,
    perGateMs: round(sandboxedMs - plainMs),
    note: 'gate `true` through the gate runner, median of each',
  };
}
