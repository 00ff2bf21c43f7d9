// A job record's `reason`: why it is where it is (requeued, failed, canceled, uncertain). Writers
// take JobReason, the union of every reason this version writes. Readers accept any string: a
// record written by an earlier version may hold a reason no longer written, and it stays readable
// (and is shown as it is), never mapped to another (docs/state.md).

/** Every kind of disagreement `land reconcile` finds, named as docs/reconcile.md's table names it; an uncertain job's reason is the check that found it. */
export const CHECK_KINDS = [
  'stranded_landed',
  'stranded',
  'landed_not_in_target',
  'train_in_target',
  'journal_ahead',
  'unjournaled',
  'metrics_row_missing',
  'metrics_row_not_in_target',
  'ledger_line_missing',
] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export const JOB_REASONS = [
  // a gate's verdict (lib/landing/gates/gateRunner.ts) and a refresh entry's failure
  'gate',
  'timeout',
  'no_ledger_line',
  'refresh',
  'policy_refused',
  // infrastructure: nothing was tested (requeued, or failed with reason infra once retries.infra is spent)
  'infra',
  'no_lane',
  'no_ledger_store',
  'gate_not_started',
  'worktree',
  // the train: bisection, the target, the CAS, a member withdrawn or the drain stopped
  'bisected',
  'culprit_found',
  'target_red',
  'target_dirty',
  'hook_off',
  'cas_lost',
  'withdrawn',
  'interrupted',
  'preempted',
  'speculation_abandoned',
  // the job: a conflict, a tip that is no commit, a cancel, recovery and reconcile
  'conflict',
  'conflict_with_train',
  'bad_tip',
  'canceled',
  'recovered',
  'resolved',
  // an uncertain job: the `land reconcile` check that found it
  ...CHECK_KINDS,
] as const;
export type JobReason = (typeof JOB_REASONS)[number];

/** The gate runner's infrastructure failures (a train's members go back to the queue). */
export type InfraReason = Extract<JobReason, 'no_lane' | 'no_ledger_store' | 'gate_not_started' | 'worktree'>;
