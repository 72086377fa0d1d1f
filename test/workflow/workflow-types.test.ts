// A new schedule starts as SCHEDULE_WORKFLOW_TYPE, born knowing every patch of 0.9 and before: its history
// records no patch marker and no TemporalChangeVersion upsert, and it fires as a schedule of the first type
// does (which still asks them all: schedules created before 0.10 keep running as that type). A worker that
// does not know the new type must not run it: it would record the markers newer code does not ask for.
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { occurrenceIdPrefix, scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { SCHEDULE_WORKFLOW_TYPE, SCHEDULE_WORKFLOW_TYPE_V1 } from '../../src/workflows/definitions.js';
import { PATCHES } from '../../src/workflows/patches.js';
import { changeVersionUpserts, markerText, patchMarkers } from '../helpers/history.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { SCHEDULER_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };
const patchIds = new Set(Object.values(PATCHES).map((p) => p.id));

describe('schedule workflow types (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    await h?.teardown();
  });
  const history = async (scheduleId: string) =>
    (await h.env.client.workflow.getHandle(scheduleWorkflowId('acme', scheduleId)).fetchHistory()).events ??
    [];

  it('a new schedule records no patch marker; one of the first type asks every patch; both fire alike', async () => {
    const sdk = h.sdk();
    const created = await sdk.create({
      schedule_id: 'born-knowing',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT10M' },
    });
    // As 0.9 started it: the first type, the same definition, counted from the same instant.
    await startScheduleDirectly(h.env.client, {
      type: SCHEDULE_WORKFLOW_TYPE_V1,
      scheduleId: 'first-type',
      spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT10M' } },
      createdAt: created.schedule.created_at,
    });
    await h.env.sleep(35 * MINUTE);
    // An edit takes the version memo path (PATCHES.VERSION_MEMO), asked only where an edit happens.
    for (const id of ['born-knowing', 'first-type'])
      await sdk.update(id, {
        expected_version: 1,
        spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT5M' } },
      });
    await h.env.sleep(11 * MINUTE);

    const born = await sdk.describe('born-knowing');
    const first = await sdk.describe('first-type');
    expect(born.counters.fired).toBeGreaterThanOrEqual(5);
    expect(born.counters).toEqual(first.counters);
    expect(born.recent_occurrences.map((o) => [o.scheduled_for, o.status, o.schedule_version])).toEqual(
      first.recent_occurrences.map((o) => [o.scheduled_for, o.status, o.schedule_version]),
    );
    expect(born.schedule.version).toBe(2);

    const bornEvents = await history('born-knowing');
    expect(bornEvents[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(
      SCHEDULE_WORKFLOW_TYPE,
    );
    expect(patchMarkers(bornEvents)).toEqual([]);
    expect(changeVersionUpserts(bornEvents)).toEqual([]);
    // The version memo was upserted all the same.
    expect(bornEvents.some((e) => e.workflowPropertiesModifiedEventAttributes?.upsertedMemo)).toBe(true);

    const firstEvents = await history('first-type');
    const text = markerText(firstEvents);
    const asked = [...patchIds].filter((id) => text.includes(id));
    // Every patch of the table but the two inert-start IDs a new run never asks past the guarded one, the
    // retirement, asked only at continue-as-new, the two asked where an armed job is taken back by a
    // recompute or a policy change, and the batched arming, asked only by runs armed ahead.
    expect([...patchIds].filter((id) => !asked.includes(id)).sort()).toEqual(
      [
        PATCHES.INERT_LOCAL_START.id,
        PATCHES.NO_INERT_LOCAL_START.id,
        PATCHES.RETIRE_ONTO_V2.id,
        PATCHES.RECOMPUTE_DISARMS.id,
        PATCHES.POLICY_DISARMS.id,
        PATCHES.BATCHED_ARMING.id,
      ].sort(),
    );
    expect(patchMarkers(firstEvents)).toHaveLength(asked.length);
    expect(changeVersionUpserts(firstEvents)).toHaveLength(asked.length);
    await sdk.cancel('born-knowing');
    await sdk.cancel('first-type');
  });

  it('a run of the first type continues as new as the second, losing and doubling no slot', async () => {
    const sdk = h.sdk();
    const created = await sdk.create({
      schedule_id: 'retiring-twin',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1M' },
    });
    const first = await startScheduleDirectly(h.env.client, {
      type: SCHEDULE_WORKFLOW_TYPE_V1,
      scheduleId: 'retiring',
      spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT1M' } },
      createdAt: created.schedule.created_at,
      continueAsNewAfterEvents: 60,
    });
    await h.env.sleep(20 * MINUTE + 10_000);

    const firstRun = (
      await h.env.client.workflow.getHandle(first.workflowId, first.firstExecutionRunId).fetchHistory()
    ).events!;
    const continued = firstRun.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
    expect(continued?.workflowType?.name).toBe(SCHEDULE_WORKFLOW_TYPE);
    expect(markerText(firstRun)).toContain(PATCHES.RETIRE_ONTO_V2.id);
    const current = await h.env.client.workflow.getHandle(first.workflowId).describe();
    expect(current.type).toBe(SCHEDULE_WORKFLOW_TYPE);
    expect(current.runId).not.toBe(first.firstExecutionRunId);
    // The second type's runs ask nothing: no marker after the retirement.
    expect(patchMarkers(await history('retiring'))).toEqual([]);

    // Every slot once, as its twin that was born the second type fired them.
    const retired = await sdk.describe('retiring');
    const twin = await sdk.describe('retiring-twin');
    expect(retired.counters.fired).toBeGreaterThanOrEqual(19);
    expect(retired.counters).toEqual(twin.counters);
    const slots = retired.recent_occurrences.map((o) => o.scheduled_for);
    expect(slots).toEqual(twin.recent_occurrences.map((o) => o.scheduled_for));
    const started = h.runs.filter((r) => r.occurrenceId.startsWith(occurrenceIdPrefix('acme', 'retiring')));
    expect(started.length).toBeGreaterThanOrEqual(19);
    expect(new Set(started.map((r) => r.occurrenceId)).size).toBe(started.length);
    await sdk.cancel('retiring');
    await sdk.cancel('retiring-twin');
  });

  it('a worker that does not know the new type fails its task and records nothing; a current worker then runs it', async () => {
    await h.stopWorkers();
    const before = await Worker.create({
      connection: h.env.nativeConnection,
      taskQueue: SCHEDULER_QUEUE,
      workflowsPath: fileURLToPath(new URL('../fixtures/workflows-before-0.10.ts', import.meta.url)),
      activities: createActivities({ client: h.env.client, tenantPolicy: () => TenantPolicy.openToAll() }),
    });
    const sdk = h.sdk();
    const failedTask = async () => {
      for (let i = 0; i < 300; i++) {
        const events = await history('mixed');
        if (events.some((e) => e.workflowTaskFailedEventAttributes)) return events;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the worker before 0.10 never failed the new schedule’s task');
    };
    const events = await before.runUntil(async () => {
      await sdk.create({ schedule_id: 'mixed', target: job, timing: { kind: 'INTERVAL', every: 'PT10M' } });
      return failedTask();
    });
    expect(
      events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure
        ?.message,
    ).toMatch(new RegExp(SCHEDULE_WORKFLOW_TYPE));
    expect(events.some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);
    expect(events.some((e) => e.markerRecordedEventAttributes)).toBe(false);

    await h.startWorkers();
    await h.env.sleep(25 * MINUTE);
    const described = await sdk.describe('mixed');
    expect(described.counters.fired).toBe(2);
    expect(patchMarkers(await history('mixed'))).toEqual([]);
    await sdk.cancel('mixed');
  });
});
