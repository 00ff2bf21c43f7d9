import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: git-heavy end-to-end files contend for the CPU, so cap the parallelism.
    maxWorkers: 2,
  },
});
