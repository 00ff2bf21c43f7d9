export { nowIso, dayStamp } from './clock.js';
export { applyChanges, applyChangesLocked, createJobLocked, canTransition, REOPEN_EVENTS, RECONCILE_EVENTS } from './transition.js';
export { beginUnsyncedLocked, checkRecord, endUnsynced, sameRecord, settleRestartLocked, type PowerCutRepair, type RecordCheck } from './unsyncedWrites.js';
export { foldJournal, rebuildJobLocked, rebuildEveryMissingLocked, recordDelta } from './rebuild.js';
export {
  rebuildMissingLocked,
  syncIndexLocked,
  listActiveJobs,
  listActiveJobsSync,
  recentFinishedJobs,
  jobsOfBranchLocked,
  runningJobsLocked,
  allocateJobIdLocked,
  jobsChangedSince,
  activeEntries,
} from './activeSet.js';
export type { ActiveListing, IndexSync, RebuildReason } from './activeSet.js';
export type { Fold, MissingRecords } from './rebuild.js';
export type { JobChange, JobPatch } from './transition.js';
export {
  startChanges,
  requeueChanges,
  failChanges,
  badTipChanges,
  cancelChange,
  cancelChanges,
  stopRequestChange,
  tipUpdateChange,
  reopenChange,
  landChanges,
  landingChanges,
  rejoinChanges,
  fastPathCheckedChange,
  fastPathNotedChanges,
  regatedChanges,
  ledgerObservedChanges,
  rerunChanges,
  clearedChanges,
  flakyChanges,
  targetFlakyChanges,
} from './changes.js';
export type { RequeueOptions, FailInfo, LandInfo, ReopenEvent } from './changes.js';
export { runnableJobs, displayOrder, compareLandingOrder } from './order.js';
export { nextJobId, newBatchId } from './ids.js';
export { submitJob, assertBranchName, newJobRecord, jobTarget } from './submit.js';
export type { SubmitRequest, SubmitOutcome } from './submit.js';
export { cancelJob, retryJobs, readJobOrThrow } from './stop.js';
export type { CancelOutcome, RetryOutcome } from './stop.js';
export { planRetry } from './retryPlan.js';
export type { RetryRequest, RetryPlan } from './retryPlan.js';
export { describeReopenedFrom } from './reopen.js';
export type { ReopenedFrom } from './reopen.js';
