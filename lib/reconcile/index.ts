export { reconcile, gatherEvidence } from './run.js';
export type { ReconcileOptions } from './run.js';
export { resolveUncertain, parseResolveState, RESOLVE_STATES } from './resolve.js';
export type { ResolveState } from './resolve.js';
export { checkJob, landingRefuted, planPage } from './checks.js';
export { selectPage, parseLimit, parseAfter, DEFAULT_LIMIT, MAX_LIMIT } from './page.js';
export { CHECK_KINDS } from './types.js';
export type { CheckKind, Finding, Evidence, GitEvidence, ReconcileResult, UncertainJob } from './types.js';
