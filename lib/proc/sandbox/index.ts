export { bwrapArgs, SANDBOX_HOME, SANDBOX_PRIVATE, sandboxFailed } from './plan.js';
export type { SandboxMount, SandboxPlan, SystemEntry } from './plan.js';
export { findBwrap, probeSandbox, sandboxPresence } from './mechanism.js';
export type { Mechanism, SandboxSupport } from './mechanism.js';
export { makeScratch, removeScratch, systemEntries, toolFolders, within } from './layout.js';
export type { Scratch } from './layout.js';
export { withSandbox } from './run.js';
export type { Sandboxed, SandboxSpec } from './run.js';
