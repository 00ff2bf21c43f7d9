export { nowIso, dayStamp } from './clock.js';
export { applyChanges, applyChangesLocked, transition, createJobLocked, canTransition } from './transition.js';
export type { JobChange } from './transition.js';
export { runnableJobs, displayOrder, compareLandingOrder } from './order.js';
export { nextJobId, newBatchId } from './ids.js';
export { submitJob, assertBranchName, newJobRecord, jobTarget } from './submit.js';
export type { SubmitRequest, SubmitOutcome } from './submit.js';
export { cancelJob, retryJob, readJobOrThrow } from './stop.js';
export type { CancelOutcome } from './stop.js';
