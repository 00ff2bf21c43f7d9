import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The longest files (measured in CI) start first, so none of them is left running alone at the
// end while the other workers idle; the rest keep vitest's own order (cached durations, else size).
const LONGEST_FIRST = [
  'test/remote/teamSubmit.test.ts',
  'test/remote/lease.test.ts',
  'test/remote/team.test.ts',
  'test/remote/leaseFaults.test.ts',
  'test/faults/races.test.ts',
  'test/faults/soak.test.ts',
  'test/run/bisection.test.ts',
  'test/store/remoteSetup.test.ts',
  'test/hooks/hooks.test.ts',
  'test/ledger/laneSshd.test.ts',
  'test/run/failpoints.test.ts',
  'test/run/drainer.test.ts',
  'test/reconcile/reconcile.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: git-heavy end-to-end files contend for the CPU, so cap the parallelism. Three
    // workers, not two: every end-to-end test also waits (gates that sleep, polls, kills timed
    // after events), and a third file fills those waits (measured: 533 s with two workers).
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
  },
});
