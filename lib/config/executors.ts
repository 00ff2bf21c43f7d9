// The policy's `executors`: where the pipeline's gate slots are. Each entry is the drainer itself
// (`"local"`) or an ssh host (`ssh://[user@]host[:port]`) with its slots and the folder that holds
// its cache repository (docs/executors.md). The host and the folder are read with a fixed character
// set: both end up in an ssh command line (the folder inside the remote shell's command), so
// nothing in them may need quoting.
import { z } from 'zod';
import { PARSED_ONCE } from './parseOnce.js';

/** `ssh://[user@]host[:port]`: the user, host and port as ssh takes them, nothing else. */
const SSH_HOST = /^ssh:\/\/(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$/;

export const LOCAL_EXECUTOR = 'local';
export const DEFAULT_EXECUTOR_DIR = '/var/tmp/land';
export const MAX_EXECUTOR_SLOTS = 16;
/** How the drainer starts land on an ssh executor when the entry names no `land`: from the login's PATH. */
export const DEFAULT_EXECUTOR_LAND = 'land';
/** Words of plain characters, none an option: it goes into the remote shell line as it is. */
const LAND_COMMAND = /^[A-Za-z0-9._/][A-Za-z0-9._/-]*( [A-Za-z0-9._/][A-Za-z0-9._/-]*)*$/;

export interface SshHost {
  user: string | undefined;
  host: string;
  port: number | undefined;
}

/** The parts of `ssh://[user@]host[:port]`, or null when it is not one. */
export function parseSshHost(text: string): SshHost | null {
  const match = SSH_HOST.exec(text);
  if (!match) return null;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (port < 1 || port > 65_535)) return null;
  return { user: match[1], host: match[2] as string, port };
}

const host = z
  .string()
  .refine((text) => text === LOCAL_EXECUTOR || parseSshHost(text) !== null, {
    message: 'expected "local" or ssh://[user@]host[:port] (letters, digits, ".", "_", "-"; a port from 1 to 65535; no path)',
  })
  .describe('"local" (the drainer\'s own slots) or ssh://[user@]host[:port]: an executor reached with ssh (docs/executors.md).');

const dir = z
  .string()
  .regex(/^\/[A-Za-z0-9._/-]*$/, 'expected an absolute path of letters, digits, ".", "_", "-" and "/"')
  .refine((path) => !path.split('/').includes('..'), 'expected a path without ".."')
  .describe(`The folder on the executor holding land's cache repository and the trains' checkouts (default ${DEFAULT_EXECUTOR_DIR}); an ssh executor only.`);

const land = z
  .string()
  .regex(LAND_COMMAND, 'expected words of letters, digits, ".", "_", "-" and "/" separated by single spaces, none starting with "-"')
  .describe(
    `How the drainer starts land on the executor (default ${DEFAULT_EXECUTOR_LAND}, from the ssh login's PATH): a program, or a program and its arguments, for example "/usr/bin/node /opt/land/dist/bin/land.js"; an ssh executor only.`,
  );

export const executorSchema = z
  .strictObject({
    host,
    slots: z
      .number()
      .int()
      .min(1)
      .max(MAX_EXECUTOR_SLOTS)
      .default(1)
      .describe(`1 to ${MAX_EXECUTOR_SLOTS} (default 1): how many trains may gate on this host at once.`),
    dir: dir.optional(),
    land: land.optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.host === LOCAL_EXECUTOR && entry.dir !== undefined)
      ctx.addIssue({ code: 'custom', path: ['dir'], message: 'only an ssh executor has a dir (the drainer gates in its own state folder)' });
    if (entry.host === LOCAL_EXECUTOR && entry.land !== undefined)
      ctx.addIssue({ code: 'custom', path: ['land'], message: 'only an ssh executor has a land command (the drainer gates with its own land)' });
  });

export const executorsSchema = z
  .array(executorSchema)
  .default([])
  .describe(
    'Where gates run: each entry gives gate slots on the drainer ("local") or on an ssh host. Absent or empty: every train gates on the drainer, batch.parallel at once (docs/executors.md).',
  );

export type ExecutorEntry = z.infer<typeof executorSchema>;

/** What the cross-key check reads of a raw policy, whatever else it holds (valid or not). */
const rawExecutors = z.looseObject({
  executors: z.array(z.unknown()),
  batch: z.looseObject({ parallel: z.number().optional() }).optional(),
  gates: z.array(z.unknown()).optional(),
});
/** A gate with a batch stage (`land batch`): its ledger lines are written where it runs. */
const rawBatchGate = z.looseObject({ name: z.string().optional(), batch: z.looseObject({}) });
const rawEntry = z.looseObject({ host: z.string(), slots: z.number().optional() });

/**
 * The problems no single entry shows: a host listed twice, batch.parallel above the slots the
 * entries give (a train that could never find a slot), and a batch stage gate with an ssh
 * executor (its ledger lines would be written on the executor, where the drainer cannot check
 * them: every such train would FAIL for a missing ledger line). Read on the raw value so they are
 * reported with the schema's own problems.
 */
export function executorProblems(raw: unknown): string[] {
  const parsed = rawExecutors.safeParse(raw, PARSED_ONCE);
  if (!parsed.success) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  let slots = 0;
  parsed.data.executors.forEach((value, index) => {
    const entry = rawEntry.safeParse(value, PARSED_ONCE);
    if (!entry.success) return;
    if (seen.has(entry.data.host)) problems.push(`executors[${index}].host: ${entry.data.host} is listed twice (give it more slots instead)`);
    seen.add(entry.data.host);
    slots += entry.data.slots ?? 1;
  });
  const parallel = parsed.data.batch?.parallel;
  if (parsed.data.executors.length > 0 && parallel !== undefined && parallel > slots)
    problems.push(`batch.parallel: ${parallel} trains at once need ${parallel} gate slots; executors give ${slots}`);
  const remote = parsed.data.executors.some((value) => rawEntry.safeParse(value).data?.host !== 'local');
  (parsed.data.gates ?? []).forEach((value, index) => {
    const gate = rawBatchGate.safeParse(value);
    if (remote && gate.success)
      problems.push(
        `gates[${index}].batch: a batch stage gate cannot run on an ssh executor (its ledger is checked on the drainer); drop the ssh executors or the batch stage`,
      );
  });
  return problems;
}
