import { describe, expect, it } from 'vitest';
import { decidingSection, readGateLog } from '../../../lib/landing/gates/gateLog.js';

const LOG = [
  '== train t-1 at abc on def (2026-01-01T00:00:00Z): j-1 j-2',
  '== refresh "regenerate the lock": ["sh","-c","npm install"] (timeout 600s)',
  'added 3 packages',
  '== refresh "regenerate the lock": exit 0 after 2.5s',
  '== gate lint: ["npm","run","lint"] (timeout 60s)',
  'lint ok',
  '== gate lint: exit 0 after 1.25s',
  '== gate test: ["sh","-c","npm test"] (timeout 600s)',
  ...Array.from({ length: 30 }, (_, i) => `test output ${i + 1}`),
  '== gate test: exit 1 after 12.5s',
  '== gate e2e: ["sh","e2e.sh"] (timeout 600s)',
  'e2e starting',
].join('\n');

describe('reading a train log', () => {
  it('splits the gate and refresh sections and keeps an excerpt of each (here, without failure lines: the last lines)', () => {
    const { sections, excerpt: tail } = readGateLog(`${LOG}\n`, 15);
    expect(sections.map((s) => [s.name, s.status, s.seconds])).toEqual([
      ['refresh "regenerate the lock"', 'exit 0', 2.5],
      ['lint', 'exit 0', 1.25],
      ['test', 'exit 1', 12.5],
      ['e2e', null, null],
    ]);
    const test = sections[2];
    expect(test?.excerpt).toHaveLength(15);
    expect(test?.excerpt[0]).toBe('test output 16');
    expect(test?.excerpt.at(-1)).toBe('test output 30');
    expect(sections[1]?.excerpt).toEqual(['lint ok']);
    expect(tail.at(-1)).toBe('e2e starting');
  });

  it('the deciding section: the named gate, else the last that did not pass, else the last', () => {
    const { sections } = readGateLog(LOG);
    expect(decidingSection(sections, 'lint')?.name).toBe('lint');
    expect(decidingSection(sections, null)?.name).toBe('e2e'); // no end line: not a pass
    expect(decidingSection(sections.slice(0, 3), null)?.name).toBe('test');
    expect(decidingSection(sections.slice(0, 2), 'missing')?.name).toBe('lint');
    expect(decidingSection([], 'test')).toBeNull();
  });

  it('an end line of another gate, or output that looks like a header inside a gate, does not end the section', () => {
    const { sections } = readGateLog(['== gate a: ["x"] (timeout 5s)', '== gate b: exit 0 after 1s', 'more', '== gate a: signal SIGKILL after 5s'].join('\n'));
    expect(sections).toEqual([{ name: 'a', status: 'signal SIGKILL', seconds: 5, excerpt: ['== gate b: exit 0 after 1s', 'more'] }]);
  });
});
