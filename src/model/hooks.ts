// Failure hooks on a schedule (SPEC.md "Contracts", issue 42): after N consecutive failed occurrences pause
// it and/or tell someone, and tell them again when a run succeeds. The notice a hook sends is part of the
// contract too: a sink reads it. Part of the contracts (contracts.ts re-exports all of it).
import { z } from 'zod';
import { EventTarget, type Target, WorkflowSignalTarget } from './targets.js';
import { NOTICE_FAILURES_LISTED } from './views.js';

/**
 * Where a notice goes: an EVENT sink (a CloudEvent whose type says failing or recovered) or a workflow
 * signalled with the notice. Checked against the tenant policy like a schedule's own target, at create and
 * edit and again when the notice is sent. Never a JOB: a notice starts nothing of its own.
 */
export const NotifyTarget = z.discriminatedUnion('type', [
  EventTarget.pick({ type: true, sink_url: true }).strict(),
  WorkflowSignalTarget.omit({ payload: true, payload_ref: true }).strict(),
]);
export type NotifyTarget = z.infer<typeof NotifyTarget>;

/** The most consecutive failures a hook may wait for. */
export const MAX_AFTER_CONSECUTIVE = 100;

export const OnFailure = z
  .object({
    after_consecutive: z
      .number()
      .int()
      .min(1)
      .max(MAX_AFTER_CONSECUTIVE)
      .default(3)
      .describe(
        'failed occurrences in a row (a hand-off FAILED, or a watched job that failed after its retries) that set the hook off',
      ),
    pause: z.boolean().default(false).describe('pause the schedule; resume starts the count again'),
    notify: NotifyTarget.optional().describe('send a FAILING notice here'),
  })
  .strict()
  .refine((h) => h.pause || h.notify !== undefined, {
    message: 'on_failure needs pause: true or a notify target (or both)',
  });
export type OnFailure = z.infer<typeof OnFailure>;

export const OnRecovery = z
  .object({ notify: NotifyTarget.describe('send a RECOVERED notice here') })
  .strict();
export type OnRecovery = z.infer<typeof OnRecovery>;

/** CloudEvent types of the two notices (an EVENT notify target); a signal carries the notice as it is. */
export const NOTICE_EVENT_TYPES = {
  FAILING: 'dev.durable-scheduler.schedule.failing',
  RECOVERED: 'dev.durable-scheduler.schedule.recovered',
} as const;

/** A notify target as the tenant policy checks it: the target a schedule with it would have. */
export const asNoticeTarget = (
  target: NotifyTarget,
  kind: keyof typeof NOTICE_EVENT_TYPES = 'FAILING',
): Target => (target.type === 'EVENT' ? { ...target, event_type: NOTICE_EVENT_TYPES[kind] } : target);

/** A policy refusal's field (`target.sink_url`) as the hook's own (`on_failure.notify.sink_url`). */
export const noticeField = (field: string, hook: 'on_failure' | 'on_recovery'): string =>
  field.replace(/^target/, `${hook}.notify`);

export const NoticeFailure = z.object({
  occurrence_id: z.string(),
  scheduled_for: z.string(),
  reason: z.string().nullable(),
});
export type NoticeFailure = z.infer<typeof NoticeFailure>;

/**
 * What a hook sends. `notice_id` is deterministic (the schedule, the kind and the how-manyth time the hook
 * went off): the CloudEvent's `id` and the idempotency key, so a sink can drop a notice sent again.
 */
export const ScheduleNotice = z.object({
  notice_id: z.string(),
  kind: z.enum(['FAILING', 'RECOVERED']),
  tenant_id: z.string(),
  schedule_id: z.string(),
  schedule_version: z.number().int(),
  at: z.string().describe('when the schedule decided to send it (workflow time)'),
  consecutive_failures: z
    .number()
    .int()
    .describe('FAILING: the failures in a row that set it off; RECOVERED: those before the success'),
  failures: z.array(NoticeFailure).describe(`the last failures, at most ${NOTICE_FAILURES_LISTED}`),
  paused: z.boolean().describe('FAILING: the hook paused the schedule'),
  recovered_by: z
    .object({ occurrence_id: z.string(), scheduled_for: z.string() })
    .nullable()
    .describe('RECOVERED: the occurrence that succeeded'),
});
export type ScheduleNotice = z.infer<typeof ScheduleNotice>;

/** The hooks' state as describe shows it (absent on a schedule without on_failure). */
export const FailureHookView = z.object({
  consecutive_failures: z.number().int().describe('since the last success (or resume)'),
  after_consecutive: z.number().int(),
  failing: z.boolean().describe('the hook went off and no occurrence has succeeded since'),
  paused_by_hook: z.boolean().describe('the schedule is PAUSED because the hook paused it'),
  last_notice: z
    .object({
      notice_id: z.string(),
      kind: z.enum(['FAILING', 'RECOVERED']),
      at: z.string(),
      delivered: z.boolean(),
      detail: z.string().nullable().describe('where it went, or why it was not delivered'),
    })
    .nullable(),
});
export type FailureHookView = z.infer<typeof FailureHookView>;
