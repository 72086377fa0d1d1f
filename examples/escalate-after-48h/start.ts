// Opens a support ticket: starts `supportTicket`, then shows the escalation schedule it created.
//
//   node --import tsx examples/escalate-after-48h/start.ts [ticket-id]
//
// ticket-id defaults to a new one. ESCALATE_AFTER (an ISO 8601 duration, default PT48H) shortens the
// wait for a demo: ESCALATE_AFTER=PT1M.
import { randomInt } from 'node:crypto';
import { run } from '../shared.js';
import { statusQuery, TASK_QUEUE, type TicketInput, ticketWorkflowId } from './definitions.js';
import { connect } from './scheduler.js';

run(async () => {
  const ticketId = process.argv[2] ?? `T-${randomInt(100_000, 1_000_000)}`;
  const { client, scheduler, close } = await connect();
  try {
    const input: TicketInput = {
      ticket_id: ticketId,
      customer_email: 'customer@example.com',
      subject: `Your request ${ticketId}`,
      ...(process.env.ESCALATE_AFTER ? { escalate_after: process.env.ESCALATE_AFTER } : {}),
    };
    const handle = await client.workflow.start('supportTicket', {
      taskQueue: TASK_QUEUE,
      workflowId: ticketWorkflowId(ticketId),
      args: [input],
    });
    console.log(`ticket ${ticketId} opened: workflow ${handle.workflowId}`);

    // The ticket sends the e-mail and creates its escalation; wait (briefly) until it has.
    let status = await handle.query(statusQuery);
    for (let i = 0; i < 30 && status.escalation_schedule_id === null; i++) {
      await new Promise((r) => setTimeout(r, 500));
      if ((await handle.describe()).status.name === 'FAILED') {
        await handle.result().catch((err: Error) => {
          let cause = err;
          while (cause.cause instanceof Error) cause = cause.cause; // workflow ← activity ← the reason
          throw new Error(`ticket ${ticketId} failed: ${cause.message}`);
        });
      }
      status = await handle.query(statusQuery);
    }
    if (status.escalation_schedule_id === null) {
      console.log(
        `no escalation yet (state ${status.state}): is the worker running? (node --import tsx examples/escalate-after-48h/worker.ts)`,
      );
      return;
    }
    const schedule = await scheduler.get(status.escalation_schedule_id);
    console.log(`e-mail sent at ${status.sent_at}`);
    console.log(
      `escalation schedule ${schedule.schedule_id}: ${schedule.status}, ${JSON.stringify(schedule.timing)}, due ${schedule.next_run_at}`,
    );
    console.log(`reply:  node --import tsx examples/escalate-after-48h/reply.ts ${ticketId}`);
  } finally {
    await close();
  }
});
