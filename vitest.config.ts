import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slowFirst.js';

// Two tiers (docs/development.md#test-tiers): `unit` is every *.unit.test.ts (pure: no CLI launch, no
// git process), `npm run test:unit`; `e2e` is every other test file (real git, the built CLI, the
// in-process drain, faults, soak, races, ssh, browser). `npm test` runs both.
const UNIT = 'test/**/*.unit.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Git housekeeping off in every git process a test starts (maintenance, auto gc, fsync).
    setupFiles: ['test/helpers/setupGit.ts'],
    // Two cores: git-heavy end-to-end files contend for the CPU, so cap the parallelism. Four
    // workers, not two: every end-to-end test also waits (gates that sleep, polls, kills timed
    // after events, leases that expire), and more files fill those waits (measured: 533 s with
    // two workers, 485 s with three before the remote-queue tests; with them, 674 s with three and
    // 630 s with four).
    maxWorkers: 4,
    // A worker runs one test file after another without a fresh process and module graph for each
    // (measured: about 0.5 s of CPU saved per file). The test files keep no state between them:
    // each removes its temporary folders, stops what it started and restores what it changed.
    isolate: false,
    // The longest files start first (test/helpers/slowFirst.ts): none of them is the suite's tail.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // Pure tests share one module graph in threads: no process start per worker. None of them
        // signals its own process or changes its working directory (a thread shares both).
        test: { name: 'unit', include: [UNIT], pool: 'threads' },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/**/*.test.ts'], exclude: [UNIT], pool: 'forks' },
      },
    ],
  },
});
