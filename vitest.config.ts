import { defineConfig } from 'vitest/config';

// Three suites that can each run alone: `npm run test:unit` needs no server, `test:workflow` starts the
// time-skipping test server, `test:integration` starts real dev-server processes.
// `npm run chaos` sets SCHEDULER_CHAOS=1 to add the long fault runs (test/chaos: minutes of real
// retries and outages); `npm test` leaves them out.
const chaos = process.env.SCHEDULER_CHAOS === '1';

// Every file runs in one pool of LANES workers. Vitest puts every project whose files run one at a time
// (`fileParallelism: false`) into a single serial group after the others, so the workflow and integration
// suites used to queue behind each other, file by file. Most of an integration file's time is real time
// spent waiting for slots to come due, not CPU, so two files at a time on the 2-core CI machine halve
// the wall time; each file has its own servers on free ports and its own temp dir. Projects in one
// group must agree on maxWorkers.
const LANES = Number(process.env.SCHEDULER_TEST_LANES ?? 2);

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          maxWorkers: LANES,
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
          maxWorkers: LANES,
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: ['test/helpers/quiet-sdk.ts'],
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          maxWorkers: LANES,
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
