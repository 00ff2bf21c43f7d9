// Selective gates: the pure planner, then selectGates and recordGatePasses on a real repository.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { policySchema, type Gate } from '../../../lib/config/index.js';
import { gateHash, planSelection, recordGatePasses, selectGates } from '../../../lib/landing/gates/selection.js';
import { openStore } from '../../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../../helpers/repo.js';

afterAll(() => cleanupTempDirs());

function gatesOf(gates: unknown[]): Gate[] {
  return policySchema.parse({ target: 'main', gates }).gates;
}

const GATES = gatesOf([
  { name: 'unit', run: ['true'] },
  { name: 'docs', run: ['true'], paths: ['docs/**'] },
  { name: 'bench', run: ['true'], paths: ['bench/**', 'package.json'] },
]);
const BASE = '1'.repeat(40);
const X = '2'.repeat(40);

describe('planSelection', () => {
  it('always runs a gate without paths; runs a path-scoped gate whose paths changed', () => {
    const plan = planSelection({ gates: GATES, planBase: BASE, changed: ['docs/a.md', 'bench/b.ts'], ancestors: {} });
    expect(plan.gates.map((g) => g.name)).toEqual(['unit', 'docs', 'bench']);
    expect(plan.telemetry).toEqual({
      mode: 'full',
      planBase: BASE,
      selected: ['unit', 'docs', 'bench'],
      executed: [],
      cached: [],
      missReasons: { unit: 'no paths: always runs', docs: 'changed: docs/a.md', bench: 'changed: bench/b.ts' },
      fallbackReason: null,
    });
  });

  it('skips an untouched gate whose ancestor PASS still holds', () => {
    const plan = planSelection({
      gates: GATES,
      planBase: BASE,
      changed: ['src/x.ts'],
      ancestors: { docs: { kind: 'found', commit: X, changed: ['src/x.ts', 'src/y.ts'] }, bench: { kind: 'found', commit: BASE, changed: ['src/x.ts'] } },
    });
    expect(plan.gates.map((g) => g.name)).toEqual(['unit']);
    expect(plan.telemetry).toMatchObject({
      mode: 'selective',
      selected: ['unit'],
      cached: [
        { gate: 'docs', from: X },
        { gate: 'bench', from: BASE },
      ],
      fallbackReason: null,
    });
  });

  it('runs a gate whose paths changed since its last PASS, even when the train itself does not touch them', () => {
    const plan = planSelection({
      gates: GATES,
      planBase: BASE,
      changed: ['src/x.ts'],
      ancestors: { docs: { kind: 'found', commit: X, changed: ['docs/old.md', 'src/x.ts'] }, bench: { kind: 'found', commit: X, changed: ['src/x.ts'] } },
    });
    expect(plan.telemetry.selected).toEqual(['unit', 'docs']);
    expect(plan.telemetry.missReasons.docs).toBe(`changed since its last PASS at ${X.slice(0, 12)}: docs/old.md`);
    expect(plan.telemetry.cached).toEqual([{ gate: 'bench', from: X }]);
  });

  it('falls back to every gate, with the reason, when an ancestor verdict is missing or rewritten', () => {
    const none = planSelection({ gates: GATES, planBase: BASE, changed: ['src/x.ts'], ancestors: { bench: { kind: 'found', commit: X, changed: [] } } });
    expect(none.gates).toHaveLength(3);
    expect(none.telemetry).toMatchObject({ mode: 'full', cached: [], fallbackReason: 'no ancestor verdict for gate docs' });
    expect(Object.keys(none.telemetry.missReasons)).toEqual(['unit', 'docs', 'bench']);

    const rewritten = planSelection({
      gates: GATES,
      planBase: BASE,
      changed: [],
      ancestors: { docs: { kind: 'rewritten', commit: X }, bench: { kind: 'found', commit: X, changed: [] } },
    });
    expect(rewritten.telemetry.selected).toEqual(['unit', 'docs', 'bench']);
    expect(rewritten.telemetry.fallbackReason).toMatch(/^history rewritten: 222222222222 .*gate docs/);

    const unknown = planSelection({ gates: GATES, planBase: BASE, changed: null, ancestors: {} });
    expect(unknown.telemetry.fallbackReason).toBe('the changed paths could not be computed');
  });

  it('lists at most three paths in a reason', () => {
    const plan = planSelection({
      gates: GATES,
      planBase: BASE,
      changed: ['docs/1', 'docs/2', 'docs/3', 'docs/4', 'docs/5'],
      ancestors: { bench: { kind: 'found', commit: X, changed: [] } },
    });
    expect(plan.telemetry.missReasons.docs).toBe('changed: docs/1, docs/2, docs/3 (+2 more)');
  });
});

describe('gate-pass records', () => {
  it('round-trips, merges, and treats a corrupt or foreign record as a miss', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const commit = repo.tip('main');
    expect(store.readGatePasses(commit)).toBeNull();
    recordGatePasses(store, commit, GATES, ['docs']);
    recordGatePasses(store, commit, GATES, ['unit', 'not-a-gate']);
    expect(store.readGatePasses(commit)).toEqual({ docs: gateHash(GATES[1] as Gate), unit: gateHash(GATES[0] as Gate) });
    writeFileSync(`${store.root}/gate-passes/${commit}.json`, '{"commit":');
    expect(store.readGatePasses(commit)).toBeNull();
    writeFileSync(`${store.root}/gate-passes/${commit}.json`, JSON.stringify({ commit: 'f'.repeat(40), gates: {} }));
    expect(store.readGatePasses(commit)).toBeNull();
    expect(() => store.readGatePasses('../../etc/passwd')).toThrow(/invalid object id/);
  });
});

describe('selectGates', () => {
  const SCOPED = gatesOf([
    { name: 'unit', run: ['true'] },
    { name: 'docs', run: ['true'], paths: ['docs/**'] },
  ]);

  it('counts an ancestor PASS along the first-parent history, and runs the gate when its paths change', async () => {
    const repo = makeRepo();
    const passed = repo.commit('docs', { 'docs/a.md': 'a\n' });
    const store = await openStore(repo.dir);
    recordGatePasses(store, passed, SCOPED, ['unit', 'docs']);
    repo.commit('src on main', { 'src/x.ts': 'x\n' });
    const base = repo.tip('main');

    const srcOnly = repo.branch('src-change', { 'src/y.ts': 'y\n' });
    const plan = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train: srcOnly });
    expect(plan.gates.map((g) => g.name)).toEqual(['unit']);
    expect(plan.telemetry).toMatchObject({ mode: 'selective', planBase: base, cached: [{ gate: 'docs', from: passed }], fallbackReason: null });

    const docsChange = repo.branch('docs-change', { 'docs/b.md': 'b\n' });
    const plan2 = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train: docsChange });
    expect(plan2.telemetry).toMatchObject({ mode: 'full', selected: ['unit', 'docs'], missReasons: { docs: 'changed: docs/b.md' }, fallbackReason: null });
  });

  it('runs the gate when its paths changed on the target after its last PASS', async () => {
    const repo = makeRepo();
    const passed = repo.commit('docs', { 'docs/a.md': 'a\n' });
    const store = await openStore(repo.dir);
    recordGatePasses(store, passed, SCOPED, ['docs']);
    repo.commit('docs on main, landed without a record', { 'docs/a.md': 'changed\n' });
    const base = repo.tip('main');
    const train = repo.branch('src-change', { 'src/y.ts': 'y\n' });
    const plan = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train });
    expect(plan.telemetry.selected).toEqual(['unit', 'docs']);
    expect(plan.telemetry.missReasons.docs).toBe(`changed since its last PASS at ${passed.slice(0, 12)}: docs/a.md`);
  });

  it('falls back to every gate when no ancestor has a PASS of the gate as it is now', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const base = repo.tip('main');
    const train = repo.branch('src-change', { 'src/y.ts': 'y\n' });
    const none = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train });
    expect(none.telemetry).toMatchObject({ mode: 'full', selected: ['unit', 'docs'], fallbackReason: 'no ancestor verdict for gate docs' });

    // A PASS of the gate under an older definition does not count.
    const older = gatesOf([{ name: 'docs', run: ['echo', 'old'], paths: ['docs/**'] }]);
    recordGatePasses(store, base, older, ['docs']);
    const changedGate = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train });
    expect(changedGate.telemetry.fallbackReason).toBe('no ancestor verdict for gate docs');
    recordGatePasses(store, base, SCOPED, ['docs']);
    expect((await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train })).telemetry.cached).toEqual([{ gate: 'docs', from: base }]);
  });

  it('falls back when the recorded ancestor is not an ancestor of the train (history rewritten)', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const base = repo.tip('main');
    recordGatePasses(store, base, SCOPED, ['docs']);
    // A train that was not built on base: another root with the same files plus one.
    repo.git('checkout', '-q', '--orphan', 'rewritten');
    const train = repo.commit('rewritten history', { 'src/z.ts': 'z\n' });
    repo.git('checkout', '-q', 'main');
    const plan = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base, train });
    expect(plan.telemetry.selected).toEqual(['unit', 'docs']);
    expect(plan.telemetry.fallbackReason).toMatch(/^history rewritten: .*not an ancestor of the train/);
  });

  it('needs no git history when no gate has paths, and falls back when git cannot answer', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const plain = gatesOf([{ name: 'unit', run: ['true'] }]);
    const plan = await selectGates({ cwd: repo.dir, store, gates: plain, base: repo.tip('main'), train: repo.tip('main') });
    expect(plan.telemetry).toMatchObject({ mode: 'full', selected: ['unit'], fallbackReason: null });
    const broken = await selectGates({ cwd: repo.dir, store, gates: SCOPED, base: 'f'.repeat(40), train: repo.tip('main') });
    expect(broken.telemetry.selected).toEqual(['unit', 'docs']);
    expect(broken.telemetry.fallbackReason).toMatch(/^git could not compute the selection/);
  });
});
