// Sentences for the parts of a job record that are nested objects: the fast-path decision, the
// gate telemetry and the ledger lines of batch stages.
import { advisoryFailures } from '../landing/gates/advisory.js';
import { trustedSentence } from '../landing/gates/trusted.js';
import { PROOF_REFUSALS } from '../landing/proofs/proof.js';
import {
  isMissingLedgerLine,
  type FastPathRecord,
  type FastPathRefusal,
  type FlakyRecord,
  type GateTelemetry,
  type JobRecord,
  type LedgerObservations,
  trustedTelemetrySchema,
} from '../store/index.js';

const REFUSALS: Record<FastPathRefusal, string> = {
  ...PROOF_REFUSALS,
  conflict: 'the tip conflicts with the target',
  cached_fail: 'the verdict cache holds a FAIL for this tree',
  proofs_disabled: 'proofs are disabled (proof.enabled: false)',
  refresh_pending: 'a local proof does not cover the refresh entries this change triggers',
  trusted_restored: "the proof tested the branch's own trusted paths, not the target's versions the gates use",
};

export function describeFastPath(fp: FastPathRecord | undefined): string | null {
  if (!fp) return null;
  const on = fp.base ? ` on ${fp.base.slice(0, 12)}` : '';
  if (fp.alone) return `lands alone without a gate: ${fp.source === 'cache' ? 'cached PASS' : `${fp.proofSource ?? ''} proof`.trim()}${on}`;
  // A lone train judged by a cached FAIL: no gate ran, and no fast path was taken.
  if (fp.refusal === 'cached_fail' && fp.cachedFrom) return `failed from the verdict cache: the same tree failed in train ${fp.cachedFrom}${on}`;
  return `gated (${fp.refusal}): ${REFUSALS[fp.refusal]}${on}`;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * The trusted paths (policy `trusted`) the job's branch changes, which its gates ran in the
 * target's version: from its last train's telemetry, else from the fast-path check of a queued job.
 */
export function describeTrusted(job: Pick<JobRecord, 'id' | 'gate' | 'fastPath'>): string | null {
  const parsed = trustedTelemetrySchema.safeParse(job.gate?.trusted);
  if (parsed.success) {
    const trusted = parsed.data;
    const mine = trusted.byJob[job.id] ?? [];
    if (mine.length) return trustedSentence(mine, 'job');
    return trusted.restored.length ? trustedSentence(trusted.restored, 'train') : null;
  }
  const restored = strings(job.fastPath?.restored);
  return restored.length ? trustedSentence(restored, 'job') : null;
}

function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : '-';
}

/** "advisory gate lint failed (exit 1); not counted": an advisory gate's failure as `land show` and `land why` tell it. */
export function advisorySentence(name: string, status: string): string {
  return `advisory gate ${name} failed (${status}); not counted`;
}

export function describeGate(gate: GateTelemetry | null): string[] {
  if (!gate) return [];
  const planBase = gate.mode === 'none' ? undefined : gate.planBase;
  const lines = [`mode ${gate.mode}${planBase ? ` on ${planBase.slice(0, 12)}` : ''}`];
  switch (gate.mode) {
    case 'cached':
      if (gate.source) {
        const verdict = gate.cachedVerdict ? `${gate.cachedVerdict} of ` : '';
        lines.push(`from ${gate.source}${gate.cachedFrom ? ` (${verdict}train ${gate.cachedFrom})` : ''}${gate.cachedLog ? `; log ${gate.cachedLog}` : ''}`);
      }
      // "executed -" read as a gate named "-": a cached verdict runs none.
      lines.push(gate.executed.length ? `executed ${list(gate.executed)}` : 'executed none (no gate ran: the verdict was not judged again)');
      return lines;
    case 'none':
      lines.push(`executed ${list(gate.executed)}`);
      return lines;
    case 'full':
    case 'selective':
      if (gate.selected) lines.push(`selected ${list(gate.selected)}`);
      lines.push(`executed ${list(gate.executed)}`);
      if (gate.cached?.length) lines.push(`cached ${gate.cached.map((c) => `${c.gate} (PASS at ${c.from.slice(0, 12)})`).join(', ')}`);
      for (const [name, why] of Object.entries(gate.missReasons ?? {})) lines.push(`runs ${name}: ${why}`);
      if (gate.fallbackReason) lines.push(`fallback: ${gate.fallbackReason}`);
      if (gate.refreshed) lines.push(`refreshed: ${list(gate.refreshed)}`);
      for (const result of advisoryFailures(gate.results ?? [])) lines.push(advisorySentence(result.name, result.status));
      return lines;
    default: {
      const never: never = gate;
      throw new Error(`unknown gate telemetry ${JSON.stringify(never)}`);
    }
  }
}

export function describeLedger(ledger: LedgerObservations | undefined): string[] {
  return Object.entries(ledger ?? {}).map(([gate, seen]) => {
    if (isMissingLedgerLine(seen)) return `${gate}: no ledger line found${seen.ledgerDir ? ` in ${seen.ledgerDir}` : ''}`;
    const parts = [`${gate}: ledger line of ${seen.job}, exit ${seen.status}`];
    parts.push(`${seen.wallSeconds}s wall`, `${seen.cpuSeconds}s CPU`);
    if (seen.start) parts.push(`started ${seen.start}`);
    return parts.join(', ');
  });
}

/** A flaky gate (policy flaky): which gate failed on which tree, in which run, and the run that passed. */
export function describeFlaky(flaky: FlakyRecord | undefined): string | null {
  if (!flaky) return null;
  const { failed, passed } = flaky;
  const where = failed.cached ? `the cached FAIL of train ${failed.train}` : `run ${failed.run} of train ${failed.train}`;
  // A cached run's status says where it came from ("exit 1 (cached: ...)"): `where` says it already.
  const status = (failed.status ?? 'FAIL').replace(/ \(cached: [^)]*\)$/, '');
  return `gate ${flaky.gate} failed (${status}) in ${where}, then passed in run ${passed.run} of train ${passed.train} on tree ${flaky.tree.slice(0, 12)}`;
}

/**
 * A failed job's `gateLogTail` as an indented block under its heading: the excerpt of the
 * failing gate's log as the record keeps them (`land show`, and `land why` where the log is not).
 */
export function describeLogTail(tail: readonly string[] | undefined, indent = ''): string[] {
  if (!tail) return [];
  if (!tail.length) return [`${indent}excerpt of the gate log: none (the gate printed nothing)`];
  return [`${indent}excerpt of the gate log (kept on the job record):`, ...tail.map((line) => `${indent}  | ${line}`)];
}
