// The product's contracts (SPEC.md "Contracts"). These zod schemas are the single source of truth: the
// workflow, the activities, the client SDK, the HTTP API, the CLI and the OpenAPI document all derive
// from them. This module sits just above src/calendar: it imports nothing of the layers that use it.
import { z } from 'zod';
import { CalendarOptions, Timing } from '../calendar/timing.js';
import { FailureHookView, OnFailure, OnRecovery } from './hooks.js';
import {
  LabelSelectorError,
  labelKeyProblem,
  labelTokens,
  labelValueProblem,
  MAX_LABEL_TOKENS_BYTES,
  MAX_LABELS,
  parseLabelSelector,
} from './labels.js';
import { ScheduleHolidaysView, ScheduleTzView } from './recompute.js';
import { Identifier, PayloadOverride, Target } from './targets.js';

export { BusinessDaysOptions, BusinessDayTiming } from '../calendar/timing.js';
export {
  asNoticeTarget,
  FailureHookView,
  MAX_AFTER_CONSECUTIVE,
  NOTICE_EVENT_TYPES,
  NoticeFailure,
  NotifyTarget,
  noticeField,
  OnFailure,
  OnRecovery,
  ScheduleNotice,
} from './hooks.js';
export {
  EventTarget,
  Identifier,
  JobTarget,
  MAX_PAYLOAD_BYTES,
  MAX_PAYLOAD_DEPTH,
  PAYLOAD_TOO_LARGE_REASON,
  PayloadOverride,
  payloadBytes,
  Target,
  WorkflowSignalTarget,
} from './targets.js';

const instant = z.iso.datetime({ offset: true });

export const MisfirePolicy = z
  .enum(['SKIP', 'FIRE_ONCE', 'CATCH_UP'])
  .describe('what to do with slots later than max_lateness_s (after downtime or a pause)');
export type MisfirePolicy = z.infer<typeof MisfirePolicy>;

export const OverlapPolicy = z
  .enum(['ALLOW', 'SKIP', 'QUEUE', 'COALESCE', 'REPLACE'])
  .describe('what to do when the previous occurrence is still running');
export type OverlapPolicy = z.infer<typeof OverlapPolicy>;

export const ScheduleStatus = z.enum(['ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED']);
export type ScheduleStatus = z.infer<typeof ScheduleStatus>;

/** Labels on a schedule (./labels.ts has their syntax and the selector grammar). */
export const Labels = z
  .record(z.string(), z.string())
  .superRefine((labels, ctx) => {
    const keys = Object.keys(labels);
    if (keys.length > MAX_LABELS)
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_LABELS} labels (${keys.length} given)` });
    for (const key of keys) {
      const problem = labelKeyProblem(key) ?? labelValueProblem(labels[key]!);
      if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    }
    const bytes = Buffer.byteLength(JSON.stringify(labelTokens(labels)));
    if (bytes > MAX_LABEL_TOKENS_BYTES)
      ctx.addIssue({
        code: 'custom',
        message: `labels take ${bytes} bytes stored, more than ${MAX_LABEL_TOKENS_BYTES}: use fewer or shorter ones`,
      });
  })
  .describe(
    'key=value pairs to select schedules by (Kubernetes label syntax), e.g. {"team": "payments", "env": "prod"}: `GET /v1/schedules?selector=team=payments,env!=dev` and the bulk operations pick schedules by them',
  );
export type Labels = z.infer<typeof Labels>;

/** A label selector (Kubernetes grammar): the requirements, comma-separated, all of which must hold. */
export const LabelSelector = z
  .string()
  .max(2000)
  .superRefine((selector, ctx) => {
    try {
      parseLabelSelector(selector);
    } catch (err) {
      if (!(err instanceof LabelSelectorError)) throw err;
      ctx.addIssue({ code: 'custom', message: `at character ${err.at + 1}: ${err.reason}` });
    }
  })
  .describe(
    'e.g. `team=payments,env!=dev`, `tier in (gold,silver)`, `!legacy`: `key`, `!key`, `key=value`, `key!=value`, `key in (…)`, `key notin (…)` (a schedule without the key satisfies `!=` and `notin`)',
  );

/** What a user writes to create or edit a schedule: the versioned definition. */
export const ScheduleSpec = CalendarOptions.extend({
  target: Target,
  timing: Timing,
  misfire: MisfirePolicy.default('FIRE_ONCE'),
  max_lateness_s: z
    .number()
    .int()
    .min(0)
    .max(366 * 86400)
    .default(60)
    .describe('a slot later than this on wake is a misfire'),
  catch_up_limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('most slots CATCH_UP fires at once'),
  overlap: OverlapPolicy.default('ALLOW'),
  queue_limit: z.number().int().min(1).max(1000).default(10).describe('QUEUE buffer size'),
  labels: Labels.optional(),
  on_failure: OnFailure.optional().describe(
    'after this many failed occurrences in a row: pause the schedule and/or send a FAILING notice',
  ),
  on_recovery: OnRecovery.optional().describe(
    'send a RECOVERED notice when an occurrence succeeds after failures (after on_failure went off; without on_failure, after any failure)',
  ),
  applied_digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'a sha256 digest in hex')
    .optional()
    .describe(
      'set by apply (POST /v1/apply, `scheduler apply`): the digest of the definition it applied. An edit by other means leaves it behind, and the next apply reports that schedule as a conflict instead of overwriting the edit',
    ),
  authored_from: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'for audit: the words the timing was read from (POST /v1/interpret, `scheduler create --when`); data only: the schedule runs on the structured timing, never on this text',
    ),
}).strict();
export type ScheduleSpec = z.infer<typeof ScheduleSpec>;
export type ScheduleSpecInput = z.input<typeof ScheduleSpec>;

export const ScheduleIdentity = z.object({
  schedule_id: Identifier,
  tenant_id: Identifier,
  owner_ref: z.string().min(1).max(256),
});
export type ScheduleIdentity = z.infer<typeof ScheduleIdentity>;

export const OccurrenceStatus = z.enum([
  'QUEUED', // waiting for the previous occurrence (overlap QUEUE / COALESCE)
  'DISPATCHING', // handoff in progress (retrying transient failures under the same key)
  'ARMED', // a JOB started ahead with a start delay: the server begins it at fire_at (not yet begun)
  'RUNNING', // handed off; the target has not finished (or its completion is not watched)
  'HANDED_OFF', // handed off; completion not tracked for this target
  'COMPLETED', // the target finished successfully
  'FAILED', // handoff failed permanently, or the target failed
  'SKIPPED', // not emitted: misfire, overlap, queue full
  'CANCELLED', // cancelled before or after handoff (REPLACE, schedule cancel)
]);
export type OccurrenceStatus = z.infer<typeof OccurrenceStatus>;

export const Occurrence = z.object({
  occurrence_id: z.string(),
  schedule_id: z.string(),
  schedule_version: z.number().int(),
  scheduled_for: z.string().describe('ISO 8601 with the zone offset: the slot'),
  fire_at: z.string().describe('UTC instant the slot was due (after jitter / window deferral)'),
  emitted_at: z.string().nullable().describe('when the handoff started; null when not emitted'),
  idempotency_key: z.string(),
  target_ref: z.string().describe('what was started / signalled / published, e.g. the workflow ID'),
  payload_ref: z.string().nullable(),
  status: OccurrenceStatus,
  attempt: z.number().int(),
  reason: z.string().nullable().describe('why: trigger, backfill, catch-up, misfire skip, DST note, failure'),
  trigger: z.enum(['SCHEDULE', 'MANUAL', 'BACKFILL']),
  duplicate_prevented: z.boolean(),
  finished_at: z.string().nullable(),
  tz_version: z
    .string()
    .nullable()
    .optional()
    .describe(
      'the tz database release whose rules computed scheduled_for (e.g. 2025c); null for a manual trigger, absent in occurrences recorded before 0.6',
    ),
  holiday_data_version: z
    .string()
    .optional()
    .describe(
      'the holiday data release that decided the business day (e.g. date-holidays@3.37.0); only for a schedule with business_days',
    ),
  override: z
    .string()
    .optional()
    .describe(
      "digest of the payload override a trigger or backfill ran it with (also the end of its occurrence ID, `~override-<digest>`); absent: the schedule's own payload",
    ),
});
export type Occurrence = z.infer<typeof Occurrence>;

/** A schedule's newest occurrence that is due or past, as a listing shows it beside the schedule. */
export const LastOccurrence = Occurrence.pick({
  occurrence_id: true,
  scheduled_for: true,
  fire_at: true,
  emitted_at: true,
  status: true,
  reason: true,
  trigger: true,
});
export type LastOccurrence = z.infer<typeof LastOccurrence>;

/** What a target receives: the JOB's argument, the signal's argument, the CloudEvent's `data`. */
export const OccurrenceEnvelope = z.object({
  occurrence_id: z.string(),
  idempotency_key: z.string(),
  tenant_id: z.string(),
  schedule_id: z.string(),
  schedule_version: z.number().int(),
  scheduled_for: z.string(),
  emitted_at: z.string(),
  trigger: z.enum(['SCHEDULE', 'MANUAL', 'BACKFILL']),
  payload_ref: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()).nullable(),
  override: z.string().optional().describe('set when the run carries a payload override: its digest'),
});
export type OccurrenceEnvelope = z.infer<typeof OccurrenceEnvelope>;

export const ScheduleCounters = z.object({
  fired: z.number().int(),
  caught_up: z.number().int(),
  skipped: z.number().int(),
  expired: z.number().int(),
  failed: z.number().int(),
  duplicates_prevented: z.number().int(),
});
export type ScheduleCounters = z.infer<typeof ScheduleCounters>;

/** `schedule.v1`: a schedule as the API returns it. */
/** The contract this API speaks; a request may name it (`contract`), a view always does. */
export const SCHEDULE_CONTRACT = 'schedule.v1';
export const SUPPORTED_CONTRACTS: readonly string[] = [SCHEDULE_CONTRACT];

export const Schedule = ScheduleSpec.safeExtend({
  contract: z.literal(SCHEDULE_CONTRACT),
  ...ScheduleIdentity.shape,
  status: ScheduleStatus,
  version: z.number().int().min(1),
  next_run_at: instant.nullable(),
  last_run_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
  pause_note: z.string().nullable(),
  owner_revoked_at: instant
    .nullable()
    .describe(
      "when the owner's API key was removed: from then on every slot is refused and recorded, until an authorized caller resumes (takes over) the schedule",
    ),
  deleted_at: instant
    .nullable()
    .describe('when it was deleted: a deleted schedule is CANCELLED and left out of listings by default'),
  explanation: z
    .string()
    .optional()
    .describe(
      'the timing and calendar options in plain English, generated from the structured rule (docs/words.md "Rule → words"); absent when the words cannot say it',
    ),
  last_occurrence: LastOccurrence.nullable()
    .optional()
    .describe(
      'the newest occurrence whose instant (fire_at) has come (one armed ahead for later is not it yet): what the last run did and why; null before the first; read with the schedule (GET, list), absent where it was not read (the answers of create and edit)',
    ),
});
export type Schedule = z.infer<typeof Schedule>;

/** The definition inside a `schedule.v1` view: what a user wrote, without the server-owned fields. */
export function specOf(schedule: Schedule): ScheduleSpecInput {
  const fields = new Set(Object.keys(ScheduleSpec.shape));
  return Object.fromEntries(Object.entries(schedule).filter(([key]) => fields.has(key))) as ScheduleSpecInput;
}

export const NextRun = z.object({
  scheduled_for: z.string(),
  fire_at: z.string(),
  local: z.string(),
  label: z.string().optional(),
  adjustments: z.array(z.object({ kind: z.string(), note: z.string() })),
});
export type NextRun = z.infer<typeof NextRun>;

export {
  RecomputeRecord,
  RecomputeRequest,
  RecomputeResult,
  RecomputeSummary,
  ScheduleHolidaysView,
  ScheduleTzView,
} from './recompute.js';
export { toNextRun } from './views.js';

/** What the `describe` query returns. */
export const ScheduleDescription = z.object({
  schedule: Schedule,
  next_runs: z.array(NextRun),
  recent_occurrences: z.array(Occurrence),
  running: z.array(z.string()).describe('occurrence IDs whose target is still running'),
  queued: z.array(z.string()),
  counters: ScheduleCounters,
  tz: ScheduleTzView.optional().describe('absent from schedules described by a worker before 0.6'),
  holidays: ScheduleHolidaysView.optional().describe('only for a schedule with business_days'),
  failures: FailureHookView.optional().describe('only for a schedule with on_failure or on_recovery'),
});
export type ScheduleDescription = z.infer<typeof ScheduleDescription>;

export const EditRequest = z.object({
  expected_version: z.number().int().min(1),
  spec: ScheduleSpec,
});
export type EditRequest = z.infer<typeof EditRequest>;
export type EditRequestInput = z.input<typeof EditRequest>;

export const EditResult = z.object({ version: z.number().int(), next_runs: z.array(NextRun) });
export type EditResult = z.infer<typeof EditResult>;

export const TriggerRequest = z
  .object({
    scheduled_for: instant.optional().describe('the slot this manual run stands for; default: now'),
    reason: z.string().max(500).optional(),
    override: PayloadOverride.optional().describe(
      "run with this payload instead of the target's: a slot may run once per distinct override besides its own run",
    ),
  })
  .strict();
export type TriggerRequest = z.infer<typeof TriggerRequest>;

export const BackfillRequest = z
  .object({
    from: instant,
    to: instant,
    reason: z.string().max(500).optional(),
    override: PayloadOverride.optional().describe(
      "every backfilled slot runs with this payload instead of the target's",
    ),
  })
  .strict()
  .refine((r) => Date.parse(r.from) < Date.parse(r.to), { message: 'from must be before to', path: ['to'] })
  // The calendar computes the years 1000 to 9999; a day's margin at each end covers any UTC offset.
  .superRefine((r, ctx) => {
    for (const field of ['from', 'to'] as const) {
      const at = Date.parse(r[field]);
      if (!(at >= Date.UTC(1000, 0, 2) && at <= Date.UTC(9999, 11, 30))) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'must lie between 1000-01-02 and 9999-12-30',
        });
      }
    }
  });
export type BackfillRequest = z.infer<typeof BackfillRequest>;

export const BackfillResult = z.object({
  emitted: z.array(z.string()),
  already_emitted: z.array(z.string()),
  skipped: z.array(z.string()),
});
export type BackfillResult = z.infer<typeof BackfillResult>;

export const PauseRequest = z
  .object({ note: z.string().max(500).optional().describe('why it is paused; shown with the schedule') })
  .strict();
export type PauseRequest = z.infer<typeof PauseRequest>;

export const ResumeRequest = z
  .object({
    owner_ref: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("set by the API to the caller's owner: resuming a revoked schedule takes it over"),
  })
  .strict();
export type ResumeRequest = z.infer<typeof ResumeRequest>;

export const CancelRequest = z
  .object({
    note: z.string().max(500).optional(),
    /** What happens to occurrences already handed off and still running. */
    running: z.enum(['KEEP', 'CANCEL']).default('KEEP'),
  })
  .strict();
export type CancelRequest = z.infer<typeof CancelRequest>;

/** Most schedules one bulk operation acts on: a selector matching more is refused before anything changes. */
export const BULK_MAX_SCHEDULES = 500;

export const BulkAction = z.enum(['pause', 'resume', 'cancel', 'delete']);
export type BulkAction = z.infer<typeof BulkAction>;

/** POST /v1/bulk: one action on every schedule of the caller's tenant that the selector picks. */
export const BulkRequest = z
  .object({
    action: BulkAction,
    selector: LabelSelector.refine((s) => s.trim() !== '', {
      message: 'a bulk operation needs a selector: the empty one would pick every schedule of the tenant',
    }),
    dry_run: z.boolean().default(false).describe('answer what would be done, change nothing'),
    note: z.string().max(500).optional().describe('pause, cancel and delete: the note each schedule records'),
    running: CancelRequest.shape.running.describe(
      'cancel and delete: what happens to occurrences still running (as for one schedule)',
    ),
  })
  .strict();
export type BulkRequest = z.infer<typeof BulkRequest>;
export type BulkRequestInput = z.input<typeof BulkRequest>;

export const BulkOutcome = z
  .enum(['DONE', 'WOULD_DO', 'UNCHANGED', 'FAILED'])
  .describe(
    'DONE: acted on; WOULD_DO: a dry run would act; UNCHANGED: nothing to do (e.g. already paused), `reason` says why; FAILED: the action was refused or did not reach it, `reason` says why',
  );

export const BulkResult = z.object({
  action: BulkAction,
  selector: z.string(),
  dry_run: z.boolean(),
  matched: z.number().int().describe('schedules the selector picked (deleted ones are never picked)'),
  results: z.array(
    z.object({
      schedule_id: z.string(),
      status_before: ScheduleStatus,
      outcome: BulkOutcome,
      reason: z.string().nullable(),
    }),
  ),
});
export type BulkResult = z.infer<typeof BulkResult>;
