// The excerpt of a failed gate's output (lib/landing/gates/excerpt.ts): the lines that carry the
// failure with a little context, then the last lines, at most `max` lines in all. Outputs as the
// usual runners print them: node --test (TAP), jest, pytest, and plain output.
import { describe, expect, it } from 'vitest';
import { excerptOf, FAILURE_BUDGET, failureStrength, gapLine, mergeExcerpt, TAIL_MIN } from '../../../lib/landing/gates/excerpt.js';

const passing = (n: number, name: string) => [`# Subtest: ${name}`, `ok ${n} - ${name}`, '  ---', '  duration_ms: 0.25', '  ...'];

/** What `node --test --test-reporter=tap` prints for five tests, the third failing (node 20). */
const TAP = [
  'TAP version 13',
  ...passing(1, 'one'),
  ...passing(2, 'two'),
  '# Subtest: subtracts',
  'not ok 3 - subtracts',
  '  ---',
  '  duration_ms: 1.47',
  "  location: '/work/app/t.test.mjs:5:1'",
  "  failureType: 'testCodeFailure'",
  '  error: |-',
  '    Expected values to be strictly equal:',
  '    ',
  '    1 !== 2',
  '    ',
  "  code: 'ERR_ASSERTION'",
  "  name: 'AssertionError'",
  '  expected: 2',
  '  actual: 1',
  "  operator: 'strictEqual'",
  '  stack: |-',
  '    TestContext.<anonymous> (file:///work/app/t.test.mjs:5:34)',
  '    Test.runInAsyncScope (node:async_hooks:206:9)',
  '    Test.run (node:internal/test_runner/test:796:25)',
  '  ...',
  ...passing(4, 'four'),
  ...passing(5, 'five'),
  '1..5',
  '# tests 5',
  '# suites 0',
  '# pass 4',
  '# fail 1',
  '# cancelled 0',
  '# skipped 0',
  '# todo 0',
  '# duration_ms 456.04',
];

const JEST = [
  '> app@1.0.0 test',
  '> jest',
  '',
  ' FAIL  src/sum.test.js',
  '  sum',
  '    ✓ adds (2 ms)',
  '    ✕ subtracts (3 ms)',
  '',
  '  ● sum › subtracts',
  '',
  '    expect(received).toBe(expected) // Object.is equality',
  '',
  '    Expected: 2',
  '    Received: 1',
  '',
  "      4 | test('subtracts', () => {",
  '    > 5 |   expect(1).toBe(2);',
  '        |             ^',
  '      6 | });',
  '',
  '      at Object.toBe (src/sum.test.js:5:13)',
  '',
  ...Array.from({ length: 12 }, (_, i) => ` PASS  src/other${i}.test.js`),
  'Test Suites: 1 failed, 12 passed, 13 total',
  'Tests:       1 failed, 30 passed, 31 total',
  'Snapshots:   0 total',
  'Time:        2.5 s',
  'Ran all test suites.',
];

const PYTEST = [
  '============================= test session starts ==============================',
  'collected 40 items',
  '',
  'tests/test_math.py ....F...................................              [100%]',
  '',
  '=================================== FAILURES ===================================',
  '___________________________________ test_add ___________________________________',
  '',
  '    def test_add():',
  '>       assert add(1, 2) == 4',
  'E       assert 3 == 4',
  'E        +  where 3 = add(1, 2)',
  '',
  'tests/test_math.py:4: AssertionError',
  ...Array.from({ length: 15 }, (_, i) => `warning line ${i + 1}`),
  '=========================== short test summary info ============================',
  'FAILED tests/test_math.py::test_add - assert 3 == 4',
  '========================= 1 failed, 39 passed in 0.42s =========================',
];

/** A real `node --test --test-reporter=tap` run (node 20; durations rounded): passing tests named
 * after errors and assertions, then the one failing test. */
const TAP_NAMED_AFTER_ERRORS =
  `npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it. Check out lru-cache if you want a good and tested way to coalesce async requests by a key value, which is much more comprehensive and powerful.
npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported
TAP version 13
# Subtest: error handling
    # Subtest: throws TypeError on bad input
    ok 1 - throws TypeError on bad input
      ---
      duration_ms: 0.5
      ...
    # Subtest: asserts the shape
    ok 2 - asserts the shape
      ---
      duration_ms: 0.5
      ...
    1..2
ok 1 - error handling
  ---
  duration_ms: 0.5
  ...
# Subtest: reports an error code
ok 2 - reports an error code
  ---
  duration_ms: 0.5
  ...
# Subtest: assert helpers work
ok 3 - assert helpers work
  ---
  duration_ms: 0.5
  ...
# Subtest: wraps errors in LandError
ok 4 - wraps errors in LandError
  ---
  duration_ms: 0.5
  ...
# Subtest: parses the total
not ok 5 - parses the total
  ---
  duration_ms: 0.5
  location: '/tmp/taps/t.test.mjs:10:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
    
    2 !== 3
    
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 3
  actual: 2
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (file:///tmp/taps/t.test.mjs:10:41)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
    Test.processPendingSubtests (node:internal/test_runner/test:526:18)
    Test.postRun (node:internal/test_runner/test:889:19)
    Test.run (node:internal/test_runner/test:835:12)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
# Subtest: formats errors
ok 6 - formats errors
  ---
  duration_ms: 0.5
  ...
1..6
# tests 8
# suites 0
# pass 7
# fail 1
# cancelled 0
# skipped 0
# todo 0
# duration_ms 150`.split('\n');

describe('the excerpt of a failed gate', () => {
  it('TAP (node --test): the failing test and its error, then the summary, in at most 20 lines', () => {
    const excerpt = excerptOf(TAP, 20);
    expect(excerpt.length).toBeLessThanOrEqual(20);
    expect(excerpt).toContain('not ok 3 - subtracts');
    expect(excerpt).toContain('    Expected values to be strictly equal:');
    expect(excerpt).toContain('    1 !== 2');
    expect(excerpt).toContain('# fail 1');
    expect(excerpt.at(-1)).toBe('# duration_ms 456.04');
    // Passing tests are left out, and the gap says how much.
    expect(excerpt).not.toContain('ok 1 - one');
    expect(excerpt.some((line) => /^… \d+ line\(s\) left out …$/.test(line))).toBe(true);
    expect(excerpt.indexOf('not ok 3 - subtracts')).toBeLessThan(excerpt.indexOf('# fail 1'));
  });

  it('TAP with passing tests named after errors and assertions, and npm warnings: the `not ok` line and its error are picked', () => {
    const excerpt = excerptOf(TAP_NAMED_AFTER_ERRORS, 20);
    expect(excerpt.length).toBeLessThanOrEqual(20);
    expect(excerpt).toContain('not ok 5 - parses the total');
    expect(excerpt).toContain('    2 !== 3');
    expect(excerpt).toContain('# fail 1');
    for (const passing of [
      '# Subtest: error handling',
      '    ok 1 - throws TypeError on bad input',
      'ok 2 - reports an error code',
      'ok 3 - assert helpers work',
    ]) {
      expect(excerpt).not.toContain(passing);
    }
    expect(excerpt.some((line) => line.startsWith('npm WARN'))).toBe(false);
  });

  it('a strong failure line is picked after weak ones filled the budget; passing TAP lines are never picked', () => {
    const weak = Array.from({ length: 40 }, (_, i) => [`checking error path ${i}`, 'filler', 'filler', 'filler', 'filler']).flat();
    const lines = [...weak, 'not ok 41 - the real failure', ...Array.from({ length: 30 }, (_, i) => `summary ${i}`)];
    expect(excerptOf(lines, 20)).toContain('not ok 41 - the real failure');
    // A weak line after the strong one, its budget spent, is still the strong line's context.
    const withMessage = [...weak, 'not ok 41 - the real failure', '  error: |-', '    Expected 1 to be 2', ...lines.slice(-30)];
    expect(excerptOf(withMessage, 20)).toEqual(expect.arrayContaining(['not ok 41 - the real failure', '  error: |-', '    Expected 1 to be 2']));
    expect(failureStrength('ok 3 - throws TypeError on bad input')).toBe(0);
    expect(failureStrength('# Subtest: error handling')).toBe(0);
    expect(failureStrength('npm WARN deprecated foo@1: error-prone')).toBe(0);
    expect(failureStrength('not ok 4 - asserts the shape')).toBe(2);
    expect(failureStrength('TypeError: x is not a function')).toBe(1);
  });

  it('jest: the FAIL line, the failing test and its expectation, then the summary', () => {
    const excerpt = excerptOf(JEST, 20);
    expect(excerpt.length).toBeLessThanOrEqual(20);
    for (const line of [' FAIL  src/sum.test.js', '    ✕ subtracts (3 ms)', '  ● sum › subtracts', 'Tests:       1 failed, 30 passed, 31 total']) {
      expect(excerpt).toContain(line);
    }
    expect(excerpt.at(-1)).toBe('Ran all test suites.');
  });

  it('pytest: the assertion lines (E ...) and the error, then the short summary', () => {
    const excerpt = excerptOf(PYTEST, 20);
    expect(excerpt.length).toBeLessThanOrEqual(20);
    for (const line of [
      '>       assert add(1, 2) == 4',
      'E       assert 3 == 4',
      'tests/test_math.py:4: AssertionError',
      'FAILED tests/test_math.py::test_add - assert 3 == 4',
    ]) {
      expect(excerpt).toContain(line);
    }
  });

  it('plain output without a failure line: the last lines, as many as fit; short output whole', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `building step ${i + 1}`);
    expect(excerptOf(lines, 20)).toEqual(lines.slice(30));
    expect(excerptOf(lines.slice(0, 5), 20)).toEqual(lines.slice(0, 5));
    expect(excerptOf([], 20)).toEqual([]);
    // A failure line among the last lines is simply part of them.
    const endsInError = [...lines, 'make: *** [Makefile:3: test] Error 2'];
    expect(excerptOf(endsInError, 20)).toEqual(endsInError.slice(-20));
  });

  it('many failure lines: the first ones are kept, the tail keeps at least TAIL_MIN lines, never more than max in all', () => {
    const lines = Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? `not ok ${i} - test ${i}` : `output ${i}`));
    const excerpt = excerptOf(lines, 20);
    expect(excerpt).toHaveLength(20);
    expect(excerpt[0]).toBe('not ok 0 - test 0');
    expect(excerpt.slice(-TAIL_MIN)).toEqual(lines.slice(-TAIL_MIN));
    expect(excerptOf(lines, 12).length).toBeLessThanOrEqual(12);
  });

  it('merges picked lines and the tail with a gap line between parts, and drops picked lines that are in the tail', () => {
    const n = (at: number) => ({ n: at, text: `l${at}` });
    expect(mergeExcerpt([n(3), n(4)], [n(9), n(10)], 20)).toEqual(['l3', 'l4', gapLine(4), 'l9', 'l10']);
    expect(mergeExcerpt([n(9)], [n(8), n(9), n(10)], 20)).toEqual(['l8', 'l9', 'l10']);
    expect(FAILURE_BUDGET).toBeLessThan(20);
  });
});
