// A schedule whose history is full waits for its hand-offs in flight before it continues as new, and a
// cancelled schedule waits for them before it closes. An edit, trigger, cancel or delete that arrives during
// either wait must still be answered: the loop is the only place commands are applied, so a wait that
// only ends once every handler finished would never end (found in review of v0.2; fixed behind a patch).
// Real dev server, real worker process, a real HTTP sink that holds its answers until the test lets go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { startHoldingEventSink } from '../helpers/http-api.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { eventually, type Stack, startStack, startWorker, stopStack } from './support.js';

/** Resolves with the promise's value, or rejects after `ms` saying what never answered. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);
}

describe('updates while the schedule waits for hand-offs in flight (dev server)', () => {
  let stack: Stack;
  let sink: Awaited<ReturnType<typeof startHoldingEventSink>>;
  beforeAll(async () => {
    stack = await startStack('drain-');
    sink = await startHoldingEventSink();
    await startWorker(stack, { ROLES: 'scheduler' });
  }, 180_000);
  afterAll(async () => {
    await sink?.close();
    await stopStack(stack);
  });

  const startSchedule = (scheduleId: string, continueAsNewAfterEvents?: number) =>
    startScheduleDirectly(stack.client, {
      scheduleId,
      spec: {
        target: { type: 'EVENT', event_type: 'drain.test', sink_url: sink.url },
        timing: { kind: 'INTERVAL', every: 'PT2S' },
      },
      createdAt: new Date().toISOString(),
      ...(continueAsNewAfterEvents ? { continueAsNewAfterEvents } : {}),
    });

  it('an edit that arrives while a full history waits for a hung EVENT hand-off is answered', async () => {
    // A threshold below what the first fire's task already has: the run wants to continue as new at once,
    // and so waits for that fire's hand-off, which the sink holds.
    const handle = await startSchedule('full-history', 10);
    await eventually(
      'the first event reached the sink',
      async () => (sink.received() >= 1 ? true : undefined),
      60_000,
    );
    const firstRun = handle.firstExecutionRunId;
    const edited = within(
      30_000,
      'edit',
      stack.sdk.update('full-history', {
        expected_version: 1,
        spec: {
          target: { type: 'EVENT', event_type: 'drain.test', sink_url: sink.url },
          timing: { kind: 'INTERVAL', every: 'PT1H' },
        },
      }),
    );
    // Answered while the hand-off still hangs: the wait serves updates.
    expect((await edited).version).toBe(2);
    sink.release();
    // After the hand-off, the run continues as new and the schedule goes on under the edited definition.
    const moved = await eventually(
      'continued as new',
      async () => {
        const d = await stack.client.workflow
          .getHandle(scheduleWorkflowId('acme', 'full-history'))
          .describe();
        return d.runId !== firstRun ? d : undefined;
      },
      60_000,
    );
    expect(moved.status.name).toBe('RUNNING');
    const described = await stack.sdk.describe('full-history');
    expect(described.schedule.version).toBe(2);
    expect(described.schedule.timing).toEqual({ kind: 'INTERVAL', every: 'PT1H' });
    expect(described.recent_occurrences[0]?.status).toBe('HANDED_OFF');
    await stack.sdk.cancel('full-history');
  }, 180_000);

  it('a delete that arrives while a cancelled schedule waits for a hung hand-off is answered, and it closes', async () => {
    sink.hold();
    const received = sink.received();
    const handle = await startSchedule('cancelled-draining');
    await eventually(
      'the first event reached the sink',
      async () => (sink.received() > received ? true : undefined),
      60_000,
    );
    // The cancel ends the loop; the run then waits for the held hand-off before it closes.
    await within(30_000, 'cancel', stack.sdk.cancel('cancelled-draining'));
    await within(30_000, 'delete', stack.sdk.delete('cancelled-draining'));
    sink.release();
    await within(60_000, 'the workflow closing', handle.result());
    const described = await stack.sdk.describe('cancelled-draining');
    expect(described.schedule.status).toBe('CANCELLED');
    expect(described.schedule.deleted_at).not.toBeNull();
    expect(described.recent_occurrences[0]?.status).toBe('HANDED_OFF');
  }, 180_000);
});
