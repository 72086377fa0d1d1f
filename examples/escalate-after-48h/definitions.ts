// The support ticket's public surface: names, signals, query and types that the workflow, its
// activities, the scripts and the test share. (No workflow code here, so clients can import it.)
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';

export const TASK_QUEUE = 'support';

export interface TicketInput {
  ticket_id: string;
  customer_email: string;
  subject: string;
  /** ISO 8601 duration after the e-mail was sent; default PT48H (the demo shortens it). */
  escalate_after?: string;
}

export interface Reply {
  from: string;
  text?: string;
}

export type TicketState = 'SENDING' | 'WAITING' | 'ANSWERED' | 'ESCALATED';

export interface TicketStatus {
  ticket_id: string;
  state: TicketState;
  sent_at: string | null;
  escalation_schedule_id: string | null;
  escalation_due_at: string | null;
}

export interface TicketOutcome {
  outcome: 'answered' | 'escalated';
  ticket_id: string;
  sent_at: string;
  escalation_schedule_id: string;
  /** The escalation occurrence that fired (escalated only). */
  escalation?: OccurrenceEnvelope;
}

/** The customer answered. */
export const replySignal = defineSignal<[Reply]>('reply');
/** Sent by the scheduler when the escalation is due: its argument is the occurrence. */
export const escalateSignal = defineSignal<[OccurrenceEnvelope]>('escalate');
export const statusQuery = defineQuery<TicketStatus>('status');

export const ticketWorkflowId = (ticketId: string) => `ticket-${ticketId}`;
export const escalationScheduleId = (ticketId: string) => `ticket-${ticketId}-escalation`;
