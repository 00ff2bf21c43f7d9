// Selective gates. A gate with `paths` runs only when the train changes a matching file; otherwise
// its last PASS on an ancestor of the train counts. The plan is a pure function of the changed
// paths and the ancestors' per-gate PASS records (planSelection); selectGates gathers those from
// git and the store; recordGatePasses writes the records after a train PASS. When the selection
// cannot be computed, every gate runs and the reason is kept in the telemetry.
import { gatesHash, type Gate } from '../../config/index.js';
import { changedPaths, firstParentChain, GitError, isAncestor } from '../../git/index.js';
import type { QueueStore, SelectionTelemetry } from '../../store/index.js';
import { matchingPaths } from '../plan/glob.js';

/** How far back along the target's first-parent history an ancestor's PASS is looked for. */
export const ANCESTOR_LIMIT = 50;

/** The selection's part of the gate telemetry (declared with the job record, lib/store/formats/gateRecords.ts). */
export type { SelectionTelemetry };

export interface SelectionPlan {
  gates: Gate[];
  telemetry: SelectionTelemetry;
}

/** What the store and git say about the nearest ancestor PASS of one path-scoped gate. */
export type AncestorPass =
  /** `changed`: the paths changed between that ancestor and the train. */
  | { kind: 'found'; commit: string; changed: readonly string[] }
  | { kind: 'none' }
  /** The recorded commit is not an ancestor of the train (history was rewritten). */
  | { kind: 'rewritten'; commit: string };

export interface SelectionInput {
  gates: readonly Gate[];
  planBase: string;
  /** Paths changed between the plan base and the train; null when they could not be computed. */
  changed: readonly string[] | null;
  /** For each path-scoped gate the train does not touch: its nearest ancestor PASS. */
  ancestors: Readonly<Record<string, AncestorPass>>;
  /** A reason that forces every gate to run (for example git could not answer). */
  fallback?: string | null;
}

const LISTED = 3;

function listPaths(paths: readonly string[]): string {
  const head = paths.slice(0, LISTED).join(', ');
  return paths.length > LISTED ? `${head} (+${paths.length - LISTED} more)` : head;
}

/** The path-scoped gates whose paths the change does not touch: they need an ancestor's PASS. */
export function gatesNeedingAncestor(gates: readonly Gate[], changed: readonly string[]): Gate[] {
  return gates.filter((gate) => gate.paths !== undefined && matchingPaths(changed, gate.paths).length === 0);
}

function fullRun(input: SelectionInput, fallbackReason: string | null, reasons: Record<string, string>): SelectionPlan {
  const missReasons: Record<string, string> = {};
  for (const gate of input.gates) missReasons[gate.name] = reasons[gate.name] ?? (fallbackReason ? 'fallback: every gate runs' : 'runs');
  return {
    gates: [...input.gates],
    telemetry: {
      mode: 'full',
      planBase: input.planBase,
      selected: input.gates.map((gate) => gate.name),
      executed: [],
      cached: [],
      missReasons,
      fallbackReason,
    },
  };
}

/** Decides, for every gate, whether it runs or an ancestor's PASS counts. Pure. */
export function planSelection(input: SelectionInput): SelectionPlan {
  if (input.fallback) return fullRun(input, input.fallback, {});
  if (input.changed === null) return fullRun(input, 'the changed paths could not be computed', {});
  const changed = input.changed;
  const run: Gate[] = [];
  const cached: { gate: string; from: string }[] = [];
  const missReasons: Record<string, string> = {};
  for (const gate of input.gates) {
    if (gate.paths === undefined) {
      run.push(gate);
      missReasons[gate.name] = 'no paths: always runs';
      continue;
    }
    const touched = matchingPaths(changed, gate.paths);
    if (touched.length) {
      run.push(gate);
      missReasons[gate.name] = `changed: ${listPaths(touched)}`;
      continue;
    }
    const ancestor = input.ancestors[gate.name] ?? { kind: 'none' };
    switch (ancestor.kind) {
      case 'none':
        return fullRun(input, `no ancestor verdict for gate ${gate.name}`, missReasons);
      case 'rewritten':
        return fullRun(
          input,
          `history rewritten: ${ancestor.commit.slice(0, 12)} (last PASS of gate ${gate.name}) is not an ancestor of the train`,
          missReasons,
        );
      case 'found': {
        const since = matchingPaths(ancestor.changed, gate.paths);
        if (since.length) {
          run.push(gate);
          missReasons[gate.name] = `changed since its last PASS at ${ancestor.commit.slice(0, 12)}: ${listPaths(since)}`;
        } else {
          cached.push({ gate: gate.name, from: ancestor.commit });
        }
        break;
      }
      default: {
        const never: never = ancestor;
        throw new Error(`unknown ancestor ${JSON.stringify(never)}`);
      }
    }
  }
  return {
    gates: run,
    telemetry: {
      mode: cached.length ? 'selective' : 'full',
      planBase: input.planBase,
      selected: run.map((gate) => gate.name),
      executed: [],
      cached,
      missReasons,
      fallbackReason: null,
    },
  };
}

/** The hash a per-gate PASS record holds for a gate: a change to that gate's definition changes it. */
export function gateHash(gate: Gate): string {
  return gatesHash([gate]);
}

/**
 * Gathers what planSelection needs: the paths the train changes since `base`, and for each
 * path-scoped gate it does not touch, the nearest commit on base's first-parent history (at most
 * ANCESTOR_LIMIT) with a PASS record of that gate under its current definition.
 */
export async function selectGates(opts: {
  cwd: string;
  store: QueueStore;
  gates: readonly Gate[];
  base: string;
  train: string;
  /** The tree the gates see (trusted paths restored from the target); paths are compared with it. Default: the train's. */
  gated?: string;
}): Promise<SelectionPlan> {
  const { cwd, store, gates, base, train } = opts;
  // A change to a trusted path is not what the gates see (they get the target's version): it
  // does not select a gate in this train; it counts once landed (docs/policy.md#trusted).
  const content = opts.gated ?? train;
  const input: SelectionInput = { gates, planBase: base, changed: null, ancestors: {} };
  if (!gates.some((gate) => gate.paths !== undefined)) return planSelection({ ...input, changed: [] });
  try {
    const changed = await changedPaths(cwd, base, content);
    const needing = gatesNeedingAncestor(gates, changed);
    const ancestors: Record<string, AncestorPass> = {};
    if (needing.length) {
      const chain = await firstParentChain(cwd, base, ANCESTOR_LIMIT);
      const changedSince = new Map<string, readonly string[]>();
      const reachable = new Map<string, boolean>();
      const records = new Map<string, Record<string, string> | null>();
      const passesOf = (commit: string) => {
        if (!records.has(commit)) records.set(commit, store.readGatePasses(commit));
        return records.get(commit) ?? null;
      };
      for (const gate of needing) {
        const want = gateHash(gate);
        const commit = chain.find((candidate) => passesOf(candidate)?.[gate.name] === want);
        if (commit === undefined) {
          ancestors[gate.name] = { kind: 'none' };
          continue;
        }
        if (!reachable.has(commit)) reachable.set(commit, await isAncestor(cwd, commit, train));
        if (!reachable.get(commit)) {
          ancestors[gate.name] = { kind: 'rewritten', commit };
          continue;
        }
        if (!changedSince.has(commit)) changedSince.set(commit, await changedPaths(cwd, commit, content));
        ancestors[gate.name] = { kind: 'found', commit, changed: changedSince.get(commit) ?? [] };
      }
    }
    return planSelection({ ...input, changed, ancestors });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return planSelection({ ...input, fallback: `git could not compute the selection: ${error.message}` });
  }
}

/**
 * After a train PASS: records, on the train commit, every gate that passed there (executed) or
 * whose ancestor PASS still held (cached), merged with what the commit already had.
 */
export function recordGatePasses(store: QueueStore, trainCommit: string, gates: readonly Gate[], executedOrCached: readonly string[]): void {
  const names = new Set(executedOrCached);
  const passes: Record<string, string> = { ...(store.readGatePasses(trainCommit) ?? {}) };
  for (const gate of gates) if (names.has(gate.name)) passes[gate.name] = gateHash(gate);
  store.writeGatePasses(trainCommit, passes);
}
