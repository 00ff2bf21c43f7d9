export { policySchema, POLICY_FILE, SANDBOX_MODES } from './schema.js';
export type { Policy, PolicyInput, Gate, RefreshEntry, SandboxMode, SandboxPolicy, NotifyEntry, ExecutorEntry } from './schema.js';
export { parsePolicy, policyOrThrow } from './validate.js';
export type { PolicyParse } from './validate.js';
export { gatesHash, canonicalJson } from './gatesHash.js';
export { loadPolicy, policyOfRead, missingTargetError, missingTargetHint, resolveTargetName, namedTarget, DEFAULT_TARGET } from './load.js';
export type { LoadedPolicy } from './load.js';
export { policyJsonSchema } from './jsonSchema.js';
export { suggestTrusted, CI_FOLDERS } from './suggestTrusted.js';
