// Records, on a real dev server, the two histories of the v0.3 patch `v0.3-handlers-while-draining`: an edit
// answered while a full history waits for a hung EVENT hand-off (then continue-as-new), and a delete
// answered while a cancelled schedule waits for one. The time-skipping server of record.ts cannot hold an
// activity open, so these come from the dev server (the scenario of test/integration/handlers-while-draining).
//   node --import tsx test/histories/record-draining.ts test/histories/v0.3.0
import '../helpers/quiet-sdk.js';
import { startHoldingEventSink } from '../helpers/http-api.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { eventually, startStack, startWorker, stopStack } from '../integration/support.js';

import { historySaver, recordingDirectory } from './recorded.js';

const outDir = recordingDirectory('record-draining.ts <output directory>');

const stack = await startStack('record-draining-');
const sink = await startHoldingEventSink();
const save = historySaver(stack.client, outDir);
const eventTarget = { type: 'EVENT' as const, event_type: 'drain.test', sink_url: sink.url };
const start = (scheduleId: string, continueAsNewAfterEvents?: number) =>
  startScheduleDirectly(stack.client, {
    scheduleId,
    spec: { target: eventTarget, timing: { kind: 'INTERVAL', every: 'PT2S' } },
    createdAt: new Date().toISOString(),
    ...(continueAsNewAfterEvents ? { continueAsNewAfterEvents } : {}),
  });
const received = (more: number) =>
  eventually('events at the sink', async () => (sink.received() >= more ? true : undefined), 60_000);

try {
  await startWorker(stack, { ROLES: 'scheduler' });

  const full = await start('draining-edit', 10);
  await received(1);
  await stack.sdk.update('draining-edit', {
    expected_version: 1,
    spec: { target: eventTarget, timing: { kind: 'INTERVAL', every: 'PT1H' } },
  });
  sink.release();
  await eventually(
    'continued as new',
    async () => ((await full.describe()).runId !== full.firstExecutionRunId ? true : undefined),
    60_000,
  );
  await stack.sdk.cancel('draining-edit');
  // The run that answered the edit while it drained, then continued as new (earlier runs may have
  // continued as new without a hand-off in flight).
  for (let runId: string | undefined = full.firstExecutionRunId; runId; ) {
    const history = await stack.client.workflow.getHandle(full.workflowId, runId).fetchHistory();
    const last = history.events?.at(-1);
    if (history.events?.some((e) => e.workflowExecutionUpdateCompletedEventAttributes)) {
      await save('draining-edit-continued', 'draining-edit', runId);
      break;
    }
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }

  sink.hold();
  const before = sink.received();
  const cancelled = await start('draining-delete');
  await received(before + 1);
  await stack.sdk.cancel('draining-delete');
  await stack.sdk.delete('draining-delete');
  sink.release();
  await cancelled.result();
  await save('draining-delete', 'draining-delete');
} finally {
  await sink.close();
  await stopStack(stack);
}
