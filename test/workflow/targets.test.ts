import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { occurrenceId, scheduleWorkflowId } from '../../src/model/ids.js';
import { ScheduledForKey } from '../../src/workflows/search-attributes.js';
import { receivedQuery } from '../fixtures/jobs.js';
import { startSink } from '../helpers/http-sink.js';
import { JOB_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('targets and one-shot kinds (time-skipping server)', () => {
  let h: SchedulerHarness;
  let sinks: Server[] = [];
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    for (const s of sinks) s.close();
    sinks = [];
    await h?.teardown();
  });

  it('EVENT: CloudEvents JSON with the occurrence ID, retried under the same Idempotency-Key', async () => {
    const sink = await startSink([503]); // first attempt fails transiently
    sinks.push(sink.server);
    const sdk = h.sdk();
    const at = new Date((await h.now()) + HOUR);
    await sdk.create({
      schedule_id: 'deadline-event',
      target: {
        type: 'EVENT',
        event_type: 'contract.deadline_reached',
        sink_url: sink.url,
        payload_ref: 'state://contracts/7',
        payload: { contract: 7 },
      },
      timing: { kind: 'ONE_TIME', at: at.toISOString() },
    });
    await h.env.sleep(HOUR + MINUTE);
    // The retry backs off in real time (a running activity holds time-skipping): wait for its delivery.
    for (const deadline = Date.now() + 60_000; sink.deliveries.length < 2 && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 100));
    await h.env.sleep(MINUTE);

    const described = await sdk.describe('deadline-event');
    const [occ] = described.recent_occurrences;
    expect(described.schedule.status).toBe('COMPLETED');
    expect(occ!.status).toBe('HANDED_OFF');
    expect(occ!.attempt).toBe(2);
    expect(sink.deliveries).toHaveLength(2);
    for (const d of sink.deliveries) {
      expect(d.headers['content-type']).toBe('application/cloudevents+json');
      expect(d.headers['idempotency-key']).toBe(occ!.idempotency_key);
      expect(d.body).toMatchObject({
        specversion: '1.0',
        id: occ!.occurrence_id,
        type: 'contract.deadline_reached',
        source: 'durable-scheduler/acme/deadline-event',
        data: { payload: { contract: 7 }, payload_ref: 'state://contracts/7', schedule_version: 1 },
      });
      expect(Date.parse(d.body.subject as string)).toBe(at.getTime());
    }
  });

  it('EVENT: a 4xx is permanent: the occurrence fails with the reason and the one-time schedule ends FAILED', async () => {
    const sink = await startSink([410]);
    sinks.push(sink.server);
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'gone',
      target: { type: 'EVENT', event_type: 'x.y', sink_url: sink.url },
      timing: { kind: 'DELAY', delay: 'PT5M' },
    });
    await h.env.sleep(6 * MINUTE);
    const described = await sdk.describe('gone');
    expect(described.schedule.status).toBe('FAILED');
    expect(described.recent_occurrences[0]!.status).toBe('FAILED');
    expect(described.recent_occurrences[0]!.reason).toMatch(/answered 410/);
    expect(sink.deliveries).toHaveLength(1);
  });

  it('JOB: a one-time schedule whose job fails ends FAILED, with the reason on the occurrence', async () => {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'fails',
      target: { type: 'JOB', job_type: 'failingJob' },
      timing: { kind: 'DELAY', delay: 'PT10M' },
    });
    await h.env.sleep(11 * MINUTE);
    const described = await sdk.describe('fails');
    expect(described.schedule.status).toBe('FAILED');
    expect(described.recent_occurrences[0]!.status).toBe('FAILED');
    expect(described.recent_occurrences[0]!.reason).toMatch(/the report generator crashed/);
    expect(described.counters.failed).toBe(1);
  });

  it('JOB with retry: the server runs a failed job again under its ID; the occurrence is decided by the last run', async () => {
    const sdk = h.sdk();
    const retry = { attempts: 3, initial_interval_s: 10, backoff: 2 };
    await sdk.create({
      schedule_id: 'flaky-ok',
      target: { type: 'JOB', job_type: 'flakyJob', payload: { succeed_on_attempt: 3 }, retry },
      timing: { kind: 'DELAY', delay: 'PT10M' },
    });
    await sdk.create({
      schedule_id: 'flaky-never',
      target: { type: 'JOB', job_type: 'flakyJob', retry },
      timing: { kind: 'DELAY', delay: 'PT10M' },
    });
    // A recurring ALLOW schedule starts its jobs from an activity, not as children: the same policy.
    await sdk.create({
      schedule_id: 'flaky-recurring',
      target: { type: 'JOB', job_type: 'flakyJob', payload: { succeed_on_attempt: 2 }, retry },
      timing: { kind: 'INTERVAL', every: 'PT10M' },
    });
    await h.env.sleep(12 * MINUTE);

    const recurring = await sdk.describe('flaky-recurring');
    const firstId = recurring.recent_occurrences[0]!.occurrence_id;
    expect(recurring.recent_occurrences[0]!.status).toBe('HANDED_OFF');
    expect(h.runs.filter((r) => r.occurrenceId === firstId)).toHaveLength(2);
    expect(await h.env.client.workflow.getHandle(firstId).result()).toBe(2);

    const ok = await sdk.describe('flaky-ok');
    expect(ok.schedule.status).toBe('COMPLETED');
    expect(ok.recent_occurrences[0]!.status).toBe('COMPLETED');
    const okId = ok.recent_occurrences[0]!.occurrence_id;
    expect(h.runs.filter((r) => r.occurrenceId === okId)).toHaveLength(3); // the first and two retries
    const job = await h.env.client.workflow.getHandle(okId).describe();
    expect(job.status.name).toBe('COMPLETED');
    expect(await h.env.client.workflow.getHandle(okId).result()).toBe(3);

    const never = await sdk.describe('flaky-never');
    expect(never.schedule.status).toBe('FAILED');
    expect(never.recent_occurrences[0]!.status).toBe('FAILED');
    expect(never.recent_occurrences[0]!.reason).toMatch(/run 3 failed/);
    const neverId = never.recent_occurrences[0]!.occurrence_id;
    expect(h.runs.filter((r) => r.occurrenceId === neverId)).toHaveLength(3); // three runs, then no more
  });

  it('JOB of a recurring ALLOW schedule: started from a local activity (no child), one workflow task and one upsert per fire; a slot whose job exists is a prevented duplicate; overlap SKIP starts children', async () => {
    const sdk = h.sdk();
    const job = { type: 'JOB' as const, job_type: 'recordedJob' };
    await sdk.create({ schedule_id: 'local', target: job, timing: { kind: 'INTERVAL', every: 'PT10M' } });
    // Someone already started the second slot's job under its occurrence ID.
    const second = (await sdk.describe('local')).next_runs[1]!.scheduled_for;
    const taken = occurrenceId('acme', 'local', second);
    await h.env.client.workflow.start('recordedJob', {
      workflowId: taken,
      taskQueue: JOB_QUEUE,
      args: [{ occurrence_id: taken, payload: null }],
    });
    await h.env.sleep(35 * MINUTE);

    const described = await sdk.describe('local');
    expect(described.recent_occurrences.map((o) => o.status)).toEqual([
      'HANDED_OFF',
      'HANDED_OFF',
      'HANDED_OFF',
    ]);
    const duplicate = described.recent_occurrences[1]!;
    expect(duplicate.occurrence_id).toBe(taken);
    expect(duplicate.duplicate_prevented).toBe(true);
    expect(described.counters).toMatchObject({ fired: 3, duplicates_prevented: 1, failed: 0 });
    for (const o of described.recent_occurrences) expect(o.target_ref).toBe(o.occurrence_id);
    expect(h.runs.filter((r) => r.occurrenceId === taken)).toHaveLength(1); // ours, not started again
    const started = await h.env.client.workflow
      .getHandle(described.recent_occurrences[0]!.occurrence_id)
      .describe();
    expect(started.typedSearchAttributes.get(ScheduledForKey)?.getTime()).toBe(
      Date.parse(described.recent_occurrences[0]!.scheduled_for),
    );
    expect(await started.staticSummary()).toMatch(/^Occurrence of schedule local for /);

    const schedule = h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'local'));
    let events = (await schedule.fetchHistory()).events ?? [];
    expect(events.some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);
    // From one slot's timer to the next: the timer's workflow task starts the job from a local activity
    // (slots 10 minutes apart: an inert start, PATCHES.INERT_LOCAL_START), arms the next timer and upserts
    // the next run, all in that one task.
    const timers = events.flatMap((e, i) => (e.timerFiredEventAttributes ? [i] : []));
    expect(timers).toHaveLength(3);
    for (const [from, to] of [timers.slice(0, 2), timers.slice(1, 3)] as [number, number][]) {
      const cycle = events.slice(from, to);
      expect(cycle.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
      const markers = cycle.map((e) => e.markerRecordedEventAttributes?.markerName).filter(Boolean);
      expect(markers.filter((m) => m !== 'core_patch')).toEqual(['core_local_activity']);
      expect(cycle.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
      const upserted = cycle
        .map((e) =>
          Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
        )
        .filter((keys) => keys.length > 0 && !keys.includes('TemporalChangeVersion'));
      expect(upserted).toEqual([['SchedulerNextRunAt']]);
    }

    // A schedule that needs its jobs' completion starts them as children again.
    await sdk.update('local', {
      expected_version: 1,
      spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT10M' }, overlap: 'SKIP' },
    });
    await h.env.sleep(10 * MINUTE);
    events = (await schedule.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    expect((await sdk.describe('local')).counters.fired).toBe(4);
    await sdk.cancel('local');
  });

  it('JOB of a recurring ALLOW schedule with slots under 30 s apart: started from a regular activity, its result with a second task', async () => {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'close-slots',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'INTERVAL', every: 'PT20S' },
    });
    await h.env.sleep(70_000);
    const described = await sdk.describe('close-slots');
    expect(described.counters.fired).toBeGreaterThanOrEqual(3);
    expect(described.recent_occurrences.every((o) => o.status === 'HANDED_OFF')).toBe(true);
    const events =
      (await h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'close-slots')).fetchHistory())
        .events ?? [];
    // Nothing but patches as markers: the next slot is too close for the start to wake nothing.
    const markers = events.map((e) => e.markerRecordedEventAttributes?.markerName).filter(Boolean);
    expect(markers.filter((m) => m !== 'core_patch')).toEqual([]);
    const starts = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startJobWorkflow',
    );
    expect(starts.length).toBe(described.counters.fired);
  });
  it('WORKFLOW_SIGNAL with start: the target receives one signal per occurrence, carrying the key', async () => {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'nudge',
      target: {
        type: 'WORKFLOW_SIGNAL',
        workflow_id: 'inbox-1',
        signal_name: 'occurrence',
        payload: { kind: 'refresh' },
        start: { workflow_type: 'signalInbox', task_queue: JOB_QUEUE },
      },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    await h.env.sleep(3 * HOUR + MINUTE);
    const received = await h.env.client.workflow.getHandle('inbox-1').query(receivedQuery);
    const { recent_occurrences } = await sdk.describe('nudge');
    expect(received.map((r) => r.occurrence_id)).toEqual(recent_occurrences.map((o) => o.occurrence_id));
    expect(received).toHaveLength(3);
    expect(received[0]).toMatchObject({
      payload: { kind: 'refresh' },
      idempotency_key: recent_occurrences[0]!.idempotency_key,
    });
    await sdk.cancel('nudge');
    await h.env.client.workflow.getHandle('inbox-1').terminate();
  });

  it('DELAY "48 hours after the e-mail was sent": anchored at the event, cancellable by ID before it fires', async () => {
    const sdk = h.sdk();
    const sentAt = (await h.now()) - 6 * HOUR; // the e-mail went out six hours ago
    const { schedule } = await sdk.create({
      schedule_id: 'follow-up-42',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'DELAY', delay: 'PT48H', anchor: new Date(sentAt).toISOString() },
    });
    expect(Date.parse(schedule.next_run_at!)).toBe(sentAt + 48 * HOUR);
    await sdk.create({
      schedule_id: 'follow-up-43',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'DELAY', delay: 'PT48H', anchor: new Date(sentAt).toISOString() },
    });
    await h.env.sleep(24 * HOUR);
    await sdk.cancel('follow-up-43', { note: 'customer replied' });
    await h.env.sleep(24 * HOUR);
    expect(h.runs.map((r) => r.occurrenceId)).toEqual([
      (await sdk.describe('follow-up-42')).recent_occurrences[0]!.occurrence_id,
    ]);
    expect((await sdk.get('follow-up-42')).status).toBe('COMPLETED');
    expect((await sdk.get('follow-up-43')).status).toBe('CANCELLED');
  });

  it('DEADLINE with reminders: each reminder is its own occurrence, then the deadline, then COMPLETED', async () => {
    const sdk = h.sdk();
    const deadline = new Date((await h.now()) + 3 * 24 * HOUR);
    deadline.setUTCMinutes(0, 0, 0);
    await sdk.create({
      schedule_id: 'contract-deadline',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'DEADLINE', at: deadline.toISOString(), reminders: ['P1D', 'PT1H'] },
    });
    await h.env.sleep(3 * 24 * HOUR + HOUR);
    const described = await sdk.describe('contract-deadline');
    expect(described.schedule.status).toBe('COMPLETED');
    expect(described.recent_occurrences.map((o) => Date.parse(o.scheduled_for))).toEqual([
      deadline.getTime() - 24 * HOUR,
      deadline.getTime() - HOUR,
      deadline.getTime(),
    ]);
    expect(new Set(h.runs.map((r) => r.occurrenceId)).size).toBe(3);
  });

  // Trigger and backfill with a payload override (issue 42): the run carries the override instead of the
  // target's payload, under an occurrence ID that says so; the same override again is the same occurrence.
  it('override: EVENT, a trigger with an override delivers it once; the schedule keeps its own payload', async () => {
    const sink = await startSink();
    sinks.push(sink.server);
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'export',
      target: {
        type: 'EVENT',
        event_type: 'export.due',
        sink_url: sink.url,
        payload: { region: 'us' },
        payload_ref: 'state://exports/us',
      },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    const at = new Date((await h.now()) - HOUR).toISOString();
    const override = { payload: { region: 'eu', full: true } };
    const first = await sdk.triggerNow('export', { scheduled_for: at, override, reason: 'ticket 7' });
    expect(first.occurrence_id).toMatch(/^occurrence\/acme\/export\/.+Z~override-[0-9a-f]{16}$/);
    expect(first.override).toBe(first.occurrence_id.split('~override-')[1]);
    expect(first.idempotency_key).toMatch(/~override-[0-9a-f]{16}$/);
    expect(first.payload_ref).toBeNull();
    // The same override again (a retried request): the same occurrence, delivered once.
    const again = await sdk.triggerNow('export', {
      scheduled_for: at,
      override: { payload: { full: true, region: 'eu' } },
    });
    expect(again.occurrence_id).toBe(first.occurrence_id);
    // Another override of the same slot is another run; no override is the slot's own run.
    const other = await sdk.triggerNow('export', {
      scheduled_for: at,
      override: { payload_ref: 'state://exports/apac' },
    });
    const own = await sdk.triggerNow('export', { scheduled_for: at });
    expect(new Set([first.occurrence_id, other.occurrence_id, own.occurrence_id]).size).toBe(3);
    expect(own.occurrence_id.endsWith('~override-')).toBe(false);

    await h.env.sleep(60_000);
    for (const deadline = Date.now() + 30_000; sink.deliveries.length < 3 && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 100));
    const byId = new Map(
      sink.deliveries.map((d) => [d.body.id as string, d.body.data as Record<string, unknown>]),
    );
    expect(sink.deliveries).toHaveLength(3);
    expect(byId.get(first.occurrence_id)).toMatchObject({ payload: override.payload, payload_ref: null });
    expect(byId.get(other.occurrence_id)).toMatchObject({
      payload: null,
      payload_ref: 'state://exports/apac',
    });
    expect(byId.get(own.occurrence_id)).toMatchObject({
      payload: { region: 'us' },
      payload_ref: 'state://exports/us',
    });

    const { recent_occurrences } = await sdk.describe('export');
    const recorded = recent_occurrences.find((o) => o.occurrence_id === first.occurrence_id)!;
    expect(recorded).toMatchObject({
      status: 'HANDED_OFF',
      trigger: 'MANUAL',
      reason: 'ticket 7',
      override: first.override,
    });
    expect(recent_occurrences.find((o) => o.occurrence_id === own.occurrence_id)!.override).toBeUndefined();
  });

  it('override: JOB, a backfill with an override starts each slot once with it, under its own workflow IDs', async () => {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'reindex',
      target: { type: 'JOB', job_type: 'recordedJob', payload: { scope: 'delta' } },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    await h.env.sleep(3 * HOUR + 60_000);
    const now = await h.now();
    const range = {
      from: new Date(now - 3 * HOUR - 30 * 60_000).toISOString(),
      to: new Date(now).toISOString(),
    };
    const override = { payload: { scope: 'full' } };
    const result = await sdk.backfill('reindex', { ...range, override });
    expect(result.emitted).toHaveLength(3);
    expect(result.emitted.every((id) => /~override-[0-9a-f]{16}$/.test(id))).toBe(true);
    // The same backfill again: every slot already ran with that override.
    const repeated = await sdk.backfill('reindex', { ...range, override });
    expect(repeated).toMatchObject({ emitted: [], already_emitted: result.emitted });
    await h.env.sleep(60_000);

    for (const id of result.emitted) {
      const job = h.env.client.workflow.getHandle(id);
      expect(await job.result()).toBe(id);
      const history = await job.fetchHistory();
      const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      const envelope = JSON.parse(Buffer.from(input?.data ?? []).toString('utf8'));
      expect(envelope).toMatchObject({ occurrence_id: id, trigger: 'BACKFILL', payload: { scope: 'full' } });
      expect(envelope.override).toBe(id.split('~override-')[1]);
    }
    // The schedule's own runs of those slots kept their payload and their plain IDs.
    const { recent_occurrences } = await sdk.describe('reindex');
    const backfilled = recent_occurrences.filter((o) => o.trigger === 'BACKFILL');
    expect(backfilled.map((o) => o.occurrence_id).sort()).toEqual([...result.emitted].sort());
    for (const slot of backfilled) {
      const own = recent_occurrences.find(
        (o) => o.trigger === 'SCHEDULE' && o.scheduled_for === slot.scheduled_for,
      );
      expect(own).toMatchObject({ status: 'HANDED_OFF' });
      expect(own!.override).toBeUndefined();
      expect(slot.occurrence_id.startsWith(`${own!.occurrence_id}~override-`)).toBe(true);
    }
  });
});
