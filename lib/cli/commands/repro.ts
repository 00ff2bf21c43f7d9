import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import type { Command } from 'commander';
import { EXIT_CODES, LandError } from '../../errors.js';
import { commandOf } from '../../landing/gates/gateRunner.js';
import { readJobOrThrow } from '../../queue/index.js';
import { rebuildFailedTrain, runReproGates, type ReproTrain } from '../../story/repro.js';
import { TerminalSink } from '../../story/terminalSink.js';
import { action } from '../action.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';
import { showName, short } from '../output.js';

interface ReproOptions {
  run?: boolean;
  dir?: string;
  json?: boolean;
}

function describe(repro: ReproTrain): string[] {
  const { row, built } = repro;
  const out: string[] = [];
  const add = (key: string, value: string) => out.push(`  ${key.padEnd(9)} ${value}`);
  out.push(`rebuilt train ${row.train}, the latest failed train of ${repro.job.id}, in ${repro.dir}`);
  if (repro.from !== null) add('from', `the metrics drainer ${repro.from} published (its base and tips checked against this clone's target and queue)`);
  add('base', `${row.base} (the target's tip the train was built on)`);
  for (const [i, id] of row.members.entries()) add(i === 0 ? 'members' : '', `${showName(row.branches?.[i] ?? id)} (${id}) at ${short(row.tips[i])}`);
  add('kind', built.kind);
  add('commit', `${built.train}${row.commit && row.commit !== built.train ? ` (new; the failed train's commit was ${row.commit})` : ''}`);
  const same = [repro.treeMatchesTrain ? "the failed train's tree" : null, repro.treeMatchesRecord ? "the job record's tree" : null].filter(Boolean);
  add('tree', `${built.tree}${same.length ? `: ${same.join(' and ')}` : `: DIFFERS from the failed train's tree ${row.tree ?? '(not recorded)'}`}`);
  if (repro.restored.length) {
    add('trusted', `${repro.restored.join(', ')} restored from the base, as the drainer gated them (tree checked out: ${repro.gatedTree})`);
  }
  add(
    'verdict',
    `${row.verdict} (${row.reason ?? '?'})${row.cached ? ` from the verdict cache (train ${row.gate?.cachedFrom ?? '?'})` : ''}${row.log ? `; log ${row.log}` : ''}`,
  );
  out.push(`gates, from the policy on the train's base (${short(row.base)}), as the drainer ran them:`);
  if (repro.policyMatches === false) out.push('  note: these gates differ from the ones whose hash the train recorded');
  if (repro.sandboxRaised) out.push(`  note: sandbox.mode ${repro.sandbox.mode}, the current target's: the base's policy asked for less`);
  for (const gate of repro.gates) {
    out.push(`  ${gate.name}: ${JSON.stringify(commandOf(gate))} (timeout ${gate.timeoutSeconds}s)`);
    for (const [name, value] of Object.entries(gate.env)) out.push(`    ${name}=${value}`);
    if (gate.passEnv.length) out.push(`    passes through: ${gate.passEnv.join(' ')}`);
  }
  out.push('environment of the train:');
  for (const [name, value] of Object.entries(repro.env)) out.push(`  ${name}=${value}`);
  return out;
}

function summary(repro: ReproTrain) {
  const { row, built } = repro;
  return {
    job: repro.job.id,
    train: row.train,
    from: repro.from,
    sandboxMode: repro.sandbox.mode ?? null,
    batch: row.batch,
    dir: repro.dir,
    base: row.base,
    kind: built.kind,
    members: row.members.map((id, i) => ({ id, branch: row.branches?.[i] ?? null, tip: row.tips[i] })),
    commit: built.train,
    failedCommit: row.commit ?? null,
    tree: built.tree,
    failedTree: row.tree ?? null,
    recordTree: repro.job.tree,
    treeMatchesTrain: repro.treeMatchesTrain,
    treeMatchesRecord: repro.treeMatchesRecord,
    gatedTree: repro.gatedTree,
    restored: repro.restored,
    verdict: row.verdict,
    reason: row.reason ?? null,
    log: row.log ?? null,
    policyMatches: repro.policyMatches,
    gates: repro.gates.map((gate) => ({ name: gate.name, argv: commandOf(gate), timeoutSeconds: gate.timeoutSeconds, env: gate.env, passEnv: gate.passEnv })),
    env: repro.env,
    remove: ['git', 'worktree', 'remove', '--force', repro.dir],
  };
}

export function registerRepro(program: Command): void {
  program
    .command('repro')
    .argument('[job]', JOB_ARG_HELP)
    .description(
      "rebuild the latest train in which a job failed (same base, members, tips and merges) in a new worktree outside the state folder, and print its gates; --run runs them there, in the current target's sandbox. A train whose base is not in the target's history, or whose tips the queue never recorded, is refused (exit 5)",
    )
    .option('--run', 'run the gates in the rebuilt worktree (output to the terminal): exit 0 when they pass, 5 when one fails')
    .option('--dir <path>', 'rebuild in this folder (new or empty; default: a new land-repro-<train>-* folder in the temp folder)')
    .option('--json', 'print the rebuilt train, its gates and environment (and with --run the result) as one JSON object')
    .action(
      action<ReproOptions>(async (ctx, opts, args) => {
        const store = await ctx.store();
        const job = readJobOrThrow(store, await jobIdOf(ctx, args[0]));
        // Refresh and gate output goes to the terminal: stdout, or stderr under --json.
        const sink = new TerminalSink(ctx.out.json ? process.stderr : process.stdout);
        const abort = new AbortController();
        const onSignal = () => abort.abort();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          const sandbox = await resolveSandboxHost(ctx.cwd, store, { probe: true });
          const target = await ctx.policy();
          const repro = await rebuildFailedTrain({ cwd: ctx.cwd, store, job, dir: opts.dir, log: sink, signal: abort.signal, sandbox, target });
          const result = summary(repro);
          if (!ctx.out.json) {
            ctx.out.say(describe(repro).join('\n'));
            if (!opts.run)
              ctx.out.say(`run them: land repro ${job.id} --run (rebuilds again in a new folder), or by hand in ${repro.dir} with that environment`);
          }
          if (!opts.run) {
            if (ctx.out.json) ctx.out.emit({ ...result, run: null });
            ctx.out.say(`remove it: git worktree remove --force ${repro.dir}`);
            return 0;
          }
          ctx.out.say('');
          // The gate runner's own `== gate` lines frame each gate's output.
          const run = await runReproGates(repro, sandbox, sink, abort.signal);
          await sink.close();
          if (ctx.out.json) ctx.out.emit({ ...result, run });
          else {
            ctx.out.say(
              run.verdict === 'PASS'
                ? `\nverdict PASS here: the failure of train ${repro.row.train} did not reproduce (flaky, or it depends on where the drainer ran)`
                : `\nverdict ${run.verdict} here, as in train ${repro.row.train}`,
            );
            ctx.out.say(`remove it: git worktree remove --force ${repro.dir}`);
          }
          if (run.verdict === 'PASS') return 0;
          if (run.verdict === 'STOPPED') return EXIT_CODES.interrupted;
          const failure = `gate ${run.failure.gate}: ${run.failure.status}`;
          throw new LandError('state', `the failure reproduced: ${failure}`, { hint: `the worktree is left in ${repro.dir}` });
        } finally {
          await sink.close().catch(() => undefined);
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }),
    );
}
