// How gates will run, as `land config` and `land status` say it: the policy's mode against what this
// machine offers (bwrap looked for on PATH, not started, so these commands stay quick; `land
// doctor` starts one).
import type { Policy } from '../config/index.js';
import { describeSandbox, sandboxDecision, sandboxMode } from '../landing/gates/sandbox.js';
import { sandboxPresence } from '../proc/sandbox/index.js';
import type { QueueStore } from '../store/index.js';

export interface SandboxView {
  mode: string;
  /** sandbox: gates are sandboxed; unsandboxed: they run as the drainer; refused: land run exits 14. */
  gates: 'sandbox' | 'unsandboxed' | 'refused';
  line: string;
}

export function sandboxView(store: QueueStore, policy: Policy): SandboxView {
  const support = sandboxPresence();
  const mode = sandboxMode(policy.sandbox, { defaultMode: store.defaultSandboxMode() });
  const decision = sandboxDecision(mode, support);
  return { mode, gates: decision.kind, line: describeSandbox(mode, decision, policy.sandbox.network) };
}
