// The customer replies to a ticket: signals `reply`, then prints how the ticket ended and what became of
// its escalation schedule.
//
//   node --import tsx examples/escalate-after-48h/reply.ts <ticket-id>
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { run } from '../shared.js';
import { replySignal, type TicketOutcome, ticketWorkflowId } from './definitions.js';
import { connect } from './scheduler.js';

run(async () => {
  const ticketId = process.argv[2];
  if (!ticketId) throw new Error('usage: reply.ts <ticket-id> (start.ts printed it)');
  const { client, scheduler, close } = await connect();
  try {
    const handle = client.workflow.getHandle(ticketWorkflowId(ticketId));
    try {
      await handle.signal(replySignal, { from: 'customer@example.com', text: 'Thanks, that solved it.' });
      console.log(`reply sent to ticket ${ticketId}`);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      // Not running: unknown, or it has already ended (escalated, or answered before).
      console.log(`ticket ${ticketId} is not open any more`);
    }
    const outcome = (await Promise.race([
      handle.result(),
      new Promise((_, reject) => {
        setTimeout(
          () => reject(new Error('the ticket did not finish in 30 s: is the worker running?')),
          30_000,
        ).unref(); // does not keep the process alive once the ticket answered
      }),
    ]).catch((err) => {
      if (!(err instanceof WorkflowFailedError)) throw err;
      let cause: Error = err;
      while (cause.cause instanceof Error) cause = cause.cause; // workflow ← activity ← the reason
      throw new Error(`the ticket failed: ${cause.message}`);
    })) as TicketOutcome;
    console.log(`ticket ${ticketId}: ${outcome.outcome}`);
    const schedule = await scheduler.get(outcome.escalation_schedule_id);
    console.log(
      `escalation schedule ${schedule.schedule_id}: ${schedule.status}${schedule.pause_note ? ` (${schedule.pause_note})` : ''}`,
    );
  } finally {
    await close();
  }
});
