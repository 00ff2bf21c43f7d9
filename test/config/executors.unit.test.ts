// The policy's `executors`: each entry's host, slots and dir, and the checks across keys (a host
// listed twice, batch.parallel above the slots). Pure: parsePolicy on text.
import { describe, expect, it } from 'vitest';
import { parseSshHost } from '../../lib/config/executors.js';
import { parsePolicy, type Policy } from '../../lib/config/index.js';
import { knownKeysAt } from '../../lib/config/knownKeys.js';
import { policySchema } from '../../lib/config/schema.js';

function parse(extra: Record<string, unknown>): { policy: Policy | null; problems: string[] } {
  const parsed = parsePolicy(JSON.stringify({ target: 'main', ...extra }));
  return parsed.ok ? { policy: parsed.policy, problems: [] } : { policy: null, problems: parsed.problems };
}

describe('executors in the policy', () => {
  it('is empty by default, and fills in one slot per entry', () => {
    expect(parse({}).policy?.executors).toEqual([]);
    const { policy } = parse({ executors: [{ host: 'local' }, { host: 'ssh://ci@build1:2222', slots: 2, dir: '/var/tmp/land' }] });
    expect(policy?.executors).toEqual([
      { host: 'local', slots: 1 },
      { host: 'ssh://ci@build1:2222', slots: 2, dir: '/var/tmp/land' },
    ]);
  });

  it('reads ssh://[user@]host[:port] and nothing else', () => {
    expect(parseSshHost('ssh://ci@build1.example.com:2222')).toEqual({ user: 'ci', host: 'build1.example.com', port: 2222 });
    expect(parseSshHost('ssh://build1')).toEqual({ user: undefined, host: 'build1', port: undefined });
    expect(parseSshHost('ssh://[::1]:22')).toEqual({ user: undefined, host: '[::1]', port: 22 });
    for (const bad of ['build1', 'ssh://', 'ssh://-oProxyCommand=x', 'ssh://a b', 'ssh://h:0', 'ssh://h:65536', 'ssh://h/path', 'ssh://h;rm', 'ssh://$(x)@h'])
      expect(parseSshHost(bad), bad).toBeNull();
  });

  it('says what is wrong with an entry, one line each, with its path', () => {
    const { problems } = parse({
      executors: [
        { host: 'build1', slots: 2 },
        { host: 'ssh://h', slots: 0, dir: 'relative/dir' },
        { host: 'ssh://g', dir: '/var/tmp/$(id)' },
        { host: 'local', dir: '/tmp/x' },
        { host: 'ssh://k', slot: 2 },
        { host: 'ssh://m', land: 'land; rm -rf /' },
      ],
    });
    expect(problems.map((line) => line.slice(0, line.indexOf(':'))).sort()).toEqual(
      ['executors[0].host', 'executors[1].slots', 'executors[1].dir', 'executors[2].dir', 'executors[3].dir', 'executors[4].slot', 'executors[5].land'].sort(),
    );
    expect(problems.find((line) => line.startsWith('executors[0].host'))).toMatch(/ssh:\/\/\[user@\]host\[:port\]/);
    expect(problems.find((line) => line.startsWith('executors[3].dir'))).toMatch(/only an ssh executor/);
    expect(problems.find((line) => line.startsWith('executors[4].slot'))).toMatch(/did you mean executors\[4\]\.slots\?/);
    expect(problems.find((line) => line.startsWith('executors[5].land'))).toMatch(/words of letters/);
    for (const line of problems) expect(line).not.toContain('\n');
    // A program and its arguments, as plain words: accepted.
    expect(parse({ executors: [{ host: 'ssh://m', land: '/usr/bin/node /opt/land/dist/bin/land.js' }] }).problems).toEqual([]);
    expect(parse({ executors: [{ host: 'ssh://m', land: 'land --evil' }] }).problems).toHaveLength(1);
    expect(parse({ executors: [{ host: 'local', land: '/usr/bin/land' }] }).problems).toEqual([
      'executors[0].land: only an ssh executor has a land command (the drainer gates with its own land)',
    ]);
  });

  it('refuses a host listed twice, and more trains at once than slots', () => {
    expect(parse({ executors: [{ host: 'ssh://h' }, { host: 'ssh://h', slots: 2 }] }).problems).toEqual([
      'executors[1].host: ssh://h is listed twice (give it more slots instead)',
    ]);
    // The same with a batch key that does not name parallel.
    expect(parse({ batch: { max: 8 }, executors: [{ host: 'ssh://h' }, { host: 'ssh://h' }] }).problems).toEqual([
      'executors[1].host: ssh://h is listed twice (give it more slots instead)',
    ]);
    expect(parse({ batch: { parallel: 4 }, executors: [{ host: 'local' }, { host: 'ssh://h', slots: 2 }] }).problems).toEqual([
      'batch.parallel: 4 trains at once need 4 gate slots; executors give 3',
    ]);
    // Without executors, batch.parallel is the drainer's own slots; fewer trains than slots is fine.
    expect(parse({ batch: { parallel: 4 } }).problems).toEqual([]);
    expect(parse({ batch: { parallel: 2 }, executors: [{ host: 'ssh://h', slots: 4 }] }).problems).toEqual([]);
  });

  it('refuses a batch stage gate with an ssh executor: its ledger lines would be on the executor', () => {
    const gates = [
      { name: 'test', run: ['true'] },
      { name: 'bench', run: ['true'], batch: { job: 'bench' } },
    ];
    expect(parse({ gates, executors: [{ host: 'ssh://h' }] }).problems).toContain(
      'gates[1].batch: a batch stage gate cannot run on an ssh executor (its ledger is checked on the drainer); drop the ssh executors or the batch stage',
    );
    expect(parse({ gates, executors: [{ host: 'local', slots: 2 }] }).problems.filter((p) => p.includes('batch stage'))).toEqual([]);
  });

  it('has its keys known for "did you mean"', () => {
    expect(knownKeysAt(policySchema, ['executors', 0])).toEqual(['host', 'slots', 'dir', 'land']);
  });
});
