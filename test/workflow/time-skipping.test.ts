import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeSkippingEnv } from '../helpers/servers.js';

const fixtures = fileURLToPath(new URL('../fixtures/workflows.ts', import.meta.url));
const DAY = 24 * 60 * 60 * 1000;

describe('time-skipping test server (from Maven Central)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('runs a workflow that durably sleeps 30 days to completion', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'time-skipping',
      workflowsPath: fixtures,
    });
    const serverTimeBefore = Number(await env.currentTimeMs());
    const result = await worker.runUntil(
      env.client.workflow.execute('durableSleep', {
        taskQueue: 'time-skipping',
        workflowId: 'sleep-30-days',
        args: [30 * DAY],
      }),
    );
    expect(result.elapsedMs).toBeGreaterThanOrEqual(30 * DAY);
    expect(result.attempt).toBe(1);
    // The server's own clock moved too: the timer really fired, it was not short-circuited.
    expect(Number(await env.currentTimeMs()) - serverTimeBefore).toBeGreaterThanOrEqual(30 * DAY);
  });
});
