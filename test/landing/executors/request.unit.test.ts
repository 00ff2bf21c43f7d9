// The request a drainer sends an executor's runner on standard input: read with one schema, and
// anything else refused with a one-line reason (INFRA for the run, never a verdict).
import { describe, expect, it } from 'vitest';
import { executorRequestLine, parseExecutorRequest, passEnvValues, type ExecutorRequestInput } from '../../../lib/landing/executors/request.js';
import { remoteDeadlineMs } from '../../../lib/landing/executors/remoteRun.js';

const tip = 'a'.repeat(40);
const base = 'b'.repeat(40);
const request: ExecutorRequestInput = {
  v: 1,
  slot: 1,
  commit: tip,
  gates: [{ name: 'test', run: 'npm test', timeoutSeconds: 600, passEnv: ['NPM_TOKEN'] }],
  sandbox: { mode: 'required' },
  train: { LAND_TIP: tip, LAND_BASE: base, LAND_JOB: 'j1', LAND_MEMBERS: 'j1', LAND_TRAIN: 't1' },
  passEnv: { NPM_TOKEN: 'secret' },
  logMaxBytes: 1024 * 1024,
};

describe('the executor request', () => {
  it('travels as one line and is read back with the schema’s defaults', () => {
    const line = executorRequestLine(request);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const parsed = parseExecutorRequest(line.trim());
    expect(parsed.ok && parsed.request.gates[0]).toEqual({ name: 'test', run: 'npm test', timeoutSeconds: 600, env: {}, passEnv: ['NPM_TOKEN'] });
    expect(parsed.ok && parsed.request.sandbox).toEqual({ mode: 'required', network: false, readOnly: [], readWrite: [] });
  });

  it('refuses what is not a request, naming the first problem on one line', () => {
    const bad = (change: Record<string, unknown>) => parseExecutorRequest(JSON.stringify({ ...request, ...change }));
    expect(parseExecutorRequest('{"v":1')).toEqual({ ok: false, reason: 'the request is not JSON' });
    expect(bad({ v: 2 })).toMatchObject({ ok: false, reason: expect.stringMatching(/^the request is invalid \(v: /) });
    expect(bad({ commit: 'main' })).toMatchObject({ reason: expect.stringMatching(/\(commit: expected a full commit id\)/) });
    expect(bad({ slot: 16 })).toMatchObject({ reason: expect.stringMatching(/\(slot: /) });
    expect(bad({ gates: [] })).toMatchObject({ reason: expect.stringMatching(/\(gates: /) });
    expect(bad({ sandbox: {} })).toMatchObject({ reason: expect.stringMatching(/\(sandbox\.mode: /) }); // the drainer resolves it
    expect(bad({ extra: 1 })).toMatchObject({ ok: false });
    expect(bad({ passEnv: { 'A-B': 'x' } })).toMatchObject({ ok: false });
  });

  it('carries only the passEnv values the gates name and the drainer has', () => {
    const gates = [{ passEnv: ['NPM_TOKEN', 'ABSENT'] }, {}];
    expect(passEnvValues(gates, { NPM_TOKEN: 't', LAND_TOKEN: 'never', HOME: '/root' })).toEqual({ NPM_TOKEN: 't' });
  });

  it('gives a run every gate’s timeout plus a margin before the executor counts as lost', () => {
    expect(remoteDeadlineMs([{ timeoutSeconds: 600 }, { timeoutSeconds: 30 }])).toBe((630 + 120) * 1000);
  });
});
