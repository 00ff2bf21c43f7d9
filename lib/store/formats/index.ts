// Every persisted format of the state folder, one module each (docs/state.md names each file's).
export * from './isRecord.js';
export * from './fastCheck.js';
export * from './gateRecords.js';
export * from './ledgerLine.js';
export * from './jobReason.js';
export * from './jobRecord.js';
export * from './jobShape.js';
export * from './journalLine.js';
export * from './metricsRow.js';
export * from './prunedJob.js';
export * from './proof.js';
export * from './window.js';
export * from './verdict.js';
export * from './lease.js';
export * from './gatePasses.js';
export * from './protectHook.js';
export * from './notification.js';
