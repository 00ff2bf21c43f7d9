// Sentences for the parts of a job record that are nested objects: the fast-path decision, the
// gate telemetry and the ledger lines of batch stages.
import { PROOF_REFUSALS, type ProofRefusal } from '../landing/proof.js';

const OTHER_REFUSALS: Record<string, string> = {
  conflict: 'the tip conflicts with the target',
  cached_fail: 'the verdict cache holds a FAIL for this tree',
  proofs_disabled: 'proofs are disabled (proof.enabled: false)',
  refresh_pending: 'a local proof does not cover the refresh entries this change triggers',
};

export function describeFastPath(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const fp = value as { alone?: boolean; source?: string; proofSource?: string | null; refusal?: string; base?: string; cachedFrom?: string | null };
  const on = fp.base ? ` on ${fp.base.slice(0, 12)}` : '';
  if (fp.alone) return `lands alone without a gate: ${fp.source === 'cache' ? 'cached PASS' : `${fp.proofSource ?? ''} proof`.trim()}${on}`;
  // A lone train judged by a cached FAIL: no gate ran, and no fast path was taken.
  if (fp.refusal === 'cached_fail' && fp.cachedFrom) return `failed from the verdict cache: the same tree failed in train ${fp.cachedFrom}${on}`;
  const refusal = fp.refusal ?? 'no_pass';
  const why = PROOF_REFUSALS[refusal as ProofRefusal] ?? OTHER_REFUSALS[refusal] ?? refusal;
  return `gated (${refusal}): ${why}${on}`;
}

function list(value: unknown): string {
  return Array.isArray(value) && value.length ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '-';
}

export function describeGate(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  const gate = value as Record<string, unknown>;
  const lines = [`mode ${String(gate.mode ?? '?')}${gate.planBase ? ` on ${String(gate.planBase).slice(0, 12)}` : ''}`];
  if (gate.source) {
    const verdict = typeof gate.cachedVerdict === 'string' ? `${gate.cachedVerdict} of ` : '';
    lines.push(`from ${String(gate.source)}${gate.cachedFrom ? ` (${verdict}train ${String(gate.cachedFrom)})` : ''}${gate.cachedLog ? `; log ${String(gate.cachedLog)}` : ''}`);
  }
  if (gate.selected) lines.push(`selected ${list(gate.selected)}`);
  lines.push(`executed ${list(gate.executed)}`);
  if (Array.isArray(gate.cached) && gate.cached.length) {
    lines.push(`cached ${(gate.cached as { gate: string; from: string }[]).map((c) => `${c.gate} (PASS at ${c.from.slice(0, 12)})`).join(', ')}`);
  }
  if (gate.missReasons && typeof gate.missReasons === 'object') {
    for (const [name, why] of Object.entries(gate.missReasons as Record<string, string>)) lines.push(`runs ${name}: ${why}`);
  }
  if (gate.fallbackReason) lines.push(`fallback: ${String(gate.fallbackReason)}`);
  if (Array.isArray(gate.refreshed)) lines.push(`refreshed: ${list(gate.refreshed)}`);
  return lines;
}

export function describeLedger(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, Record<string, unknown>>).map(([gate, line]) => {
    if (line.missing) return `${gate}: no ledger line found${line.ledgerDir ? ` in ${String(line.ledgerDir)}` : ''}`;
    const parts = [`${gate}: ledger line of ${String(line.job)}, exit ${String(line.status)}`];
    if (line.wallSeconds !== undefined) parts.push(`${String(line.wallSeconds)}s wall`);
    if (line.cpuSeconds !== undefined) parts.push(`${String(line.cpuSeconds)}s CPU`);
    if (line.start) parts.push(`started ${String(line.start)}`);
    return parts.join(', ');
  });
}
