// A 1,000-slot backfill of a schedule with a 60 KB payload (issue #20): before v0.5.1 its one workflow task
// scheduled 1,000 hand-offs carrying 60 MB, past the server's 4 MiB gRPC message limit, and failed on the
// shared worker forever. Now the hand-offs go out in chunks that fit a task, the run continues as new
// before its history outgrows a message, and every occurrence reaches the sink. Real dev server, the real
// worker in its own process, a real HTTP sink. The API caps payloads at 16 KiB, so the schedule stands for
// one stored before the cap: its workflow is started past the API.
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { failedWorkflowTasks, handOffsPerTask, historiesOfEveryRun } from '../helpers/history.js';
import { type FaultSink, startFaultSink } from './fault-sink.js';
import {
  eventually,
  type Stack,
  startScheduleWorkflow,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

const HOUR = 3_600_000;
const SLOTS = 1000;
const PAYLOAD_CHARS = 60_000;
/** What the workflow's bound comes to for this payload (16). */
const EXPECTED_BOUND = 16; // 1 MiB of commands / (2,048 + the payload's 60,011 characters of JSON)

describe('a 1,000-slot backfill with 60 KB payloads completes in chunks (dev server)', () => {
  let stack: Stack;
  let sink: FaultSink;

  beforeAll(async () => {
    stack = await startStack('bounded-backfill');
    sink = await startFaultSink(() => ({ status: 200, afterMs: 5 }));
    await startWorker(stack);
  }, 180_000);

  afterAll(async () => {
    await sink?.close();
    await stopStack(stack);
  });

  it('hands every slot off, at most one chunk in flight, no workflow task failed', async () => {
    const scheduleId = 'big-backfill';
    await startScheduleWorkflow(stack, {
      scheduleId,
      spec: {
        timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
        target: {
          type: 'EVENT',
          event_type: 'report.due',
          sink_url: sink.url('/big'),
          payload: { blob: 'x'.repeat(PAYLOAD_CHARS) },
        },
      },
    });
    const to = Math.floor(Date.now() / HOUR) * HOUR - 1000;
    const result = await stack.sdk.backfill(scheduleId, {
      from: new Date(to - SLOTS * HOUR).toISOString(),
      to: new Date(to).toISOString(),
    });
    expect(result.emitted).toHaveLength(SLOTS);

    // The schedule is hourly, so a run that spans the top of an hour also hands off that hour's own slot:
    // the backfill is judged on its range, and anything else delivered must be such a slot of its own.
    const deliveredIds = (inBackfill: boolean) =>
      new Set(
        sink.deliveries
          .filter((d) => d.path === '/big' && Date.parse(d.scheduledFor) < to === inBackfill)
          .map((d) => d.id),
      );
    await eventually(
      'every backfilled slot delivered',
      async () => deliveredIds(true).size >= SLOTS || undefined,
      600_000,
    );
    expect([...deliveredIds(true)].sort()).toEqual([...result.emitted].sort());
    for (const id of deliveredIds(false)) {
      const slot = Date.parse(id.slice(id.lastIndexOf('/') + 1));
      expect(slot % HOUR, `${id} is a slot of the schedule's own`).toBe(0);
      expect(slot, `${id} came due while the test ran`).toBeLessThanOrEqual(Date.now());
    }
    for (const d of sink.deliveries)
      expect((d.data.payload as { blob: string }).blob).toHaveLength(PAYLOAD_CHARS);
    expect(sink.maxConcurrent()).toBeLessThanOrEqual(EXPECTED_BOUND);

    const settled = await eventually(
      'the schedule settled',
      async () => {
        const d = await stack.sdk.describe(scheduleId);
        return d.running.length === 0 ? d : undefined;
      },
      60_000,
    );
    expect(settled.counters.failed).toBe(0);
    expect(settled.counters.fired).toBeGreaterThanOrEqual(SLOTS);

    // Every run of the schedule, read with room for a full page (a history past 4 MiB is what failed).
    const connection = await Connection.connect({
      address: stack.server.address,
      channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
    });
    try {
      const client = new Client({ connection });
      const runs = await historiesOfEveryRun((runId) =>
        client.workflow.getHandle(scheduleWorkflowId('acme', scheduleId), runId),
      );
      // Benign failures (new events raced a task) are retried at once; none failed in the workflow.
      expect(failedWorkflowTasks(runs.flat())).toEqual([]);
      const chunks = handOffsPerTask(runs);
      expect(chunks.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(SLOTS);
      expect(Math.max(...chunks)).toBeLessThanOrEqual(EXPECTED_BOUND);
      // 60 MB of hand-offs cannot be one history: the schedule continued as new as its history filled.
      expect(runs.length).toBeGreaterThan(10);
      console.log(
        `bounded backfill: ${runs.length} runs, ${chunks.length} tasks scheduling hand-offs, largest chunk ${Math.max(...chunks)}, max ${sink.maxConcurrent()} at the sink at once`,
      );
    } finally {
      await connection.close();
    }
  }, 900_000);
});
