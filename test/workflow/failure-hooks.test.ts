// Failure hooks (issue 42): after N failed occurrences in a row a schedule pauses itself and/or sends a
// FAILING notice; the first success after it sends RECOVERED. Real HTTP sinks and a real signalled
// workflow on the time-skipping server; the notice's target is checked again when it is sent.
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { receivedQuery } from '../fixtures/jobs.js';
import { startSink } from '../helpers/http-sink.js';
import { JOB_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { OPEN_TARGETS } from '../helpers/tenants.js';

const MINUTE = 60_000;

describe('failure hooks (time-skipping server)', () => {
  let h: SchedulerHarness | undefined;
  let sinks: Server[] = [];
  afterEach(async () => {
    for (const s of sinks) s.close();
    sinks = [];
    await h?.teardown();
    h = undefined;
  });

  /** Activities run in real time while time-skipping waits on them: poll until the schedule shows it. */
  async function until(
    id: string,
    shows: (d: ScheduleDescription) => boolean,
    what: string,
  ): Promise<ScheduleDescription> {
    const sdk = h!.sdk();
    for (const deadline = Date.now() + 60_000; ; ) {
      const described = await sdk.describe(id);
      if (shows(described)) return described;
      if (Date.now() > deadline)
        throw new Error(`${id} never showed ${what}: ${JSON.stringify(described.failures)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('pauses after 3 failures in a row with a FAILING notice, and says RECOVERED after the resume', async () => {
    h = await SchedulerHarness.start();
    const target = await startSink([400, 400, 400]);
    const notices = await startSink([], '/notices');
    sinks.push(target.server, notices.server);
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'flaky-sink',
      target: { type: 'EVENT', event_type: 'report.due', sink_url: target.url },
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      on_failure: { after_consecutive: 3, pause: true, notify: { type: 'EVENT', sink_url: notices.url } },
      on_recovery: { notify: { type: 'EVENT', sink_url: notices.url } },
    });

    await h.env.sleep(35 * MINUTE);
    const paused = await until('flaky-sink', (d) => d.failures?.last_notice != null, 'a notice');
    expect(paused.schedule.status).toBe('PAUSED');
    expect(paused.schedule.pause_note).toMatch(
      /^paused by on_failure after 3 failed occurrences in a row \(last: .*answered 400\)/,
    );
    const failed = paused.recent_occurrences.filter((o) => o.status === 'FAILED');
    expect(failed).toHaveLength(3);
    expect(paused.failures).toMatchObject({
      consecutive_failures: 3,
      after_consecutive: 3,
      failing: true,
      paused_by_hook: true,
      last_notice: { kind: 'FAILING', delivered: true, notice_id: 'notice/acme/flaky-sink/failing/1' },
    });
    expect(notices.deliveries).toHaveLength(1);
    const [failing] = notices.deliveries;
    expect(failing!.headers['idempotency-key']).toBe('notice/acme/flaky-sink/failing/1');
    expect(failing!.body).toMatchObject({
      specversion: '1.0',
      id: 'notice/acme/flaky-sink/failing/1',
      type: 'dev.durable-scheduler.schedule.failing',
      source: 'durable-scheduler/acme/flaky-sink',
      data: { kind: 'FAILING', consecutive_failures: 3, paused: true, schedule_version: 1 },
    });
    const listed = (failing!.body.data as { failures: Array<{ occurrence_id: string; reason: string }> })
      .failures;
    expect(listed.map((f) => f.occurrence_id)).toEqual(failed.map((o) => o.occurrence_id));
    expect(listed.every((f) => /answered 400/.test(f.reason))).toBe(true);

    // Paused: nothing more reaches the sink, however long.
    await h.env.sleep(60 * MINUTE);
    expect(target.deliveries).toHaveLength(3);

    await sdk.resume('flaky-sink');
    const recovered = await until(
      'flaky-sink',
      (d) => d.failures?.last_notice?.kind === 'RECOVERED',
      'RECOVERED',
    );
    expect(recovered.schedule.status).toBe('ACTIVE');
    expect(recovered.failures).toMatchObject({
      consecutive_failures: 0,
      failing: false,
      paused_by_hook: false,
    });
    expect(notices.deliveries).toHaveLength(2);
    const handed = recovered.recent_occurrences.find((o) => o.status === 'HANDED_OFF')!;
    expect(notices.deliveries[1]!.body).toMatchObject({
      id: 'notice/acme/flaky-sink/recovered/1',
      type: 'dev.durable-scheduler.schedule.recovered',
      data: {
        kind: 'RECOVERED',
        consecutive_failures: 3,
        recovered_by: { occurrence_id: handed.occurrence_id, scheduled_for: handed.scheduled_for },
      },
    });

    // Succeeding from then on: no more notices.
    await h.env.sleep(30 * MINUTE);
    await until('flaky-sink', (d) => d.counters.fired >= 6, 'three more runs');
    expect(notices.deliveries).toHaveLength(2);
  });

  it('after a resume the hook counts again from zero: 2 more failures pause it again, with a second notice', async () => {
    h = await SchedulerHarness.start();
    const target = await startSink([400, 400, 400, 400]);
    const notices = await startSink([], '/notices');
    sinks.push(target.server, notices.server);
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'still-broken',
      target: { type: 'EVENT', event_type: 'report.due', sink_url: target.url },
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      misfire: 'SKIP',
      on_failure: { after_consecutive: 2, pause: true, notify: { type: 'EVENT', sink_url: notices.url } },
    });
    await h.env.sleep(25 * MINUTE);
    await until(
      'still-broken',
      (d) => d.failures?.paused_by_hook === true && d.failures.last_notice != null,
      'the pause',
    );
    await sdk.resume('still-broken');
    await h.env.sleep(25 * MINUTE);
    const again = await until(
      'still-broken',
      (d) => d.failures?.last_notice?.notice_id === 'notice/acme/still-broken/failing/2',
      'a second FAILING notice',
    );
    expect(again.schedule.status).toBe('PAUSED');
    // The streak is the truth (4 in a row); the hook counted the 2 after the resume.
    expect(again.failures).toMatchObject({ consecutive_failures: 4, failing: true, paused_by_hook: true });
    expect(
      notices.deliveries.map((d) => (d.body.data as { consecutive_failures: number }).consecutive_failures),
    ).toEqual([2, 4]);
  });

  it('a watched JOB that fails counts; a signalled notice; a notice the policy in force refuses is not sent, and says why', async () => {
    let policy = TenantPolicy.openToAll();
    h = await SchedulerHarness.start({ tenantPolicy: () => policy });
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'crashing-job',
      // SKIP overlap: the schedule watches each job to its end, so the job's own failure is the occurrence's.
      target: { type: 'JOB', job_type: 'failingJob' },
      overlap: 'SKIP',
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      on_failure: {
        after_consecutive: 2,
        notify: {
          type: 'WORKFLOW_SIGNAL',
          workflow_id: 'hook-inbox',
          signal_name: 'occurrence',
          start: { workflow_type: 'signalInbox', task_queue: JOB_QUEUE },
        },
      },
    });
    await h.env.sleep(25 * MINUTE);
    const tripped = await until('crashing-job', (d) => d.failures?.last_notice != null, 'a notice');
    // No pause asked: the schedule runs on.
    expect(tripped.schedule.status).toBe('ACTIVE');
    expect(tripped.failures).toMatchObject({
      consecutive_failures: 2,
      failing: true,
      paused_by_hook: false,
      last_notice: { kind: 'FAILING', delivered: true, detail: 'hook-inbox' },
    });
    const [notice] = await h.env.client.workflow.getHandle('hook-inbox').query(receivedQuery);
    expect(notice).toMatchObject({
      notice_id: 'notice/acme/crashing-job/failing/1',
      kind: 'FAILING',
      consecutive_failures: 2,
      paused: false,
    });
    expect((notice as unknown as { failures: Array<{ reason: string }> }).failures[0]!.reason).toMatch(
      /the report generator crashed/,
    );

    // Failing on, one notice per streak: the third and fourth failures send nothing.
    await h.env.sleep(20 * MINUTE);
    await until('crashing-job', (d) => d.failures!.consecutive_failures >= 4, 'two more failures');
    expect(await h.env.client.workflow.getHandle('hook-inbox').query(receivedQuery)).toHaveLength(1);

    // The operator takes the inbox away from the tenant; the schedule is edited to pause and notify again.
    policy = TenantPolicy.fromTenants({ acme: { ...OPEN_TARGETS, signal_workflow_ids: ['jobs-*'] } });
    const { schedule } = await sdk.describe('crashing-job');
    await sdk.update('crashing-job', {
      expected_version: schedule.version,
      spec: {
        target: { type: 'JOB', job_type: 'failingJob' },
        overlap: 'SKIP',
        timing: { kind: 'INTERVAL', every: 'PT10M' },
        on_failure: {
          after_consecutive: 1,
          pause: true,
          notify: { type: 'WORKFLOW_SIGNAL', workflow_id: 'hook-inbox', signal_name: 'occurrence' },
        },
      },
    });
    await h.env.sleep(20 * MINUTE);
    const refused = await until(
      'crashing-job',
      (d) => d.failures?.last_notice?.notice_id === 'notice/acme/crashing-job/failing/2',
      'the refused notice',
    );
    expect(refused.failures!.last_notice).toMatchObject({ delivered: false });
    expect(refused.failures!.last_notice!.detail).toMatch(
      /^on_failure\.notify\.workflow_id: workflow ID hook-inbox is not among the workflows this tenant may signal/,
    );
    expect(await h.env.client.workflow.getHandle('hook-inbox').query(receivedQuery)).toHaveLength(1);
    // The pause does not depend on the notice.
    expect(refused.schedule.status).toBe('PAUSED');
  });
});
