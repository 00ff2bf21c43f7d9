import { Command } from 'commander';
import { VERSION } from '../version.js';
import { applyHelpExamples } from './helpExamples.js';

export { VERSION };

type Register = (program: Command) => void;

/**
 * The groups of `land --help`, in the order it lists them. A command's group is its entry's `group`
 * in COMMAND_MODULES below (the one place a new command is added).
 */
export const COMMAND_GROUPS = {
  queue: 'Queue (from any clone):',
  drain: 'Drain (land the queue, protect the target):',
  failures: 'Failures:',
  insight: 'Insight (the history):',
  setup: 'Setup:',
  batch: 'Batch wrapper (apart from the queue; docs/batch.md):',
} as const;
export type CommandGroup = keyof typeof COMMAND_GROUPS;

interface CommandModule {
  /** The top-level commands its register function adds. */
  names: readonly string[];
  /** Where `land --help` lists them. */
  group: CommandGroup;
  load: () => Promise<Register>;
  /** True when, for these arguments, the command needs every other one registered too. */
  needsAll?: (args: readonly string[]) => boolean;
}

/** `land completion` writes its scripts from the whole program; `--ids` (at Tab time) needs no other command. */
const completionNeedsAll = (args: readonly string[]) => !args.some((arg) => arg === '--ids' || arg.startsWith('--ids='));

/**
 * Every command, with the names it registers, its help group and how to load its module; within a
 * group, `land --help` lists them in this order. A command's module (and all it imports: the
 * drain, gates, ledger...) is loaded only when a command line names it, so `land status` does not
 * load what `land run` needs; the bundle keeps each in its own chunk (rolldown.config.mjs).
 */
export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['submit'], group: 'queue', load: async () => (await import('./commands/submit.js')).registerSubmit },
  { names: ['status'], group: 'queue', load: async () => (await import('./commands/status.js')).registerStatus },
  { names: ['show'], group: 'queue', load: async () => (await import('./commands/show.js')).registerShow },
  { names: ['cancel', 'retry'], group: 'queue', load: async () => (await import('./commands/cancel.js')).registerCancel },
  { names: ['run'], group: 'drain', load: async () => (await import('./commands/run.js')).registerRun },
  { names: ['window'], group: 'drain', load: async () => (await import('./commands/window.js')).registerWindow },
  { names: ['prove'], group: 'drain', load: async () => (await import('./commands/prove.js')).registerProve },
  { names: ['verdicts'], group: 'drain', load: async () => (await import('./commands/verdicts.js')).registerVerdicts },
  { names: ['hooks'], group: 'drain', load: async () => (await import('./commands/hooks.js')).registerHooks },
  // Internal: the runner a drainer starts on an ssh executor (docs/executors.md).
  { names: ['executor'], group: 'drain', load: async () => (await import('./commands/executor.js')).registerExecutor },
  { names: ['why'], group: 'failures', load: async () => (await import('./commands/why.js')).registerWhy },
  { names: ['log'], group: 'failures', load: async () => (await import('./commands/log.js')).registerLog },
  { names: ['repro'], group: 'failures', load: async () => (await import('./commands/repro.js')).registerRepro },
  { names: ['stats'], group: 'insight', load: async () => (await import('./commands/stats.js')).registerStats },
  { names: ['flaky'], group: 'insight', load: async () => (await import('./commands/flaky.js')).registerFlaky },
  { names: ['report'], group: 'insight', load: async () => (await import('./commands/report.js')).registerReport },
  { names: ['tune'], group: 'insight', load: async () => (await import('./commands/tune.js')).registerTune },
  { names: ['reconcile'], group: 'insight', load: async () => (await import('./commands/reconcile.js')).registerReconcile },
  { names: ['init'], group: 'setup', load: async () => (await import('./commands/init.js')).registerInit },
  { names: ['config'], group: 'setup', load: async () => (await import('./commands/config.js')).registerConfig },
  { names: ['doctor'], group: 'setup', load: async () => (await import('./commands/doctor.js')).registerDoctor },
  { names: ['gc'], group: 'setup', load: async () => (await import('./commands/gc.js')).registerGc },
  {
    names: ['completion'],
    group: 'setup',
    load: async () => (await import('./commands/completion.js')).registerCompletion,
    needsAll: completionNeedsAll,
  },
  { names: ['batch'], group: 'batch', load: async () => (await import('./commands/batch.js')).registerBatch },
  { names: ['ledger'], group: 'batch', load: async () => (await import('./commands/ledger.js')).registerLedger },
];

/** The root's options that take a value in the next argument (`-C dir`, `--target main`). */
const VALUE_OPTIONS = new Set(['-C', '--cwd', '--target']);

/**
 * The command an argument list names: its first argument that is not a root option (nor a root
 * option's value). undefined when there is none (`land`, `land --help`).
 */
export function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return args[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (VALUE_OPTIONS.has(arg)) i++;
  }
  return undefined;
}

/** The end of `land --help`, before the docs pointer (the full table: docs/exit-codes.md; land batch's own are in its --help). */
const EXIT_CODE_SUMMARY = `Exit codes: 0 ok, 1 internal error, 2 usage, 3 policy (.ctm.json) or missing target,
4 not found, 5 refused by the job's state, 6 busy (another drainer), 7 git failed,
8 corrupt state file, 9 job did not land (submit --wait),
10 target red: the target itself fails its gates, 11 no space left on device,
12 disagreement (land reconcile --check), 13 the queue's remote could not be reached,
14 no sandbox for the gates, 15 a job failed in this run (land run --fail-on-failed), 130 interrupted.`;

/**
 * The program, each help ending with examples and its docs page. Given the command line's
 * arguments (without node and the script), only the command they name is registered; without
 * them, or when they name no known command (`land`, `land --help`, `land help run`, a typo that
 * commander answers with "did you mean"), every command is.
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const modules = modulesFor(args);
  const registers = await Promise.all(modules.map((entry) => entry.load()));
  const program = rootProgram();
  // Groups in COMMAND_GROUPS' order (commander lists a group where its first command is).
  const order = Object.keys(COMMAND_GROUPS);
  const byGroup = modules.map((entry, i) => ({ group: entry.group, register: registers[i] as Register }));
  byGroup.sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group));
  for (const { group, register } of byGroup) {
    program.commandsGroup(COMMAND_GROUPS[group]); // the group of the commands it adds
    register(program);
  }
  program.commandsGroup(COMMAND_GROUPS.setup).helpCommand(true); // `land help <command>`, with setup
  applyHelpExamples(program, EXIT_CODE_SUMMARY);
  return program;
}

/** The command modules a command line needs: the one it names, else all. */
function modulesFor(args: readonly string[] | undefined): readonly CommandModule[] {
  const named = args === undefined ? undefined : commandNamed(args);
  const entry = named === undefined ? undefined : COMMAND_MODULES.find((candidate) => candidate.names.includes(named));
  if (!entry || entry.needsAll?.(args ?? [])) return COMMAND_MODULES;
  return [entry];
}

function rootProgram(): Command {
  const program = new Command();
  program
    .name('land')
    .description('A landing queue for git: merge trains, one gate run per train, one compare-and-swap per landing.')
    .version(VERSION)
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .option('--target <branch>', 'the target branch (default: LAND_TARGET, else git config land.target, else main)')
    .option('--queue-remote <name>', "the git remote that holds the queue (default: queue.remote in the policy, else this clone's own queue)")
    .option('--debug', 'print stack traces of internal errors')
    .showHelpAfterError('(run land --help for usage)')
    .configureHelp({ showGlobalOptions: true });
  return program;
}
