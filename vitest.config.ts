import { defineConfig } from 'vitest/config';

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
  },
});
