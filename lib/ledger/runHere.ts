// The batch on this machine (it is the lane): .env, ledger dir, measured run, ledger line. Started
// by a wrapper over ssh (LAND_LANE_SESSION=1), it stops the batch when that session ends.
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { LandError } from '../errors.js';
import { revParse } from '../git/index.js';
import { emptyCounts, countLine } from './counts.js';
import { withDotenv } from './dotenv.js';
import { ENV_NAMES, readVar, type Env } from './envNames.js';
import { BATCH_EXIT, finalStatus } from './exitCodes.js';
import { type CallerWatch, watchCaller } from './laneSession.js';
import { buildLedgerLine } from './ledgerLine.js';
import { noLedgerDirMessage, resolveLedgerDir } from './ledgerDir.js';
import type { LedgerPolicy } from './ledgerPolicy.js';
import { appendLedgerLine, ledgerLineCount } from './ledgerStore.js';
import { checkProvider } from './provider.js';
import { runMeasured } from './runMeasured.js';

export interface HereRun {
  cwd: string;
  job: string;
  measureDir: string;
  command: readonly string[];
  env: Env;
  policy: LedgerPolicy;
  /** The repository root (where .env is read), or the cwd outside a repository. */
  root: string;
  note: (line: string) => void;
}

export async function runHere(run: HereRun): Promise<number> {
  // Started over ssh by the wrapper on the other side: the end of stdin means that side is gone.
  const caller = readVar(run.env, 'laneSession') === '1' ? watchCaller(process.stdin) : null;
  try {
    return await measureHere(run, caller);
  } finally {
    caller?.stop();
  }
}

async function measureHere(run: HereRun, caller: CallerWatch | null): Promise<number> {
  const { job, note } = run;
  const dotenv = withDotenv(run.env, run.root);
  if (dotenv.badLines.length) note(`land batch: ignored .env line(s) ${dotenv.badLines.join(', ')} (not NAME=value)`);
  const env = dotenv.env;
  // .env may name a provider too; it gets the same check as the environment.
  const provider = checkProvider(env, run.policy.providers);
  if (provider.kind === 'refused') {
    note(`land batch: provider ${JSON.stringify(provider.provider)} (from .env) is not allowed; nothing run`);
    return BATCH_EXIT.providerRefused;
  }

  const ledgerDir = resolveLedgerDir(env, run.policy, run.root);
  if (ledgerDir === null) {
    note(`land batch: ${noLedgerDirMessage(env)}; nothing run`);
    return BATCH_EXIT.noLedgerDir;
  }
  const before = ledgerLineCount(ledgerDir, job);

  const measureDir = resolve(run.cwd, run.measureDir);
  try {
    mkdirSync(measureDir, { recursive: true });
  } catch (error) {
    throw new LandError('usage', `cannot create the measure dir ${measureDir}: ${(error as Error).message}`);
  }
  const gitHead = await revParse(run.cwd, 'HEAD').catch(() => null);
  const counts = emptyCounts();
  const ran = await runMeasured({
    command: run.command,
    cwd: run.cwd,
    env: { ...withoutSessionMark(env), LAND_LEDGER_TRACK: job, NEV_LEDGER_TRACK: job, LAND_LEDGER_DIR: ledgerDir },
    measureDir,
    onLine: (line) => countLine(counts, line),
    callerGone: caller?.gone,
  });

  const line = buildLedgerLine({ ...ran, job, host: hostname(), gitHead, cwd: run.cwd, measureDir, counts });
  const appended = appendLedgerLine(ledgerDir, line);
  // The count is checked as well as the write: the line must be there for the job's ledger check.
  if (appended.kind === 'failed' || ledgerLineCount(ledgerDir, job) <= before) {
    const why = appended.kind === 'failed' ? appended.reason : 'the ledger file did not grow';
    note(`land batch: no ledger line was written for ${job} to ${appended.path}: ${why}`);
    return ran.status !== 0 ? ran.status : BATCH_EXIT.noLedgerLine;
  }
  return finalStatus(ran.status, ran.interruptedBy);
}

/** The session mark is this wrapper's own: a `land batch` inside the batch has no session on its stdin. */
function withoutSessionMark(env: Env): Env {
  const rest = { ...env };
  for (const name of ENV_NAMES.laneSession) delete rest[name];
  return rest;
}
