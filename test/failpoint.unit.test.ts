// LAND_FAILPOINT parsing: `<name>`, `<name>@<n>`, several separated by commas; unknown names ignored.
import { describe, expect, it } from 'vitest';
import { enospcError, parseFailpoints } from '../lib/failpoint.js';

describe('LAND_FAILPOINT', () => {
  it('parses names, counts and lists, and ignores what it does not know', () => {
    expect(parseFailpoints(undefined)).toEqual([]);
    expect(parseFailpoints('after-cas')).toEqual([{ name: 'after-cas', at: 1 }]);
    expect(parseFailpoints('mid-gate@3, enospc-write@2')).toEqual([
      { name: 'mid-gate', at: 3 },
      { name: 'enospc-write', at: 2 },
    ]);
    expect(parseFailpoints('after-cass,after-claim@0,tmp-before-rename@x')).toEqual([]);
  });

  it('raises ENOSPC as fs does', () => {
    const error = enospcError('write', '/x/journal.jsonl');
    expect(error).toMatchObject({ code: 'ENOSPC', errno: -28, syscall: 'write', path: '/x/journal.jsonl' });
    expect(error.message).toBe("ENOSPC: no space left on device, write '/x/journal.jsonl'");
  });
});
