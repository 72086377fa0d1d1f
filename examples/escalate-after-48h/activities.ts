// The ticket's side effects. Creating and cancelling the escalation go through the scheduler's
// TypeScript SDK (`SchedulerClient`), which talks to Temporal directly: no HTTP API key needed.
import { ApplicationFailure } from '@temporalio/activity';
import type { SchedulerClient } from '../../src/api/client.js';
import { SchedulerError } from '../../src/api/errors.js';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';
import { escalateSignal, escalationScheduleId } from './definitions.js';

export interface SupportDependencies {
  scheduler: SchedulerClient;
  /** Where a manager is told; default: the worker's console. */
  tellManager?: (message: string) => void;
}

/** An error retrying cannot fix (a rejected definition, an ID already taken): fail the activity for good. */
function rejected(err: unknown): unknown {
  if (err instanceof SchedulerError && ['VALIDATION', 'ALREADY_EXISTS', 'NOT_FOUND'].includes(err.code)) {
    return ApplicationFailure.nonRetryable(err.message, 'SchedulerRejected');
  }
  return err;
}

export function createSupportActivities({ scheduler, tellManager = console.log }: SupportDependencies) {
  // Escalations already handled, by idempotency key (a real service keeps these with its own data).
  const notified = new Set<string>();

  return {
    /** Simulated: a real one would pass the ticket ID to the mail provider as its idempotency key. */
    async sendEmail(mail: {
      ticket_id: string;
      to: string;
      subject: string;
    }): Promise<{ message_id: string }> {
      console.log(`[support] e-mail to ${mail.to}: "${mail.subject}" (ticket ${mail.ticket_id})`);
      return { message_id: `<ticket-${mail.ticket_id}@support.example>` };
    },

    /** A DELAY schedule anchored at the send time that signals `escalate` back to the ticket. */
    async createEscalation(request: {
      ticket_id: string;
      workflow_id: string;
      sent_at: string;
      delay: string;
    }): Promise<{ schedule_id: string; due_at: string | null }> {
      try {
        // Idempotent on schedule_id: a retried activity finds the schedule it created.
        const { schedule } = await scheduler.create({
          schedule_id: escalationScheduleId(request.ticket_id),
          timing: { kind: 'DELAY', delay: request.delay, anchor: request.sent_at },
          target: {
            type: 'WORKFLOW_SIGNAL',
            workflow_id: request.workflow_id,
            signal_name: escalateSignal.name,
            payload_ref: `state://tickets/${request.ticket_id}`,
            payload: { ticket_id: request.ticket_id },
          },
        });
        return { schedule_id: schedule.schedule_id, due_at: schedule.next_run_at };
      } catch (err) {
        throw rejected(err);
      }
    },

    /** No escalation any more; the schedule stays readable (CANCELLED) for audit. */
    async cancelEscalation(request: { schedule_id: string; note: string }): Promise<string> {
      try {
        const { schedule } = await scheduler.cancel(request.schedule_id, { note: request.note });
        return schedule.status;
      } catch (err) {
        // Already ended (it fired, or someone cancelled it): nothing left to cancel.
        if (err instanceof SchedulerError && err.code === 'INVALID_STATE') return err.message;
        throw rejected(err);
      }
    },

    async notifyManager(request: {
      ticket_id: string;
      subject: string;
      sent_at: string;
      occurrence: OccurrenceEnvelope;
    }): Promise<void> {
      const key = request.occurrence.idempotency_key;
      if (notified.has(key)) return;
      tellManager(
        `[support] ESCALATION: ticket ${request.ticket_id} ("${request.subject}") unanswered since ${request.sent_at} (due ${request.occurrence.scheduled_for}, key ${key})`,
      );
      notified.add(key);
    },
  };
}

export type SupportActivities = ReturnType<typeof createSupportActivities>;
