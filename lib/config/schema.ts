// The landing policy, `.ctm.json`, committed on the target branch. Strict objects: an unknown key
// is an error (a typo must not silently change nothing). Every key carries its description (the
// wording of docs/policy.md), which the JSON Schema of `land config schema` carries to editors.
import { posix } from 'node:path';
import { z } from 'zod';
import { SANDBOX_PRIVATE } from '../proc/sandbox/plan.js';
import { NOTIFICATION_EVENTS } from '../store/formats/notification.js';
import { executorsSchema } from './executors.js';
import { DEFAULT_LOG_MAX_BYTES, MAX_LOG_MAX_BYTES, MIN_LOG_MAX_BYTES } from './logLimits.js';

const name = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, 'expected letters, digits, ".", "_" or "-"');
const command = z.union([z.string().min(1), z.array(z.string()).min(1)]);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');
const glob = z.string().min(1);
const timeoutSeconds = z.number().positive().max(86_400).default(600);

/**
 * A path a gate's sandbox shows besides its checkout: absolute (shown at the same path), or relative
 * to the repository's top-level folder (shown at the same place in the train's checkout).
 */
const sandboxPath = z
  .string()
  .min(1)
  .refine((path) => !path.split('/').includes('..'), 'expected a path without ".."')
  .refine((path) => !(SANDBOX_PRIVATE as readonly string[]).includes(posix.normalize(path).replace(/(.)\/$/, '$1')), {
    message: `a gate's own folder (${SANDBOX_PRIVATE.join(', ')}) cannot be shown from the host`,
  });

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;

export const sandboxSchema = z
  .strictObject({
    mode: z
      .enum(SANDBOX_MODES)
      .optional()
      .describe(
        "auto: sandbox every gate when this machine can (bubblewrap), else run it unsandboxed with a warning; required: refuse to run gates without a sandbox (exit 14, nothing failed); off: no sandbox, every queued change is trusted. Default: auto for a clone's own queue, required for a queue kept in a remote (docs/sandbox.md).",
      ),
    network: z.boolean().default(false).describe('Gates may reach the network (false: only a loopback of their own).'),
    readOnly: z
      .array(sandboxPath)
      .default([])
      .describe("Paths every gate's sandbox also shows read-only (for example an installed node_modules); docs/sandbox.md#paths."),
    readWrite: z
      .array(sandboxPath)
      .default([])
      .describe("Paths every gate's sandbox also shows read-write (for example a build cache); docs/sandbox.md#paths."),
  })
  .describe("The sandbox every gate and refresh entry runs in: what a queued change's code can see and reach (docs/sandbox.md).");

export const batchStageSchema = z
  .strictObject({
    job: name.describe('The ledger job name (letters, digits, ".", "_", "-"): its ledger file is <ledger dir>/<job>.jsonl.'),
    measureDir: z.string().min(1).describe('The measure dir passed to `land batch --measure-dir`.'),
  })
  .describe('Run this gate through `land batch` (a ledger-enforcing batch stage): the stage fails unless the batch leaves a ledger line.');

/** How a failed gate run is judged (policy flaky.rule; docs/drain.md#flaky-gates-the-evidence-rule). */
export const FLAKY_RULES = ['evidence', 'retries'] as const;
/** How likely a job must be a culprit before a failed gate fails it (policy flaky.threshold's default). */
export const DEFAULT_FLAKY_THRESHOLD = 0.99;

export const gateSchema = z.strictObject({
  name: name.describe('The gate name: letters, digits, ".", "_", "-" (at most 100); unique within the policy.'),
  run: command.describe('The command: a string runs with `sh -c`; an array is the argv, run without a shell.'),
  timeoutSeconds: timeoutSeconds.describe("Above 0, at most 86400. On timeout the gate's whole process group is killed and the train fails (reason timeout)."),
  env: z.record(envName, z.string()).default({}).describe("Fixed variables (name → value) added to the gate's environment."),
  passEnv: z
    .array(envName)
    .default([])
    .describe("Names of the drainer's variables to pass to the gate (for example tokens); their values are redacted from stored logs."),
  paths: z
    .array(glob)
    .min(1)
    .optional()
    .describe('Globs: the gate runs only when the train changes a matching file (docs/proofs.md#selective-gates). Absent: the gate always runs.'),
  batch: batchStageSchema.optional(),
  network: z.boolean().optional().describe('This gate may reach the network from its sandbox (overrides sandbox.network for this gate; docs/sandbox.md).'),
  readOnly: z.array(sandboxPath).optional().describe("Paths this gate's sandbox also shows read-only, added to sandbox.readOnly (docs/sandbox.md#paths)."),
  readWrite: z.array(sandboxPath).optional().describe("Paths this gate's sandbox also shows read-write, added to sandbox.readWrite (docs/sandbox.md#paths)."),
  advisory: z
    .boolean()
    .optional()
    .describe(
      'true: the gate is quarantined: it runs and its failure (exit, signal or timeout) is recorded and reported, but it does not fail the train; the verdict comes from the other gates (docs/policy.md#quarantine-advisory-gates).',
    ),
});

export const refreshSchema = z.strictObject({
  paths: z.array(glob).min(1).describe('Globs: the entry runs when the train changes a matching file.'),
  run: command.describe('The command that updates the generated files: a string runs with `sh -c`; an array is the argv, run without a shell.'),
  message: z.string().min(1).describe('The commit message of the refresh commit added to the train.'),
  timeoutSeconds: timeoutSeconds.describe(
    "Above 0, at most 86400. On timeout the command's whole process group is killed and the train fails (reason refresh).",
  ),
});

export const notifySchema = z.strictObject({
  on: z
    // The drain's events an entry can be run for: the notification format's list (docs/policy.md#notify).
    .array(z.enum(NOTIFICATION_EVENTS))
    .min(1)
    .describe(
      'The events that run this command: landed and failed (one run per job), uncertain (a job `land reconcile` found uncertain), stopped (the drain stopped early: a red target, a dirty checkout, a lost lock, a signal).',
    ),
  run: command.describe(
    'The command, given the event as one JSON object on standard input (docs/policy.md#notify): a string runs with `sh -c`; an array is the argv, run without a shell. Runs in the gate sandbox with network allowed.',
  ),
  timeoutSeconds: z
    .number()
    .positive()
    .max(600)
    .default(30)
    .describe(
      'Above 0, at most 600 (default 30). A notifier still running then is killed, with its whole process group, and a warning; the drain never waits longer.',
    ),
  env: z.record(envName, z.string()).default({}).describe("Fixed variables (name → value) added to the command's environment."),
  passEnv: z.array(envName).default([]).describe("Names of the drainer's variables to pass to the command (for example a webhook URL or a token)."),
});

export const queueSchema = z.strictObject({
  remote: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'a git remote name')
    .optional()
    .describe(
      "The git remote that holds the queue (refs/land/*), shared by every clone and drainer (docs/remote.md). Absent: the queue is this clone's own (.git/land/).",
    ),
  leaseSeconds: z
    .number()
    .int()
    .min(2)
    .max(3_600)
    .default(60)
    .describe('2 to 3600: a drainer that has not renewed its lease for this long (it renews every third of it) is taken over by another.'),
  pollSeconds: z
    .number()
    .min(0.2)
    .max(600)
    .default(5)
    .describe('0.2 to 600: how often a waiting drainer (--watch, or waiting for the lease) and `submit --wait` fetch the queue refs.'),
});

export const policySchema = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .describe('The JSON Schema of this file, for editor completion (save `land config schema`, for example as ./ctm.schema.json); ignored by land.'),
    target: z.string().min(1).describe('The branch this policy governs; must equal the branch it is read from.'),
    remote: z.string().min(1).default('origin').describe('The remote `publish` pushes to, unless publish.remote is set.'),
    gates: z
      .array(gateSchema)
      .default([])
      .describe('The gates, run in order on each train; the first that does not pass decides the verdict. No gates: every train passes.'),
    batch: z
      .strictObject({
        max: z.number().int().min(1).max(256).default(8).describe("1 to 256: the most jobs one train takes, and the window's starting size."),
        waitSeconds: z.number().min(0).max(3_600).default(0).describe('0 to 3600: how long a lone job waits for company before it is gated alone.'),
        parallel: z
          .number()
          .int()
          .min(1)
          .max(16)
          .default(1)
          .describe(
            '1 to 16: how many trains may gate at once. Above 1, the next trains are built speculatively on the train ahead of them and land right after it, or are abandoned and rebuilt when it does not land (docs/drain.md#parallel-and-speculative-trains).',
          ),
      })
      .prefault({})
      .describe('Merge trains: how many jobs ride one train.'),
    executors: executorsSchema,
    queue: queueSchema.prefault({}).describe('Where the queue lives: this clone (default) or a git remote shared by a team.'),
    publish: z
      .strictObject({
        auto: z.boolean().default(false).describe('Push the target to the remote after each landing (once per train, with a lease on the old tip).'),
        remote: z.string().min(1).optional().describe('The remote to push to; absent: the top-level remote.'),
      })
      .prefault({})
      .describe('Pushing landings to a remote.'),
    trusted: z
      .array(glob)
      .default([])
      .describe(
        "Globs of the gate machinery (for example gate scripts, ci/**): before the gates run, these paths in the train's checkout are restored from the target tip, so a queued branch cannot change what gates it; a change to them takes effect once it has landed (docs/policy.md#trusted).",
      ),
    refresh: z
      .array(refreshSchema)
      .default([])
      .describe('Commands that update generated files (for example a lock file) on the train before the gates (docs/proofs.md#refresh-entries).'),
    retries: z
      .strictObject({
        infra: z.number().int().min(0).max(100).default(3).describe('0 to 100: infrastructure requeues per job before it fails with reason infra.'),
        casLost: z.number().int().min(0).max(1_000).default(20).describe('0 to 1000: lost compare-and-swaps per job before it fails with reason cas_lost.'),
        flaky: z
          .number()
          .int()
          .min(0)
          .max(4)
          .default(0)
          .describe(
            '0 to 4, the fixed allowance of flaky.rule "retries" (above 0 with no flaky.rule written, as in a policy from before the evidence rule, it selects "retries"): before a job that rode a train alone is failed by a gate (exit or timeout), its gates run again on the same tree up to this many times; a later PASS lands it and the gate is recorded as flaky (docs/policy.md#flaky-gates).',
          ),
      })
      .prefault({})
      .describe('How often a job is requeued (or its gates run again) for causes that are not its own before it fails.'),
    flaky: z
      .strictObject({
        rule: z
          .enum(FLAKY_RULES)
          .default('evidence')
          .describe(
            '"evidence" (default, unless retries.flaky is above 0 and no rule is written): a failed run is evidence weighed against the gate\'s flake history; a job is failed once it is a culprit beyond flaky.threshold, and its tree is gated again until then. "retries": the fixed allowance of retries.flaky re-runs of a lone job (docs/drain.md#flaky-gates-the-evidence-rule).',
          ),
        threshold: z
          .number()
          .min(0.5)
          .max(0.9999)
          .default(DEFAULT_FLAKY_THRESHOLD)
          .describe('0.5 to 0.9999 (default 0.99), with flaky.rule "evidence": how likely a job must be a culprit before a failed gate fails it.'),
        clearing: z
          .boolean()
          .default(false)
          .describe(
            'Optimistic clearing (default false; needs batch.parallel 2 or more): when a train fails and the train built on it passes, both land together with one compare-and-swap (the tree that lands passed), instead of re-running or bisecting the failed one (docs/drain.md#optimistic-clearing).',
          ),
      })
      .prefault({})
      .describe('How a failed gate run is judged when gates may be flaky (docs/drain.md#flaky-gates-the-evidence-rule).'),
    proof: z
      .strictObject({
        enabled: z.boolean().default(true).describe('Accept proofs for the fast path (the verdict cache counts either way).'),
        trustLocal: z.boolean().default(true).describe("Accept proofs made by `land prove`; false: only the drainer's own trains' proofs count."),
      })
      .prefault({})
      .describe('Proofs: a tip already proven on the current target lands alone without a gate (docs/proofs.md).'),
    ledger: z
      .strictObject({
        providers: z.array(z.string().min(1)).default(['claude-code']).describe('The model providers `land batch` allows.'),
        lane: z.string().min(1).optional().describe('Where batches run: "local" (this machine is a lane) or an ssh host.'),
        dir: z.string().min(1).optional().describe('The ledger dir, relative to the repository root.'),
      })
      .prefault({})
      .describe('The ledger-enforcing batch wrapper `land batch` (docs/batch.md).'),
    sandbox: sandboxSchema.prefault({}),
    notify: z
      .array(notifySchema)
      .default([])
      .describe(
        "Commands run on the drain's events (landed, failed, uncertain, stopped), each with the event as JSON on standard input, in the sandbox with network allowed; a failing notifier is a warning, never a failed landing (docs/policy.md#notify).",
      ),
    logs: z
      .strictObject({
        maxBytes: z
          .number()
          .int()
          .min(MIN_LOG_MAX_BYTES)
          .max(MAX_LOG_MAX_BYTES)
          .default(DEFAULT_LOG_MAX_BYTES)
          .describe(
            '65536 to 1073741824 (default 10485760, 10 MiB): the most bytes a gate log keeps; beyond it the first and last halves are kept, with a line saying what was cut.',
          ),
      })
      .prefault({})
      .describe('Gate logs (logs/<train>.log).'),
  })
  .describe("land's landing policy, read from the target branch's tip (reference: docs/policy.md).");

export type Policy = z.infer<typeof policySchema>;
export type PolicyInput = z.input<typeof policySchema>;
export type Gate = Policy['gates'][number];
export type RefreshEntry = Policy['refresh'][number];
export type NotifyEntry = Policy['notify'][number];
export type { ExecutorEntry } from './executors.js';
export type SandboxPolicy = Policy['sandbox'];
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export const POLICY_FILE = '.ctm.json';
