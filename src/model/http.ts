// The HTTP API's own request and response shapes, built from the schedule contracts so that a field has one
// definition: the route validation, the response serialization and the OpenAPI document all read these.
import { z } from 'zod';
import { CalendarOptions, TIMING_KINDS, Timing } from '../calendar/timing.js';
import {
  Identifier,
  LabelSelector,
  MAX_PAYLOAD_BYTES,
  NextRun,
  Occurrence,
  PAYLOAD_TOO_LARGE_REASON,
  payloadBytes,
  SCHEDULE_CONTRACT,
  Schedule,
  ScheduleSpec,
  ScheduleStatus,
} from './contracts.js';
import { InterpretReading, UnreadWord } from './interpret.js';
import { RECENT_OCCURRENCES_KEPT } from './views.js';

/**
 * The payload cap (MAX_PAYLOAD_BYTES) on what a request sends: a shape limit like the nesting depth, so a
 * 400 naming target.payload. On the requests only, never on the stored contract: a schedule stored with
 * a larger payload before the cap is still read, edited (other fields) and run.
 */
const payloadWithinCap = (request: { target?: unknown }, ctx: z.RefinementCtx) => {
  const payload = (request.target as { payload?: unknown } | undefined)?.payload;
  if (payload !== undefined && payloadBytes(payload) > MAX_PAYLOAD_BYTES)
    ctx.addIssue({ code: 'custom', path: ['target', 'payload'], message: PAYLOAD_TOO_LARGE_REASON });
};

/** POST /v1/schedules: a definition, optionally with the client's own ID (create is idempotent on it). */
const contract = z
  .string()
  .max(64)
  .optional()
  .describe(
    `the contract of this document: "${SCHEDULE_CONTRACT}" (the only one spoken here), or leave it out`,
  );

export const CreateScheduleRequest = ScheduleSpec.extend({
  contract,
  schedule_id: Identifier.optional().describe('your ID for the schedule (default: a new UUID)'),
})
  .strict()
  .superRefine(payloadWithinCap);
export type CreateScheduleRequest = z.input<typeof CreateScheduleRequest>;

/** Most schedule documents one apply takes. */
export const APPLY_MAX_SCHEDULES = 200;

/** One schedule of an applied file: a create request whose `schedule_id` is required (apply matches on it). */
export const ApplyDocument = ScheduleSpec.omit({ applied_digest: true })
  .extend({ contract, schedule_id: Identifier })
  .strict()
  .superRefine(payloadWithinCap);

/** POST /v1/apply: the schedules a file declares, applied as one plan. */
export const ApplyRequest = z
  .object({
    schedules: z.array(ApplyDocument).max(APPLY_MAX_SCHEDULES),
    prune: LabelSelector.optional().describe(
      'also delete the schedules this selector picks that `schedules` does not have (e.g. the label every schedule of the file carries); without it nothing is deleted',
    ),
    dry_run: z.boolean().default(false).describe('answer the plan, change nothing'),
    preview_count: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe('next runs shown before and after each change'),
    force: z
      .boolean()
      .default(false)
      .describe('apply over schedules edited by other means since the last apply (default: a conflict)'),
  })
  .strict()
  .superRefine((request, ctx) => {
    const seen = new Set<string>();
    request.schedules.forEach((doc, i) => {
      if (seen.has(doc.schedule_id))
        ctx.addIssue({
          code: 'custom',
          path: ['schedules', i, 'schedule_id'],
          message: `${doc.schedule_id} is declared twice`,
        });
      seen.add(doc.schedule_id);
    });
  });
export type ApplyRequestInput = z.input<typeof ApplyRequest>;

export const ApplyChange = z.object({
  schedule_id: z.string(),
  action: z
    .enum(['CREATE', 'UPDATE', 'UNCHANGED', 'DELETE', 'CONFLICT'])
    .describe('what the plan does with the schedule; CONFLICT: nothing, `reason` says why'),
  version: z.number().int().nullable().describe('the version the plan was made from (null: a new schedule)'),
  fields: z.array(z.string()).describe('UPDATE: the definition fields that change'),
  next_runs_before: z.array(z.string()).describe('the next slots (scheduled_for) as it is'),
  next_runs_after: z.array(z.string()).describe('the next slots as the plan leaves it'),
  outcome: z
    .enum(['PLANNED', 'APPLIED', 'FAILED', 'NOTHING_TO_DO'])
    .describe('PLANNED in a dry run; FAILED: `reason` says why'),
  reason: z.string().nullable(),
});
export type ApplyChange = z.infer<typeof ApplyChange>;

export const ApplyResult = z.object({
  dry_run: z.boolean(),
  prune: z.string().nullable(),
  changes: z.array(ApplyChange),
});
export type ApplyResult = z.infer<typeof ApplyResult>;

// A PATCH names only the fields it changes, so no defaults here (a default would overwrite the current
// value); optional fields take `null` to clear them.
const required = new Set(['target', 'timing']);
const patchShape = Object.fromEntries(
  Object.entries(ScheduleSpec.shape).map(([key, field]) => {
    const bare = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field;
    return [key, required.has(key) ? bare.optional() : bare.nullable().optional()];
  }),
) as { [K in keyof typeof ScheduleSpec.shape]: z.ZodOptional<z.ZodType> };

/**
 * PATCH /v1/schedules/{id}: `expected_version` plus the definition fields to change. Each given field
 * replaces the current one whole (a new `timing` replaces the old timing); `null` clears an optional one.
 */
export const PatchScheduleRequest = z
  .object({
    contract,
    expected_version: z.number().int().min(1).describe('the version this change is based on'),
    ...patchShape,
  })
  .strict()
  .superRefine(payloadWithinCap);
export type PatchScheduleRequest = z.infer<typeof PatchScheduleRequest>;

export const ScheduleIdParams = z.object({ id: Identifier });

export const ListSchedulesQuery = z
  .object({
    status: ScheduleStatus.optional(),
    timing_kind: z.enum(TIMING_KINDS).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z
      .string()
      .max(4096)
      .regex(/^[A-Za-z0-9_-]*$/, 'a `next_cursor` from the previous page')
      .optional()
      .describe('`next_cursor` of the previous page'),
    include_deleted: z.enum(['true', 'false']).default('false').describe('also list deleted schedules'),
    selector: LabelSelector.optional().describe(
      'only schedules whose labels satisfy it (Kubernetes grammar), e.g. `team=payments,env!=dev`. A page may hold fewer than `limit` items when the selector negates (`!=`, `notin`, `!key`): those are tested on each schedule read, and `next_cursor` says whether more follow',
    ),
  })
  .strict();

export const ListOccurrencesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(RECENT_OCCURRENCES_KEPT).default(50),
    cursor: z
      .string()
      .regex(/^\d+$/, 'a `next_cursor` from the previous page')
      .optional()
      .describe('`next_cursor` of the previous page'),
  })
  .strict();

export const OccurrencePage = z.object({
  items: z.array(Occurrence).describe('newest first'),
  next_cursor: z.string().nullable(),
});
export type OccurrencePage = z.infer<typeof OccurrencePage>;

export const PreviewRequest = CalendarOptions.extend({
  timing: Timing,
  from: z.iso.datetime({ offset: true }).optional().describe('runs strictly after this instant; default now'),
  count: z.number().int().min(1).max(100).default(10),
}).strict();
export type PreviewRequest = z.infer<typeof PreviewRequest>;

export const PreviewResult = z.object({
  runs: z.array(NextRun),
  explanation: z
    .string()
    .optional()
    .describe(
      'the timing and calendar options in plain English, generated from the structured rule; absent when the words cannot say it',
    ),
});
export type PreviewResult = z.infer<typeof PreviewResult>;

export const Health = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.string()),
});

/**
 * Why a call was answered UNAVAILABLE. Both are retryable and changed nothing, but they are different
 * faults to an operator: a worker or Temporal that does not answer at all, or a schedule whose worker
 * answered every read with a refusal.
 */
export const UnavailableCause = z
  .enum([
    // the scheduler worker or Temporal did not answer within the deadline, is unreachable, or shed the call
    'NO_ANSWER',
    // every read of the schedule was refused by the stale-clock guard (src/workflows/stale-clock-guard.ts):
    // its newest history events still waited for a workflow task its worker had not run
    'STALE_CLOCK',
    // Temporal refused this deployment's own credentials (PermissionDenied / Unauthenticated: an expired or
    // revoked API key, a certificate the server no longer accepts): the operator's fault, not the caller's
    'CREDENTIALS_REFUSED',
  ])
  .describe(
    "on UNAVAILABLE from Temporal or the scheduler worker: NO_ANSWER (no answer in time, unreachable, or the call was shed), STALE_CLOCK (every read of the schedule was refused: its worker has not yet run the workflow task its newest events wait for) or CREDENTIALS_REFUSED (Temporal refused the scheduler's own credentials: an expired or revoked key; the operator must act); all retryable, nothing was changed",
  );
export type UnavailableCause = z.infer<typeof UnavailableCause>;

/** RFC 9457 problem details, with the failing field and (for validation) every issue found. */
export const Problem = z
  .object({
    type: z.string().describe('URI of the problem type; GET it for its description'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('what went wrong and what to do about it'),
    instance: z.string().optional(),
    code: z
      .string()
      .describe(
        'stable machine-readable code, e.g. VALIDATION, VERSION_CONFLICT; on POST /v1/interpret AMBIGUOUS (see `readings`), UNREADABLE (see `unread`), ZONE_REQUIRED or REGION_REQUIRED',
      ),
    field: z.string().nullable().describe('path of the failing field, e.g. timing.timezone'),
    errors: z.array(z.object({ field: z.string().nullable(), reason: z.string() })).optional(),
    current_version: z.number().int().optional().describe('on VERSION_CONFLICT: the version to base on'),
    limit: z.number().optional().describe('on QUOTA_EXCEEDED: the quota'),
    current: z.number().optional().describe('on QUOTA_EXCEEDED: what the tenant has, or would have'),
    unavailable_cause: UnavailableCause.optional(),
    readings: z
      .array(InterpretReading)
      .optional()
      .describe(
        'on AMBIGUOUS (POST /v1/interpret): every reading of the text, each a full answer (timing, options, explanation, notes, next runs); send the one you mean as structured timing, or say it unambiguously',
      ),
    unread: z
      .array(UnreadWord)
      .optional()
      .describe('on UNREADABLE (POST /v1/interpret): each word the reader could not place, with its offset'),
  })
  .describe('application/problem+json (RFC 9457)');
export type Problem = z.infer<typeof Problem>;

export const SchedulePage = z.object({
  items: z.array(Schedule),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
