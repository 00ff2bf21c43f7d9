// A ledger line (`<ledger dir>/<job>.jsonl`, written by the batch wrapper, lib/ledger): what a
// batch spent and what it produced. `version` changes only when a field changes meaning. Declared
// here because a job record keeps the ledger lines of its train's batch stages (gateRecords.ts).
import { z } from 'zod';

export const LEDGER_LINE_VERSION = 1;

const count = z.number().nullable();

export const ledgerLineSchema = z.looseObject({
  version: z.literal(LEDGER_LINE_VERSION),
  job: z.string(),
  track: z.string(),
  start: z.string(),
  end: z.string(),
  wallSeconds: z.number(),
  cpuSeconds: z.number(),
  cpuHours: z.number(),
  peakRssBytes: z.number().nullable(),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  status: z.number(),
  interruptedBy: z.string().nullable(),
  host: z.string(),
  gitHead: z.string().nullable(),
  cwd: z.string(),
  measureDir: z.string(),
  counts: z.looseObject({
    timings: z.record(z.string(), z.number()),
    timingSeconds: count,
    compiled: count,
    candidates: count,
    received: count,
    completionTokens: count,
    scored: count,
    best: z.union([z.number(), z.string()]).nullable(),
  }),
});

export type LedgerLine = z.infer<typeof ledgerLineSchema>;
