import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendLedgerLine,
  buildLedgerLine,
  emptyCounts,
  findLedgerLine,
  ledgerLineCount,
  readLedger,
  resolveLedgerDir,
  statusOf,
  parseDotenv,
} from '../../lib/ledger/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterEach(() => cleanupTempDirs());

function line(job: string, start: string) {
  return buildLedgerLine({
    job,
    start: new Date(start),
    end: new Date(Date.parse(start) + 90_000),
    cpuSeconds: 7200,
    peakRssBytes: 1024,
    exitCode: 0,
    signal: null,
    status: 0,
    interruptedBy: null,
    host: 'lane-1',
    gitHead: null,
    cwd: '/repo',
    measureDir: '/repo/m',
    counts: emptyCounts(),
  });
}

describe('ledger lines', () => {
  it('builds wall, CPU seconds and CPU-hours', () => {
    expect(line('gen', '2025-01-01T00:00:00Z')).toMatchObject({ version: 1, track: 'gen', wallSeconds: 90, cpuSeconds: 7200, cpuHours: 2 });
  });

  it('appends, counts and finds the latest line since a time; a torn last line is skipped and reported', () => {
    const dir = join(tempDir(), 'ledger');
    expect(ledgerLineCount(dir, 'gen')).toBe(0);
    expect(appendLedgerLine(dir, line('gen', '2025-01-01T00:00:00Z')).kind).toBe('written');
    appendLedgerLine(dir, line('gen', '2025-01-02T00:00:00Z'));
    appendFileSync(join(dir, 'gen.jsonl'), '{"version":1,"job":"gen","sta');
    expect(ledgerLineCount(dir, 'gen')).toBe(2);
    const read = readLedger(dir, 'gen');
    expect(read).toMatchObject({ tornTail: true, badLines: [3] });
    expect(read.lines).toHaveLength(2);
    expect(findLedgerLine(dir, 'gen', '2025-01-01T12:00:00Z')?.start).toBe('2025-01-02T00:00:00.000Z');
    expect(findLedgerLine(dir, 'gen', '2025-01-01T00:00:00Z')?.start).toBe('2025-01-02T00:00:00.000Z');
    expect(findLedgerLine(dir, 'gen', '2025-01-03T00:00:00Z')).toBeNull();
    expect(findLedgerLine(dir, 'other', '2025-01-01T00:00:00Z')).toBeNull();
  });

  it('reports an append that fails instead of throwing', () => {
    const scratch = tempDir();
    writeFileSync(join(scratch, 'file'), '');
    const outcome = appendLedgerLine(join(scratch, 'file', 'ledger'), line('gen', '2025-01-01T00:00:00Z'));
    expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringContaining('ENOTDIR') });
  });

  it('refuses a job name that is not a plain name', () => {
    expect(() => findLedgerLine('/tmp', '../x', '2025-01-01T00:00:00Z')).toThrow(/invalid job name/);
  });
});

describe('resolveLedgerDir', () => {
  it('explicit variable, then policy ledger.dir, then <shared>/ledger when the shared dir exists', () => {
    const shared = tempDir();
    mkdirSync(join(shared, 'x'));
    expect(resolveLedgerDir({ LAND_LEDGER_DIR: '/a', NEV_LEDGER_DIR: '/b', LAND_LANE_SHARED: shared }, { dir: '/p' })).toBe('/a');
    expect(resolveLedgerDir({ NEV_LEDGER_DIR: '/b' }, { dir: '/p' })).toBe('/b');
    expect(resolveLedgerDir({ LAND_LANE_SHARED: shared }, { dir: 'rel' }, '/repo')).toBe('/repo/rel');
    expect(resolveLedgerDir({ GENERA_LANE_SHARED: shared })).toBe(join(shared, 'ledger'));
    expect(resolveLedgerDir({ LAND_LANE_SHARED: join(shared, 'missing'), NEV_LANE_SHARED: shared })).toBeNull();
    expect(resolveLedgerDir({})).toBeNull();
  });
});

describe('small pieces', () => {
  it('statusOf: the exit code, or 128 + the signal number', () => {
    expect(statusOf(3, null)).toBe(3);
    expect(statusOf(null, 'SIGTERM')).toBe(143);
    expect(statusOf(null, 'SIGINT')).toBe(130);
  });

  it('parseDotenv: assignments, export, quotes, comments; bad lines by number only', () => {
    const parsed = parseDotenv('# c\nA=1\nexport B = "two words"\nC=\'$raw\' \nD=x # note\nnot a line\nE="open\n');
    expect(parsed.values).toEqual({ A: '1', B: 'two words', C: '$raw', D: 'x' });
    expect(parsed.badLines).toEqual([6, 7]);
  });
});
