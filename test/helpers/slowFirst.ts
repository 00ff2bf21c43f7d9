// The order vitest starts the test files in (vitest.config.ts `sequence.sequencer`): its own order
// (failed first, then longest first by the durations it cached, or larger files first on a fresh
// clone, where nothing is cached), with the files that take longest on the wall clock moved to the
// front of their project. On a fresh clone (CI) the soak, a small file of 80 s, otherwise started
// last and was the suite's tail: 247 s instead of about 225 s.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files by wall time (LAND_TEST_CPU_LOG, docs/development.md "Where the suite's time goes"), longest first. */
export const SLOW_FIRST = [
  'test/faults/soak.test.ts',
  'test/landing/pipeline/parallel.test.ts',
  'test/store/remote/leaseFaults.test.ts',
  'test/faults/failpoints.test.ts',
  'test/landing/trains/bisection.test.ts',
  'test/store/remote/lease.test.ts',
  'test/report/browser.test.ts',
  'test/ledger/laneSshd.test.ts',
  'test/faults/races.test.ts',
  'test/faults/indexCrash.test.ts',
  'test/store/remote/teamSubmit.test.ts',
];

function rank(spec: TestSpecification): number {
  const at = SLOW_FIRST.findIndex((path) => spec.moduleId.endsWith(path));
  return at < 0 ? SLOW_FIRST.length : at;
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = (await super.sort(files)).map((spec, index) => ({ spec, index }));
    // Within a project only (vitest groups the projects); otherwise vitest's own order.
    sorted.sort((a, b) => (a.spec.project.name === b.spec.project.name ? rank(a.spec) - rank(b.spec) || a.index - b.index : a.index - b.index));
    return sorted.map(({ spec }) => spec);
  }
}
