// Temp files: a failed write leaves none; one left by a killed writer is removed once its writer is
// gone (or it is old), never while a live writer may still rename it.
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isLandError } from '../../lib/errors.js';
import { resetFailpoints } from '../../lib/failpoint.js';
import { STALE_TEMP_MS, removeStaleTempFiles, writeJsonAtomic } from '../../lib/store/atomic.js';
import { appendJsonLine } from '../../lib/store/jsonl.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);
afterEach(() => {
  delete process.env.LAND_FAILPOINT;
  resetFailpoints();
});

describe('temp files of the state folder', () => {
  it('a write that fails for lack of space leaves no temp file and the old content whole (exit code no_space)', () => {
    const dir = tempDir();
    const path = join(dir, 'locks', 'drain-holder.json');
    writeJsonAtomic(path, { old: true });
    process.env.LAND_FAILPOINT = 'enospc-write';
    const error = (() => {
      try {
        writeJsonAtomic(path, { new: true });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(isLandError(error, 'no_space')).toBe(true);
    expect((error as Error).message).toMatch(/^could not write the drain-holder file \(.*drain-holder\.json\): no space left on device \(ENOSPC\)$/);
    expect(readdirSync(join(dir, 'locks'))).toEqual(['drain-holder.json']);
  });

  it('a journal line that cannot be written is no line; the next one starts on a fresh line after a torn one', () => {
    const dir = tempDir();
    const path = join(dir, 'journal.jsonl');
    writeFileSync(path, '{"a":1}\n{"torn":');
    process.env.LAND_FAILPOINT = 'enospc-write';
    expect(() => appendJsonLine(path, { b: 2 })).toThrow(/no space left on device/);
    delete process.env.LAND_FAILPOINT;
    appendJsonLine(path, { c: 3 });
    expect(readdirSync(dir)).toEqual(['journal.jsonl']);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"torn":\n{"c":3}\n');
  });

  it('removes temp files of dead writers and old ones, keeps a live writer’s fresh one', () => {
    const dir = join(tempDir(), 'jobs');
    mkdirSync(dir);
    const dead = 'j-1.json.tmp-999999999-0a1b2c3d'; // no such pid
    const live = `j-2.json.tmp-${process.ppid}-0a1b2c3d`;
    const oldLive = `j-3.json.tmp-${process.ppid}-deadbeef`;
    for (const name of [dead, live, oldLive, 'j-4.json']) writeFileSync(join(dir, name), '');
    const past = (Date.now() - STALE_TEMP_MS - 5_000) / 1000;
    utimesSync(join(dir, oldLive), past, past);
    expect(removeStaleTempFiles(dir).sort()).toEqual([dead, oldLive].sort());
    expect(readdirSync(dir).sort()).toEqual(['j-4.json', live].sort());
  });
});
