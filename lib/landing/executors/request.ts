// What the drainer asks of an executor's runner (`land executor run`), one JSON object on one line
// of the runner's standard input: never on the remote shell line. The gates and sandbox settings
// are the policy in force on the drainer (read from the target tip), the sandbox mode resolved
// there; the train's variables and the values of the gates' passEnv names are the only drainer
// values that travel. The runner trusts none of it beyond what a gate could do anyway: it is read
// with this schema, and a request that does not parse is refused (INFRA for the run).
import { z } from 'zod';
import { MAX_EXECUTOR_SLOTS } from '../../config/executors.js';
import { MAX_LOG_MAX_BYTES, MIN_LOG_MAX_BYTES } from '../../config/logLimits.js';
import { gateSchema, SANDBOX_MODES, sandboxSchema } from '../../config/schema.js';

/** The request line's version: a runner refuses one it does not know (the drainer's land is newer). */
export const EXECUTOR_REQUEST_VERSION = 1;

/** The longest request line a runner reads (the policy's gates, the train's ids, passEnv values). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

const commit = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'expected a full commit id');

export const executorRequestSchema = z.strictObject({
  v: z.literal(EXECUTOR_REQUEST_VERSION),
  /** The executor's slot: its checkout is `<dir>/slots/<slot>`. */
  slot: z
    .number()
    .int()
    .min(0)
    .max(MAX_EXECUTOR_SLOTS - 1),
  /** The commit the gates run on (shipped to the cache repository before the run). */
  commit,
  gates: z.array(gateSchema).min(1),
  sandbox: sandboxSchema.extend({ mode: z.enum(SANDBOX_MODES) }),
  train: z.strictObject({
    LAND_TIP: commit,
    LAND_BASE: commit,
    LAND_JOB: z.string().max(200),
    LAND_MEMBERS: z.string().max(100_000),
    LAND_TRAIN: z.string().max(200),
  }),
  /** The drainer's values of the gates' passEnv names (only those it has). */
  passEnv: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()),
  /** The policy's logs.maxBytes: the runner caps what it streams back as the drainer caps its log. */
  logMaxBytes: z.number().int().min(MIN_LOG_MAX_BYTES).max(MAX_LOG_MAX_BYTES),
});

export type ExecutorRequest = z.infer<typeof executorRequestSchema>;
/** What the drainer writes (defaults of the gates' schema may be left out). */
export type ExecutorRequestInput = z.input<typeof executorRequestSchema>;

/** The request from its line, or a one-line reason it is refused. */
export function parseExecutorRequest(line: string): { ok: true; request: ExecutorRequest } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'the request is not JSON' };
  }
  const parsed = executorRequestSchema.safeParse(value);
  if (parsed.success) return { ok: true, request: parsed.data };
  const first = parsed.error.issues[0];
  const where = first?.path.length ? `${first.path.join('.')}: ` : '';
  return { ok: false, reason: `the request is invalid (${where}${first?.message ?? 'unknown'})` };
}

/** The request's line, as the drainer writes it. */
export function executorRequestLine(request: ExecutorRequestInput): string {
  return `${JSON.stringify(request)}\n`;
}

/** Every passEnv value the gates name that `from` has: what travels to the executor. */
export function passEnvValues(gates: readonly { passEnv?: readonly string[] }[], from: NodeJS.ProcessEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of gates.flatMap((gate) => gate.passEnv ?? [])) {
    const value = from[name];
    if (value !== undefined) values[name] = value;
  }
  return values;
}
