import { defineConfig } from 'vitest/config';

// `npm run stack:prod:test`: the tests on the native production stack (scripts/stack-prod.ts: PostgreSQL,
// Temporal server, two worker processes, one API process). Not part of `npm test`: they take from a few
// minutes (worker churn, server restart) to ~15 (the 10-minute full outage).
export default defineConfig({
  test: {
    name: 'prod',
    setupFiles: ['test/helpers/quiet-sdk.ts'],
    include: ['test/prod/**/*.test.ts'],
    testTimeout: 40 * 60_000,
    hookTimeout: 40 * 60_000,
    fileParallelism: false,
  },
});
