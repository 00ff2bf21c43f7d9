// The end of every `land ... --help`: an example or two, then where the command is documented.
// Kept in one map so a command cannot be added without one (test/cli/help.test.ts walks the
// built program); an entry for a command this build does not register is simply unused.
import type { Command } from 'commander';
import { docsPointer } from './docsPointer.js';

export interface HelpExamples {
  /** `[command line, what it does]`; the command line starts with `land <command path>`. */
  examples: ReadonlyArray<readonly [string, string]>;
  /** The docs page (and heading) that documents the command, relative to the repository (printed as the page in the running package: docsPointer). */
  docs: string;
  /** Text printed between the examples and the docs page (`land batch`'s own exit codes). */
  notes?: string;
}

/** Keyed by the command's path below `land`: `submit`, `config schema`, `hooks install`. */
export const HELP_EXAMPLES: Readonly<Record<string, HelpExamples>> = {
  init: {
    examples: [
      ['land init', 'a .ctm.json gating with "npm test"'],
      ['land init --gate "npm run lint" --gate "npm test"', 'two gates, run in this order'],
      ['land init --gate "sh gate.sh"', 'a gate running a script: gate.sh is proposed as trusted (restored from the target before gating)'],
      [
        'land init --target trunk',
        "target trunk; without it: origin's default branch, else the checked-out main or master, else a local main or master (a target other than main is kept in git config land.target)",
      ],
    ],
    docs: 'docs/commands.md#land-init',
  },
  config: {
    examples: [
      ['land config', "the policy in force on the target's tip, and its gates hash"],
      ['land config --json | jq .policy.gates', 'the gates, defaults filled in'],
      ['land config --all', "every key, also land batch's ledger defaults in a repository that does not use it"],
    ],
    docs: 'docs/commands.md#land-config-and-land-config-schema',
  },
  'config schema': {
    examples: [['land config schema > ctm.schema.json', 'save it for your editor; name it in .ctm.json: "$schema": "./ctm.schema.json"']],
    docs: 'docs/policy.md',
  },
  submit: {
    examples: [
      ['land submit', 'queue the current branch'],
      ['land submit feature/login --wait --timeout 1800', 'queue it and wait until it lands (exit 9 if it does not)'],
    ],
    docs: 'docs/commands.md#land-submit-branches',
  },
  status: {
    examples: [
      ['land status', 'the queue in landing order'],
      ['land status --all --json', 'every job, finished ones too, as JSON'],
    ],
    docs: 'docs/commands.md#land-status',
  },
  show: {
    examples: [
      ['land show j-20261130-0004', 'everything the job record holds'],
      ['land show feature/login', "the latest job of a branch (none: the checked-out branch's)"],
    ],
    docs: 'docs/commands.md#land-show-id',
  },
  cancel: {
    examples: [
      ['land cancel j-20261130-0004', 'at once if queued, at the next train boundary if running'],
      ['land cancel', "the checked-out branch's latest job"],
    ],
    docs: 'docs/commands.md#land-cancel-id-and-land-retry-ids',
  },
  retry: {
    examples: [
      ['land retry j-20261130-0004 j-20261130-0007', 'put failed (or canceled) jobs back in the queue; all or nothing'],
      ['land retry feature/login', "the branch's latest job"],
      ['land retry --all-failed', "every failed job of this target's queue"],
    ],
    docs: 'docs/commands.md#land-cancel-id-and-land-retry-ids',
  },
  run: {
    examples: [
      ['land run', 'drain the queue, then exit'],
      ['land run --watch --idle-exit 300', 'keep draining and wait for new submissions; exit after 300 s with nothing to do'],
      ['land run --fail-on-failed', 'in CI: exit 15 when a job failed (the policy\'s "notify" commands tell its submitter: docs/policy.md#notify)'],
    ],
    notes:
      'A failed gate is weighed against its flake history before a job is failed: its tree is gated again until the job\nis a culprit with probability flaky.threshold (0.99), at most five runs (docs/drain.md#flaky-gates-the-evidence-rule).\nWith batch.parallel 2+ and flaky.clearing, a failed train whose train behind passed lands with it (docs/drain.md#optimistic-clearing).',
    docs: 'docs/commands.md#land-run',
  },
  verdicts: {
    examples: [
      ['land verdicts', 'every cached verdict: tree, gates hash, PASS or FAIL, the train that judged it, whether it was voided'],
      ['land verdicts --json | jq \'.verdicts[] | select(.verdict == "FAIL")\'', 'the cached FAILs'],
    ],
    docs: 'docs/drain.md#the-verdict-cache',
  },
  'verdicts forget': {
    examples: [
      ['land verdicts forget "$(git rev-parse main^{tree})"', "forget main's own verdicts: the next drain gates it again"],
      ['land verdicts forget --fails --since 2h', 'forget the FAILs of the last two hours (gates ran without their dependencies)'],
    ],
    docs: 'docs/drain.md#the-verdict-cache',
  },
  window: {
    examples: [
      ['land window', 'the window and its recent history'],
      ['land window --set 2', 'smaller trains for a while'],
    ],
    docs: 'docs/commands.md#land-window',
  },
  stats: {
    examples: [
      ['land stats', 'landed and failed jobs, gate runs per landed job, time to land, flaky gates, the window'],
      ['land stats --since 7d --json', 'the last seven days as JSON'],
      ['land stats --openmetrics > /var/lib/node_exporter/land.prom', 'the same figures for a metrics collector'],
    ],
    docs: 'docs/stats.md',
  },
  flaky: {
    examples: [
      ['land flaky', "each gate's runs, flakes, confirmed failures, estimated rate and the rate the drain assumes; the recent flaky trees and their evidence"],
      ['land flaky --since 7d --json', 'the last seven days as JSON'],
    ],
    docs: 'docs/commands.md#land-flaky',
  },
  gc: {
    examples: [
      ['land gc', 'prune the jobs that finished more than 30 days ago (their records, logs and, in a remote queue, refs)'],
      ['land gc --older-than 7d --json', 'keep one week; print the pruned job and train ids as JSON'],
    ],
    docs: 'docs/team.md#7-pruning-finished-jobs-land-gc',
  },
  doctor: {
    examples: [
      ['land doctor', 'start one gate sandbox and say what it enforces (git folder read-only, state hidden, no network, ...)'],
      ['land doctor --json', 'the same findings as JSON, and each executor: answers over ssh, runs git, can write its dir'],
    ],
    docs: 'docs/sandbox.md',
  },
  report: {
    examples: [
      ['land report --html report.html', "one page of charts from the queue's history; open it in a browser"],
      ['land report --html week.html --since 7d --json', 'the last seven days; prints the file and the marks per chart as JSON'],
    ],
    docs: 'docs/report.md',
  },
  tune: {
    examples: [
      ['land tune', 'the recorded history replayed under other batch settings, and the one to use; and whether to turn flaky.clearing on'],
      ['land tune --since 14d --json', 'the last two weeks only, every replayed setting as JSON'],
    ],
    docs: 'docs/tune.md',
  },
  prove: {
    examples: [['land prove', 'gate HEAD merged onto the target; on PASS it can land without a gate']],
    docs: 'docs/proofs.md#land-prove',
  },
  hooks: {
    examples: [['land hooks install --pre-push', 'only the drainer may move the target; pushes are proven first']],
    docs: 'docs/protect.md',
  },
  'hooks install': {
    examples: [
      ['land hooks install', 'refuse updates of the target not made by the drainer'],
      ['land hooks install --pre-push', 'and run land prove before every push'],
    ],
    docs: 'docs/protect.md',
  },
  'hooks uninstall': {
    examples: [['land hooks uninstall', "remove land's hooks, leave the others"]],
    docs: 'docs/protect.md',
  },
  'hooks pre-receive': {
    examples: [
      ['land hooks pre-receive > /srv/git/app.git/hooks/pre-receive', 'the same rule on a server (make it executable)'],
      ['land hooks pre-receive --queue > /srv/git/app.git/hooks/pre-receive', "a remote queue's server: only the lease holder's landing moves the target"],
    ],
    docs: 'docs/protect.md',
  },
  executor: {
    examples: [['land executor run --dir /var/tmp/land', 'internal: what a drainer starts over ssh on an executor (the request on stdin)']],
    docs: 'docs/executors.md#the-runner-on-the-executor',
  },
  'executor run': {
    examples: [['land executor run --dir /var/tmp/land', 'internal: what a drainer starts over ssh on an executor (the request on stdin)']],
    docs: 'docs/executors.md#the-runner-on-the-executor',
  },
  batch: {
    examples: [['land batch --job nightly-eval --measure-dir out/eval -- ./eval.sh', 'run it; fail unless it leaves a ledger line']],
    docs: 'docs/batch.md#the-batch-wrapper-land-batch-and-the-ledger',
    notes: "Exit codes (land batch's own): 2 provider refused (or a usage error), 3 no lane, 4 no ledger dir,\n5 no ledger line, else the batch's own status.",
  },
  ledger: {
    examples: [['land ledger show --job nightly-eval', "the job's ledger lines, oldest first"]],
    docs: 'docs/batch.md#reading-the-ledger-land-ledger',
  },
  'ledger show': {
    examples: [
      ['land ledger show --job nightly-eval', "the job's ledger lines, oldest first"],
      ['land ledger show --job nightly-eval --json | tail -1', 'the latest line, as JSON'],
    ],
    docs: 'docs/batch.md#reading-the-ledger-land-ledger',
  },
  'ledger verify': {
    examples: [['land ledger verify --job nightly-eval --since 2026-11-30T08:00:00Z', 'exit 0 if a batch since then left a line']],
    docs: 'docs/batch.md#reading-the-ledger-land-ledger',
  },
  why: {
    examples: [
      ['land why j-20261130-0004', "the job's whole story: trains, verdicts, bisection, how it ended"],
      ['land why', "the story of the checked-out branch's latest job"],
    ],
    docs: 'docs/failures.md',
  },
  log: {
    examples: [
      ['land log j-20261130-0004', "the gate log of the job's latest train"],
      ['land log j-20261130-0004 -f', 'follow it while the gate runs'],
      ['land log feature/login', "the gate log of the branch's latest job (a cached verdict: and the judging train's)"],
      ['land log --train b-20261130-101500-1a2b3c-2', 'the gate log of a train, for the job that rode it'],
    ],
    docs: 'docs/failures.md',
  },
  repro: {
    examples: [
      ['land repro j-20261130-0004 --run', 'rebuild the train the job failed in, and run its gates'],
      ['land repro feature/login', "rebuild the train the branch's latest job failed in"],
    ],
    docs: 'docs/failures.md',
  },
  reconcile: {
    examples: [
      ['land reconcile --check', 'report what disagrees (exit 12 when anything does), change nothing: for CI'],
      ['land reconcile --after j-20261130-0050 --limit 100', 'repair the next page of 100 records'],
      ['land reconcile --resolve j-20261130-0004 queued', 'decide an uncertain job: back in the queue, gated again'],
    ],
    docs: 'docs/reconcile.md',
  },
  completion: {
    examples: [
      ['land completion bash > ~/.local/share/bash-completion/completions/land', 'bash completion of commands, options and job ids'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion the user types
      ['land completion zsh > "${fpath[1]}/_land"', 'zsh (before compinit runs)'],
      ['land completion fish > ~/.config/fish/completions/land.fish', 'fish'],
    ],
    docs: 'docs/commands.md#land-completion-bashzshfish',
  },
};

/** The top-level `land --help`. */
export const PROGRAM_EXAMPLES: HelpExamples = {
  examples: [
    ['land submit feature/login', 'queue a branch'],
    ['land run', 'drain the queue: gate trains, land them'],
    ['land status', 'the queue'],
  ],
  docs: 'docs/README.md',
};

/** `submit`, `config schema`: the command's names below the program. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** Every command below `program`, depth first (commander's implicit `help` is not one). */
export function allCommands(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...allCommands(command)]);
}

/** The map's entry for a command path, if any (own keys only: `constructor` is not a command's). */
export function helpExamplesFor(path: string): HelpExamples | undefined {
  return Object.hasOwn(HELP_EXAMPLES, path) ? HELP_EXAMPLES[path] : undefined;
}

/** Each example as a shell comment saying what it does, then the line to copy. */
function examplesText(entry: HelpExamples): string {
  return `Examples:\n${entry.examples.map(([line, says]) => `  # ${says}\n  ${line}`).join('\n')}`;
}

/** The paths of the commands below `program` that have no examples (test/cli/help.test.ts wants none). */
export function commandsWithoutExamples(program: Command): string[] {
  return allCommands(program)
    .map(commandPath)
    .filter((path) => helpExamplesFor(path) === undefined);
}

/**
 * The text after the help: examples, any notes (the exit codes of `land`), the docs page. `docsAt`
 * turns the page's repository path into the one printed (docsPointer: the page in the running package).
 */
export function helpTail(entry: HelpExamples, notes?: string, docsAt: (page: string) => string = (page) => page): string {
  return `\n${examplesText(entry)}\n${notes ? `\n${notes}\n` : ''}\nDocs: ${docsAt(entry.docs)}`;
}

/**
 * Ends each command's help with its examples and docs page; call once every command is registered.
 * The text is made when a help is printed, not here: finding the package's docs reads the disk.
 */
export function applyHelpExamples(program: Command, programNotes: string): void {
  program.addHelpText('after', () => helpTail(PROGRAM_EXAMPLES, programNotes, docsPointer));
  for (const command of allCommands(program)) {
    const entry = helpExamplesFor(commandPath(command));
    if (entry) command.addHelpText('after', () => helpTail(entry, entry.notes, docsPointer));
  }
}
