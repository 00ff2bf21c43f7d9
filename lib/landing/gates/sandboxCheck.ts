// `land doctor`'s sandbox self-test, as Zuul checks bubblewrap at start-up: one sandbox made the
// way a gate's is (a detached checkout of the target in the trains folder, the policy's settings),
// and a probe inside it that tries what a hostile gate would: write the git folder, read the state
// folder, see the drainer's process and environment, reach a port the drainer listens on, and run
// git read commands. Each finding is a line; the verdict is whether every protection held.
import { readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Writable } from 'node:stream';
import { withDetachedWorktree } from '../../git/index.js';
import type { LoadedPolicy } from '../../config/index.js';
import type { QueueStore } from '../../store/index.js';
import { gateEnvironment } from './gateEnv.js';
import { runInGroup } from './processGroup.js';
import { gateSandboxSpec, isolationOf, sandboxMode, type SandboxHost } from './sandbox.js';

/** One protection the self-test tried, and whether it held. */
export interface SandboxFinding {
  check: 'git_folder_read_only' | 'state_hidden' | 'environment' | 'pid_namespace' | 'network' | 'git_reads' | 'private_home';
  ok: boolean;
  detail: string;
}

export interface SandboxReport {
  mode: string;
  mechanism: string | null;
  /** Why no sandbox could be made (null when one was). */
  unavailable: string | null;
  findings: SandboxFinding[];
  ok: boolean;
}

const CANARY = 'DOCTOR_CANARY_SECRET'; // not LAND_*: those the allow-list passes

/** The probe, run by Node inside the sandbox; prints one JSON object. */
const PROBE = `
const fs = require('node:fs'), net = require('node:net'), path = require('node:path'), cp = require('node:child_process');
const [gitDir, stateDir, port] = process.argv.slice(1);
const out = {};
try { fs.writeFileSync(path.join(gitDir, 'land-doctor-probe'), 'x'); out.gitWrite = 'written'; fs.unlinkSync(path.join(gitDir, 'land-doctor-probe')); } catch (e) { out.gitWrite = e.code || String(e); }
const files = (dir) => { let found = []; let names = []; try { names = fs.readdirSync(dir); } catch {} for (const n of names) { const p = path.join(dir, n); if (p === process.cwd()) continue; const s = fs.lstatSync(p); if (s.isDirectory()) found = found.concat(files(p)); else found.push(path.relative(stateDir, p)); } return found; };
out.state = files(stateDir);
out.canary = process.env.${CANARY} ?? null;
out.pidNamespace = fs.readlinkSync('/proc/self/ns/pid');
out.home = process.env.HOME;
try { fs.writeFileSync(path.join(process.env.HOME, 'probe'), 'x'); out.homeWritable = true; } catch { out.homeWritable = false; }
const log = cp.spawnSync('git', ['log', '-1', '--format=%H'], { encoding: 'utf8' });
out.gitLog = log.status === 0 ? log.stdout.trim() : 'exit ' + log.status + ': ' + (log.stderr || '').trim();
const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
const done = (net) => { out.network = net; process.stdout.write(JSON.stringify(out)); process.exit(0); };
socket.on('connect', () => done('reached'));
socket.on('error', (e) => done(e.code || String(e)));
setTimeout(() => done('timeout'), 3000);
`;

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

interface ProbeAnswer {
  gitWrite: string;
  state: string[];
  canary: string | null;
  pidNamespace: string;
  home: string;
  homeWritable: boolean;
  gitLog: string;
  network: string;
}

function findingsOf(answer: ProbeAnswer, expect: { network: boolean; tip: string; pidNamespace: string }): SandboxFinding[] {
  const gitOk = answer.gitWrite === 'EROFS' || answer.gitWrite === 'EACCES';
  const reached = answer.network === 'reached';
  return [
    {
      check: 'git_folder_read_only',
      ok: gitOk,
      detail: gitOk ? `a write into the git folder fails (${answer.gitWrite})` : `a write into the git folder: ${answer.gitWrite}`,
    },
    {
      check: 'state_hidden',
      ok: answer.state.length === 0,
      detail: answer.state.length ? `the state folder shows ${answer.state.slice(0, 5).join(', ')}` : 'the state folder is not visible',
    },
    {
      check: 'environment',
      ok: answer.canary === null,
      detail: answer.canary === null ? "a variable of the drainer's that no passEnv names is not there" : "the drainer's variable reached the gate",
    },
    {
      check: 'pid_namespace',
      ok: answer.pidNamespace !== expect.pidNamespace,
      detail:
        answer.pidNamespace === expect.pidNamespace
          ? "the drainer's PID namespace: its processes are visible"
          : "own PID namespace: the drainer's processes are not visible",
    },
    {
      check: 'network',
      ok: expect.network ? true : !reached,
      detail: expect.network
        ? `allowed by the policy (a port of the drainer's loopback: ${answer.network})`
        : reached
          ? 'a port the drainer listens on was reached'
          : `no network: a port the drainer listens on cannot be reached (${answer.network})`,
    },
    {
      check: 'git_reads',
      ok: answer.gitLog === expect.tip,
      detail: answer.gitLog === expect.tip ? '`git log` works in the checkout' : `\`git log\` in the checkout: ${answer.gitLog}`,
    },
    { check: 'private_home', ok: answer.homeWritable, detail: `HOME is ${answer.home}${answer.homeWritable ? ', fresh and writable' : ', not writable'}` },
  ];
}

/** Makes one sandbox as the drain would for `loaded`'s policy and reports what it enforces. */
export async function checkSandbox(opts: { cwd: string; store: QueueStore; loaded: LoadedPolicy; host: SandboxHost }): Promise<SandboxReport> {
  const { host, loaded } = opts;
  const mode = sandboxMode(loaded.policy.sandbox, host);
  const mechanism = host.support.available ? host.support.mechanism.path : null;
  if (!host.support.available) return { mode, mechanism, unavailable: host.support.why, findings: [], ok: false };
  // The check sandboxes whatever the mode says: it is the machine that is checked.
  const iso = isolationOf(host, { ...loaded.policy.sandbox, mode: 'required' });
  const { server, port } = await listen();
  const id = opts.store.freshLogId('doctor');
  const dir = opts.store.trainDir(id);
  let output = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      output += String(chunk);
      done();
    },
  });
  try {
    const made = await withDetachedWorktree(
      opts.cwd,
      dir,
      loaded.tip,
      async () => {
        const { spec } = gateSandboxSpec(iso, {}, dir);
        // A gate's environment, made from the drainer's with a variable no passEnv names.
        const asGate = { name: 'doctor', run: 'true', timeoutSeconds: 30, env: {}, passEnv: [] };
        const train = { LAND_TIP: loaded.tip, LAND_BASE: loaded.tip, LAND_JOB: id, LAND_MEMBERS: '', LAND_TRAIN: id };
        const env = gateEnvironment(asGate, train, { ...process.env, [CANARY]: 'never-seen' });
        const argv = [process.execPath, '-e', PROBE, host.gitDir, host.stateDir, String(port)];
        await runInGroup({ argv, cwd: dir, env, timeoutSeconds: 30, output: sink, ownsCwd: true, sandbox: spec });
      },
      { onCleanup: (left) => opts.store.removeTrainDir(left) },
    );
    if (!made.made) return { mode, mechanism, unavailable: `could not check the target out: ${made.message}`, findings: [], ok: false };
  } finally {
    server.close();
  }
  let answer: ProbeAnswer;
  try {
    answer = JSON.parse(output.trim().split('\n').pop() ?? '') as ProbeAnswer;
  } catch {
    return { mode, mechanism, unavailable: `the probe in the sandbox said: ${output.trim().slice(0, 300) || 'nothing'}`, findings: [], ok: false };
  }
  const findings = findingsOf(answer, { network: iso.policy.network, tip: loaded.tip, pidNamespace: readlinkSync('/proc/self/ns/pid') });
  return { mode, mechanism, unavailable: null, findings, ok: findings.every((f) => f.ok) };
}
