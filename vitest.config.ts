import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
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
  },
});
