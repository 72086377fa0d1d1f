// examples/escalate-after-48h tested the way a user tests their own code on the scheduler: the real
// scheduler worker and a worker for the user's workflows and activities on one time-skipping server,
// time skipped with env.sleep. (docs/sdk.md, test/helpers/scheduler-harness.ts.)
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportActivities } from '../../examples/escalate-after-48h/activities.js';
import {
  replySignal,
  statusQuery,
  type TicketInput,
  type TicketOutcome,
  ticketWorkflowId,
} from '../../examples/escalate-after-48h/definitions.js';
import { createActivities } from '../../src/activities/index.js';
import { SchedulerClient } from '../../src/api/client.js';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { registerSearchAttributes } from '../../src/runtime/namespace.js';
import { workflowsPath as schedulerWorkflows } from '../../src/worker.js';
import { createTimeSkippingEnv } from '../helpers/servers.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TENANT = 'acme';
const SCHEDULER_QUEUE = 'scheduler';
const SUPPORT_QUEUE = 'support';
const supportWorkflows = fileURLToPath(
  new URL('../../examples/escalate-after-48h/workflows.ts', import.meta.url),
);

describe('examples/escalate-after-48h (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let scheduler: SchedulerClient;
  let workers: Worker[] = [];
  let running: Promise<void>[] = [];
  /** Every notifyManager call, in order (the real activity wrapped, as a spy). */
  const managerCalls: Array<{ ticket_id: string; idempotency_key: string }> = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    await registerSearchAttributes(env.connection, env.namespace ?? 'default');
    scheduler = new SchedulerClient({
      client: env.client,
      taskQueue: SCHEDULER_QUEUE,
      jobTaskQueue: 'jobs',
      principal: { tenant_id: TENANT, owner_ref: 'support-desk' },
      // The time-skipping server does not begin a delayed start when it skips time (src/testing/index.ts).
      startAsleep: false,
    });
    const support = createSupportActivities({ scheduler, tellManager: () => {} });
    workers = [
      // The scheduler, as createSchedulerWorker runs it in production.
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: SCHEDULER_QUEUE,
        workflowsPath: schedulerWorkflows,
        activities: createActivities({ client: env.client, tenantPolicy: () => TenantPolicy.openToAll() }),
      }),
      // The user's code under test.
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: SUPPORT_QUEUE,
        workflowsPath: supportWorkflows,
        activities: {
          ...support,
          notifyManager: async (request: Parameters<typeof support.notifyManager>[0]) => {
            managerCalls.push({
              ticket_id: request.ticket_id,
              idempotency_key: request.occurrence.idempotency_key,
            });
            return await support.notifyManager(request);
          },
        },
      }),
    ];
    running = workers.map((w) => w.run());
  });

  afterAll(async () => {
    for (const w of workers) w.shutdown();
    await Promise.all(running);
    await env?.teardown();
  });

  async function openTicket(ticketId: string) {
    const input: TicketInput = { ticket_id: ticketId, customer_email: 'c@example.com', subject: 'Refund' };
    const handle = await env.client.workflow.start('supportTicket', {
      taskQueue: SUPPORT_QUEUE,
      workflowId: ticketWorkflowId(ticketId),
      args: [input],
    });
    // Until the e-mail is out and the escalation exists (activities run in real time, no skipping needed;
    // a loaded machine may take a while).
    let status = await handle.query(statusQuery);
    for (const deadline = Date.now() + 60_000; status.state !== 'WAITING' && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      status = await handle.query(statusQuery);
    }
    expect(status.state).toBe('WAITING');
    return { handle, status };
  }

  /** The schedule workflow returns its final description when it ends. */
  const finalSchedule = (scheduleId: string) =>
    env.client.workflow
      .getHandle(scheduleWorkflowId(TENANT, scheduleId))
      .result() as Promise<ScheduleDescription>;

  it('no reply: not escalated at 47 h; escalated exactly once after 48 h; the schedule COMPLETED', async () => {
    const { handle, status } = await openTicket('T-1');
    const scheduleId = status.escalation_schedule_id!;
    const schedule = await scheduler.get(scheduleId);
    expect(schedule.timing).toEqual({ kind: 'DELAY', delay: 'PT48H', anchor: status.sent_at });
    expect(Date.parse(schedule.next_run_at!)).toBe(Date.parse(status.sent_at!) + 48 * HOUR);

    await env.sleep(47 * HOUR);
    expect((await handle.query(statusQuery)).state).toBe('WAITING');
    expect(managerCalls.filter((c) => c.ticket_id === 'T-1')).toHaveLength(0);
    expect((await scheduler.get(scheduleId)).status).toBe('ACTIVE');

    await env.sleep(HOUR + MINUTE);
    const outcome = (await handle.result()) as TicketOutcome;
    expect(outcome.outcome).toBe('escalated');
    expect(Date.parse(outcome.escalation!.scheduled_for)).toBe(Date.parse(status.sent_at!) + 48 * HOUR);

    const final = await finalSchedule(scheduleId);
    expect(final.schedule.status).toBe('COMPLETED');
    expect(final.recent_occurrences).toHaveLength(1);
    expect(final.recent_occurrences[0]).toMatchObject({
      status: 'HANDED_OFF',
      target_ref: handle.workflowId,
    });
    expect(managerCalls.filter((c) => c.ticket_id === 'T-1')).toEqual([
      { ticket_id: 'T-1', idempotency_key: final.recent_occurrences[0]!.idempotency_key },
    ]);
  });

  it('reply after 1 h: answered; 3 days later the manager was never told; the schedule CANCELLED', async () => {
    const { handle, status } = await openTicket('T-2');
    await env.sleep(HOUR);
    await handle.signal(replySignal, { from: 'c@example.com', text: 'solved, thanks' });
    const outcome = (await handle.result()) as TicketOutcome;
    expect(outcome.outcome).toBe('answered');

    await env.sleep(3 * 24 * HOUR);
    expect(managerCalls.filter((c) => c.ticket_id === 'T-2')).toHaveLength(0);
    const final = await finalSchedule(status.escalation_schedule_id!);
    expect(final.schedule.status).toBe('CANCELLED');
    expect(final.schedule.pause_note).toBe('customer replied (c@example.com)');
    expect(final.recent_occurrences).toHaveLength(0);
  });
});
