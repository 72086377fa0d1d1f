import { defineConfig } from 'vitest/config';

// Three suites that can each run alone: `npm run test:unit` needs no server, `test:workflow` starts the
// time-skipping test server, `test:integration` starts real dev-server processes.
// `npm run chaos` sets SCHEDULER_CHAOS=1 to add the long fault runs (test/chaos: minutes of real
// retries and outages); `npm test` leaves them out.
const chaos = process.env.SCHEDULER_CHAOS === '1';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'workflow',
          setupFiles: ['test/helpers/quiet-sdk.ts'],
          include: ['test/workflow/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // One time-skipping server per file; files run one after another so two JVMs do not fight
          // over two cores and time out.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: ['test/helpers/quiet-sdk.ts'],
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      ...(chaos
        ? [
            {
              test: {
                name: 'chaos',
                setupFiles: ['test/helpers/quiet-sdk.ts'],
                include: ['test/chaos/**/*.test.ts'],
                testTimeout: 1_800_000,
                hookTimeout: 1_800_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
