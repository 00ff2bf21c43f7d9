// The ledger-enforcing batch wrapper and the ledger it writes. The engine uses resolveLedgerDir
// and findLedgerLine to show a batch stage's ledger line.
export { runBatch } from './runBatch.js';
export type { BatchRequest } from './runBatch.js';
export { BATCH_EXIT, statusOf } from './exitCodes.js';
export { resolveLedgerDir, noLedgerDirMessage } from './ledgerDir.js';
export type { LedgerDirPolicy } from './ledgerDir.js';
export { readLedgerPolicy } from './ledgerPolicy.js';
export type { LedgerPolicy, LedgerPolicySource } from './ledgerPolicy.js';
export { findLedgerLine, readLedger, appendLedgerLine, ledgerLineCount } from './ledgerStore.js';
export type { LedgerRead, AppendOutcome } from './ledgerStore.js';
export { ledgerLineSchema, ledgerFile, buildLedgerLine, LEDGER_LINE_VERSION } from './ledgerLine.js';
export type { LedgerLine } from './ledgerLine.js';
export { parseCounts, countLine, emptyCounts } from './counts.js';
export type { BatchCounts } from './counts.js';
export { withDotenv, parseDotenv } from './dotenv.js';
export { assertJobName } from './jobName.js';
export { ENV_NAMES, readVar } from './envNames.js';
export type { Env } from './envNames.js';
export { ledgerDirOrThrow } from './ledgerLocation.js';
