// What `land init` proposes for `trusted`: the files its gate commands name that exist, and the
// CI folders that exist.
import { describe, expect, it } from 'vitest';
import { starterPolicy } from '../../lib/cli/commands/init.js';
import { parsePolicy } from '../../lib/config/index.js';
import { suggestTrusted } from '../../lib/config/suggestTrusted.js';

const tree = (files: string[], folders: string[]) => (path: string, kind: 'file' | 'folder') => (kind === 'file' ? files : folders).includes(path);

describe('suggestTrusted', () => {
  it('proposes the scripts the gates run and the CI folders that exist', () => {
    const exists = tree(['gate.sh', 'ci/check.sh', 'tools/lint.py', 'test.sh'], ['ci']);
    expect(suggestTrusted(['sh gate.sh', './ci/check.sh --fast', ['python3', 'tools/lint.py'], 'npm test', 'sh missing.sh'], exists)).toEqual([
      'gate.sh',
      'tools/lint.py',
      'ci/**',
    ]);
    expect(suggestTrusted(['npm test'], tree([], []))).toEqual([]);
    expect(suggestTrusted(['sh gate.sh && sh gate.sh', 'bash -c "$X" /etc/passwd ../up.sh'], tree(['gate.sh'], ['.ci', 'scripts/ci']))).toEqual([
      'gate.sh',
      '.ci/**',
      'scripts/ci/**',
    ]);
  });

  it('the starting policy carries them and is valid', () => {
    const written = starterPolicy('main', ['sh gate.sh'], ['gate.sh', 'ci/**']);
    const parsed = parsePolicy(JSON.stringify(written));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.policy.trusted).toEqual(['gate.sh', 'ci/**']);
  });
});
