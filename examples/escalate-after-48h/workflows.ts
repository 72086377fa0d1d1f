// A user's own workflow that uses the scheduler for "escalate 48 hours after the e-mail was sent, unless
// the customer replied". The schedule lives outside the ticket (it is visible, cancellable and auditable
// through the scheduler's API and Web UI), and it calls back with a signal. The workflow itself does no
// I/O: creating and cancelling the schedule are activities.
import { condition, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';
import type { SupportActivities } from './activities.js';
import {
  escalateSignal,
  type Reply,
  replySignal,
  statusQuery,
  type TicketInput,
  type TicketOutcome,
  type TicketStatus,
} from './definitions.js';

const { sendEmail, createEscalation, cancelEscalation, notifyManager } = proxyActivities<SupportActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumInterval: '1m', nonRetryableErrorTypes: ['SchedulerRejected'] },
});

export async function supportTicket(input: TicketInput): Promise<TicketOutcome> {
  const status: TicketStatus = {
    ticket_id: input.ticket_id,
    state: 'SENDING',
    sent_at: null,
    escalation_schedule_id: null,
    escalation_due_at: null,
  };
  let reply: Reply | undefined;
  let escalation: OccurrenceEnvelope | undefined;
  // Handlers first: a signal that arrives while the e-mail is still being sent is kept, not lost.
  // Delivery is at-least-once, so only the first of each counts.
  setHandler(replySignal, (r) => {
    reply ??= r;
  });
  setHandler(escalateSignal, (occurrence) => {
    escalation ??= occurrence;
  });
  setHandler(statusQuery, () => status);

  await sendEmail({ ticket_id: input.ticket_id, to: input.customer_email, subject: input.subject });
  // The send time on the workflow's clock: deterministic on replay, and in a time-skipping test it is the
  // test server's (skipped) time, as the scheduler's is.
  const sentAt = new Date().toISOString();
  status.sent_at = sentAt;

  const { schedule_id, due_at } = await createEscalation({
    ticket_id: input.ticket_id,
    workflow_id: workflowInfo().workflowId,
    sent_at: sentAt,
    delay: input.escalate_after ?? 'PT48H',
  });
  Object.assign(status, { state: 'WAITING', escalation_schedule_id: schedule_id, escalation_due_at: due_at });
  log.info('waiting for a reply', { ticket_id: input.ticket_id, escalation_due_at: due_at });

  await condition(() => reply !== undefined || escalation !== undefined);

  if (reply !== undefined) {
    // Cancelled while the ticket still runs: an escalation that fired meanwhile finds the ticket and is
    // ignored; none can fire later at a closed workflow.
    await cancelEscalation({ schedule_id, note: `customer replied (${reply.from})` });
    status.state = 'ANSWERED';
    log.info('answered', { ticket_id: input.ticket_id, from: reply.from });
    return {
      outcome: 'answered',
      ticket_id: input.ticket_id,
      sent_at: sentAt,
      escalation_schedule_id: schedule_id,
    };
  }

  const occurrence = escalation!;
  await notifyManager({ ticket_id: input.ticket_id, subject: input.subject, sent_at: sentAt, occurrence });
  status.state = 'ESCALATED';
  // The schedule was one-time (DELAY): it completes by itself after this hand-off.
  return {
    outcome: 'escalated',
    ticket_id: input.ticket_id,
    sent_at: sentAt,
    escalation_schedule_id: schedule_id,
    escalation: occurrence,
  };
}
