// The TypeScript client SDK. Every operation is scoped to one tenant (the principal the client was made
// for): schedule workflow IDs embed the tenant, so a caller cannot reach another tenant's schedules.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  type Client,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, type SearchAttributePair, type UpdateDefinition } from '@temporalio/common';
import type { z } from 'zod';
import { CalendarError } from '../calendar/errors.js';
import type { TimingKind } from '../calendar/timing.js';
import { checkZone } from '../calendar/zone.js';
import { armAtMs } from '../model/arming.js';
import {
  BackfillRequest,
  type BackfillResult,
  CancelRequest,
  EditRequest,
  type EditRequestInput,
  type EditResult,
  type NextRun,
  type Occurrence,
  RecomputeRequest,
  type RecomputeResult,
  type RecomputeSummary,
  type Schedule,
  type ScheduleDescription,
  ScheduleIdentity,
  ScheduleSpec,
  type ScheduleSpecInput,
  ScheduleStatus,
  specOf,
  TriggerRequest,
  toNextRun,
} from '../model/contracts.js';
import { explanationOf, withExplanation } from '../model/explanation.js';
import {
  ListOccurrencesQuery,
  type OccurrencePage,
  PatchScheduleRequest,
  type PreviewResult,
} from '../model/http.js';
import { occurrenceIdPrefix, scheduleIdOf, scheduleWorkflowId } from '../model/ids.js';
import { InterpretRequest, type InterpretResult } from '../model/interpret.js';
import {
  calendarOptionsOf,
  computeSlots as computeSlotsHere,
  type SlotBatchRequest,
  type SlotSpec,
} from '../model/slots.js';
import { TenantPolicy, type TenantQuotas } from '../model/tenant-policy.js';
import {
  DEFAULT_ARM_LEAD_MS,
  DELETED_VISIBLE_STATUS,
  describedAsOf,
  isTerminal,
  newScheduleDocument,
} from '../model/views.js';
import { zonesOf } from '../model/zones.js';
import {
  backfillUpdate,
  cancelUpdate,
  DEFINITION_MEMO,
  type DefinitionMemo,
  describeQuery,
  editUpdate,
  FIRST_SLOT_BATCH,
  INVALID_REQUEST,
  INVALID_STATE,
  pauseSignal,
  recomputeUpdate,
  resumeSignal,
  SCHEDULE_WORKFLOW_TYPE,
  SCHEDULE_WORKFLOWS,
  STALE_CLOCK_REFUSAL,
  takeOverUpdate,
  triggerNowUpdate,
  VERSION_CONFLICT,
  VERSION_MEMO,
  wakeUpdate,
} from '../workflows/definitions.js';
import {
  NextRunAtKey,
  OwnerKey,
  ownerKeyValue,
  quoteQueryValue,
  ScheduleIdKey,
  ScheduleStatusKey,
  scheduleAttributes,
  TenantIdKey,
  TimingKindKey,
  ZonesKey,
} from '../workflows/search-attributes.js';
import type { Principal } from './auth.js';
import {
  checkContract,
  InterpretProblemError,
  parseOrThrow,
  QuotaExceededError,
  SchedulerError,
  UnavailableError,
  validationError,
} from './errors.js';
import { asEdited, mergedSpec, type PatchScheduleInput, VersionConflictError } from './patch.js';
import {
  type BackfillSlotLedger,
  checkMinInterval,
  checkPayloadSize,
  PROCESS_BACKFILL_LEDGER,
  WORKFLOW_BACKFILL_LIMIT,
} from './quotas.js';
import { backoff, poll, type RepeatPolicy, type RetryPolicy, retry } from './retry.js';
import {
  IN_PROCESS_SLOTS,
  type InterpretTaskOutcome,
  runInterpretTask,
  type SlotRunner,
} from './slot-runner.js';

export interface SchedulerClientOptions {
  client: Client;
  /** Task queue the scheduler's worker polls. */
  taskQueue: string;
  /** Task queue for JOB targets that name none (where the deployment's job workers poll). */
  jobTaskQueue: string;
  /**
   * How long before its slot a new recurring ALLOW JOB schedule starts each job, with a delay to its instant
   * (armed: at the instant the server alone begins it). Default DEFAULT_ARM_LEAD_MS; 0: never armed.
   */
  armLeadMs?: number;
  /**
   * Start a new schedule asleep (default true): its workflow is started with a delay to the point where
   * it would arm its first run (startDelayMs: within the arm lead, at least `WAKE_MARGIN_MS` before the
   * run), so creating it costs the scheduler's worker nothing until then. A read, an edit or any update wakes it earlier (a query alone cannot: the API
   * wakes it first). False: the first workflow task runs at creation.
   */
  startAsleep?: boolean;
  principal: Principal;
  /**
   * The tenant policy in force (src/model/tenant-policy.ts; a function, so a reloaded file takes effect):
   * a target outside it is refused with FORBIDDEN_TARGET at create and edit. Unset (an SDK embedded in a
   * service that holds namespace credentials anyway), only the checks every deployment makes apply here
   * and the worker's policy decides at hand-off. The HTTP API always passes it.
   */
  tenantPolicy?: () => TenantPolicy;
  /**
   * How long a read that the scheduler's worker answers (describe, get, list, and the reads inside
   * update, delete and callLive) waits before failing with UNAVAILABLE. Default 10 s.
   */
  readTimeoutMs?: number;
  /**
   * The scheduler's "now" (epoch ms): the creation instant a new schedule counts its slots from, and the
   * instant validation checks a definition still fires after. Default: this machine's clock (kept in
   * step with the Temporal server's by NTP). Tests on the time-skipping server, whose clock runs ahead of
   * this machine's, pass its clock: `() => env.currentTimeMs()`.
   */
  clock?: () => number | Promise<number>;
  /**
   * Where backfilled slots are counted for `quotas.max_backfill_slots_per_hour`; default one ledger for the
   * whole process. The HTTP API passes its own.
   */
  backfillLedger?: BackfillSlotLedger;
  /**
   * The secret list cursors are signed with (HMAC-SHA-256): a cursor is accepted only by a client holding
   * the same secret, so every process that serves pages of one listing (API replicas behind a load
   * balancer) needs the same one. Unset: a random secret of this process — its cursors stop working after
   * a restart and on any other process (the caller is told to list again from the start).
   */
  cursorSecret?: string;
  /**
   * Where the calendar's searches of create, edit and backfill run (./slot-runner.ts). Default: in the
   * caller's thread, synchronously. The HTTP API passes its pool of worker threads, which bounds each
   * request's searches in time and queues them fairly per tenant; whatever runs them, a search that
   * completes answers the same.
   */
  calendar?: SlotRunner;
}

export interface ListFilter {
  status?: ScheduleStatus;
  timing_kind?: TimingKind;
  /** Page size, 1–100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Also list deleted schedules. */
  include_deleted?: boolean;
}

export interface SettleOptions {
  /**
   * Signals are asynchronous: answer the schedule once the signal shows in it, read again every 100 ms
   * for up to 2 s (then as it is).
   */
  wait: true;
}

export interface SchedulePage {
  items: Schedule[];
  next_cursor: string | null;
}

export interface CreateScheduleInput extends ScheduleSpecInput {
  /** `schedule.v1`, or absent: a schedule.v1 document (without its server-owned fields) is a create input. */
  contract?: string;
  /** Client-chosen ID: create is idempotent on it. Default: a new UUID. */
  schedule_id?: string;
}

export interface CreateResult {
  /**
   * Built by the SDK, without waiting for the scheduler's worker. A new schedule: its definition, status
   * ACTIVE, version 1 and next runs counted from `created_at` exactly as the workflow counts them. An
   * existing one (`created: false`): the same, with `status` and `next_run_at` from the workflow's search
   * attributes; `last_run_at` and `pause_note`, which only the workflow knows, are null and `updated_at`
   * is `created_at` — `get()` reads them from the workflow.
   */
  schedule: Schedule;
  /** False when a schedule with this ID and the same definition already existed (idempotent create). */
  created: boolean;
}

const GRPC_CANCELLED = 1;
const GRPC_INVALID_ARGUMENT = 3;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;
const GRPC_RESOURCE_EXHAUSTED = 8;
const GRPC_FAILED_PRECONDITION = 9;
const GRPC_UNAVAILABLE = 14;
/** FAILED_PRECONDITION: the update's workflow task failed (see runUpdate). */
const UPDATE_RETRY: RetryPolicy = {
  attempts: 6,
  delay: backoff({ firstMs: 250, maxMs: 4000 }),
  transient: (err) => (err as { cause?: { code?: number } }).cause?.code === GRPC_FAILED_PRECONDITION,
};
/**
 * A query the stale-clock guard refused (STALE_CLOCK_REFUSAL) raced new history of the schedule; asked
 * again it is answered by a worker that rebuilt the schedule at its own task's time.
 */
const STALE_CLOCK_RETRY: RetryPolicy = {
  attempts: 6,
  delay: backoff({ firstMs: 25 }),
  transient: (err) => err instanceof Error && err.message.includes(STALE_CLOCK_REFUSAL),
  exhausted: () =>
    new UnavailableError(
      'STALE_CLOCK',
      "the schedule's worker refused every read: its newest history events wait for a workflow task the worker has not run yet (busy); retry",
    ),
};
const DEFAULT_READ_TIMEOUT_MS = 10_000;
/**
 * The least time before its first run a schedule created asleep takes its first workflow task (room for a
 * backlog of other schedules' tasks at that instant); also the least sleep worth a delayed start.
 */
export const WAKE_MARGIN_MS = 60_000;

/**
 * The start delay of schedule `scheduleId`, created asleep at `createdAt`, whose first run is `firstRunAt`:
 * it wakes when it would arm that run's job (armAtMs: within its lead, spread per schedule), so that a
 * recurring job is armed by its first task (one task, not one to start and another to arm), and at least
 * WAKE_MARGIN_MS before the run. 0: started awake (less than a margin of sleep).
 */
export function startDelayMs(
  scheduleId: string,
  firstRunAt: string,
  createdAt: string,
  armLeadMs: number,
): number {
  const firstRunMs = Date.parse(firstRunAt);
  // With no lead, armAtMs is the run itself, so the margin decides.
  const wakeAt = Math.min(armAtMs(firstRunMs, armLeadMs, scheduleId), firstRunMs - WAKE_MARGIN_MS);
  const delay = wakeAt - Date.parse(createdAt);
  return delay >= WAKE_MARGIN_MS ? delay : 0;
}

/** A query to a schedule created asleep before anything woke it: the server has no task to answer it. */
function isAsleep(err: unknown): boolean {
  return (
    grpcCode(err) === GRPC_FAILED_PRECONDITION &&
    err instanceof Error &&
    /not scheduled yet/i.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`)
  );
}
/** The largest page a listing asks visibility for. */
const MAX_PAGE_SIZE = 100;
/** SettleOptions' watch: the first read and 20 more, 100 ms apart. */
const SETTLE_POLL: RepeatPolicy = { attempts: 21, delay: backoff({ firstMs: 100, factor: 1 }) };
/** Without a policy: only what every deployment refuses (scheduler workflows, the scheduler's own queue). */
const ALWAYS_CHECKED = TenantPolicy.openToAll();

/** JSON with the keys of every object sorted (by code unit, not locale): one spelling per value. */
const stable = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

// A list cursor is the server's page token, signed with the cursor secret over the listing it came from
// (tenant and filters): `base64url(tag ‖ token)`, the tag being the first 16 bytes of
// HMAC-SHA-256(secret, query ‖ NUL ‖ token). A cursor of another listing, a tampered one or one signed
// with another secret is refused here, before Temporal sees it: without the key nobody can make a token
// that Temporal would choke on (INVALID_ARGUMENT, which used to be a 500 and an error log line).
const CURSOR_TAG_BYTES = 16;
/** Used when no cursor secret is configured: cursors of this process only. */
const PROCESS_CURSOR_SECRET = randomBytes(32);
const CURSOR_REFUSED =
  'not a cursor of this listing (tampered, from other filters, or signed by another API process or before a restart): list again from the start, without a cursor';

const cursorTag = (secret: string | Buffer, query: string, token: Uint8Array): Buffer =>
  createHmac('sha256', secret)
    .update(query)
    .update('\0')
    .update(token)
    .digest()
    .subarray(0, CURSOR_TAG_BYTES);

const cursorRefused = () => new SchedulerError('VALIDATION', CURSOR_REFUSED, 'cursor');

function encodeCursor(secret: string | Buffer, token: Uint8Array, query: string): string {
  return Buffer.concat([cursorTag(secret, query, token), token]).toString('base64url');
}

function decodeCursor(secret: string | Buffer, cursor: string, query: string): Uint8Array {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= CURSOR_TAG_BYTES) throw cursorRefused();
  const token = bytes.subarray(CURSOR_TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(0, CURSOR_TAG_BYTES), cursorTag(secret, query, token))) {
    throw cursorRefused();
  }
  return token;
}

/**
 * What idempotent create compares: sha256 (hex) of the canonical JSON of the parsed definition (defaults
 * filled in, so leaving a field out and giving its default are the same definition). Stored in the
 * schedule's memo at start. A new defaulted field in ScheduleSpec changes every hash: a retry across such
 * an upgrade is answered ALREADY_EXISTS, not silently accepted.
 */
export function definitionHash(spec: ScheduleSpec): string {
  return createHash('sha256').update(stable(spec)).digest('hex');
}

/**
 * The next `count` runs of a definition entering (a preview, a validation) after `after`; invalid rules and
 * zones, and a repeated list value, become VALIDATION errors.
 */
export function previewRuns(
  scheduleId: string,
  spec: SlotSpec,
  createdAt: string,
  after: string,
  count = 10,
): NextRun[] {
  try {
    return computeSlotsHere({ scheduleId, spec, createdAt, after, count, refuseRepeats: true }).slots.map(
      toNextRun,
    );
  } catch (err) {
    throw validationError(err) ?? err;
  }
}

/** previewRuns on a SlotRunner (the HTTP API's pool), for `tenant`. */
export async function previewRunsOn(
  runner: SlotRunner,
  tenant: string,
  scheduleId: string,
  spec: SlotSpec,
  createdAt: string,
  after: string,
  count = 10,
): Promise<NextRun[]> {
  const [batch] = await batchesOn(runner, tenant, [
    { scheduleId, spec, createdAt, after, count, refuseRepeats: true },
  ]);
  return batch!.slots.map(toNextRun);
}

/** The batches of `requests` on `runner`; calendar errors become VALIDATION errors naming the field. */
async function batchesOn(runner: SlotRunner, tenant: string, requests: SlotBatchRequest[]) {
  try {
    return await runner.slots(tenant, requests);
  } catch (err) {
    throw validationError(err) ?? err;
  }
}

/**
 * A reading's outcome as the SDK answers it: the result, or the reader's question or refusal as an
 * {@link InterpretProblemError} (AMBIGUOUS with `readings`, UNREADABLE with `unread`, ZONE_REQUIRED), a
 * calendar or request refusal as VALIDATION naming the field.
 */
export function interpretResultOf(outcome: InterpretTaskOutcome): InterpretResult {
  if (outcome.ok) return outcome.result;
  if ('problem' in outcome) throw new InterpretProblemError(outcome.problem);
  if ('error' in outcome) {
    throw validationError(new CalendarError(outcome.error.field, outcome.error.reason, outcome.error.code))!;
  }
  throw new SchedulerError('VALIDATION', outcome.invalid.reason, outcome.invalid.field);
}

/** The definition fields a sentence can set (src/model/interpret.ts): the ones `authored_from` speaks for. */
const WORDED_FIELDS = ['timing', 'timezone', 'window', 'starts_at', 'ends_at', 'max_count', 'dst'] as const;

/**
 * A PATCH that changes what the words said (the timing or a calendar option a sentence sets) without
 * giving new words clears `authored_from`: the stored text would no longer describe the rule.
 */
function withoutStaleWords(current: Schedule, fields: Record<string, unknown>): Record<string, unknown> {
  if (fields.authored_from !== undefined || current.authored_from === undefined) return fields;
  const changed = WORDED_FIELDS.some(
    (key) =>
      fields[key] !== undefined &&
      stable(fields[key] ?? null) !== stable((current as Record<string, unknown>)[key] ?? null),
  );
  return changed ? { ...fields, authored_from: null } : fields;
}

/** The runs validation looks at: enough for the minimum-interval sample and every DEADLINE reminder. */
const VALIDATION_RUNS = 50;

/** Checks what the zod contract cannot: the rule compiles, and it will fire at least once after `now`. */
export function validateSpec(
  scheduleId: string,
  spec: ScheduleSpec,
  createdAt: string,
  now: string,
): NextRun[] {
  return expectRuns(spec, now, previewRuns(scheduleId, spec, createdAt, now, VALIDATION_RUNS));
}

/** `runs`, the next runs of `spec` after `now`, or VALIDATION when there are none (expired). */
function expectRuns(spec: ScheduleSpec, now: string, runs: NextRun[]): NextRun[] {
  if (runs.length === 0) {
    const field = { ONE_TIME: 'timing.at', DEADLINE: 'timing.at', DELAY: 'timing.anchor' }[
      spec.timing.kind as string
    ];
    throw new SchedulerError(
      'VALIDATION',
      'the schedule has no occurrence after now (expired): move it into the future',
      spec.ends_at !== undefined && Date.parse(spec.ends_at) <= Date.parse(now)
        ? 'ends_at'
        : (field ?? 'timing'),
    );
  }
  return runs;
}

const grpcCode = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'number' ? e.code : e?.cause?.code;
  return typeof code === 'number' ? code : undefined;
};

const unavailable = () =>
  new UnavailableError(
    'NO_ANSWER',
    'the scheduler worker did not answer in time (down or busy) or Temporal is unreachable; retry',
  );

function translate(err: unknown, scheduleId: string): unknown {
  if (err instanceof SchedulerError) return err;
  if (err instanceof WorkflowNotFoundError)
    return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === VERSION_CONFLICT)
      return new SchedulerError('VERSION_CONFLICT', cause.message, 'expected_version');
    if (cause.type === INVALID_STATE) return new SchedulerError('INVALID_STATE', cause.message);
    if (cause.type === INVALID_REQUEST) return new SchedulerError('VALIDATION', cause.message);
  }
  const code = grpcCode(err);
  if (code === GRPC_NOT_FOUND) return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  // DEADLINE_EXCEEDED is also what the server answers when no worker took a query in time ("query timed
  // out before a worker could process it"); RESOURCE_EXHAUSTED when a schedule has more queries waiting
  // than its worker answers ("consistent query buffer is full"): both are a busy worker.
  if (code === GRPC_DEADLINE_EXCEEDED || code === GRPC_UNAVAILABLE || code === GRPC_RESOURCE_EXHAUSTED)
    return unavailable();
  return err;
}

const ALREADY_EXISTS_REASON = 'already exists with another definition';

/** status from the SchedulerStatus search attribute; a workflow ended by other means (terminate) is closed. */
function statusOf(description: WorkflowExecutionDescription): ScheduleStatus {
  const shown = description.typedSearchAttributes.get(ScheduleStatusKey);
  // A deleted schedule is CANCELLED; visibility shows it as DELETED to leave it out of listings.
  const recorded = ScheduleStatus.safeParse(shown === DELETED_VISIBLE_STATUS ? 'CANCELLED' : shown);
  const execution = description.status.name;
  if (execution === 'RUNNING') return recorded.success ? recorded.data : 'ACTIVE';
  if (recorded.success && isTerminal(recorded.data)) return recorded.data;
  if (execution === 'COMPLETED') return 'COMPLETED';
  return execution === 'FAILED' || execution === 'TIMED_OUT' ? 'FAILED' : 'CANCELLED';
}

/** Schedules listed per visibility page, and asked at once, by a tenant's recompute. */
const RECOMPUTE_PAGE = 200;
const RECOMPUTE_CONCURRENCY = 8;

export type RecomputeRequestInput = z.input<typeof RecomputeRequest>;

/** The request, with `zone` an IANA id (VALIDATION naming `zone` otherwise). */
function parseRecompute(request: RecomputeRequestInput): RecomputeRequest {
  const parsed = parseOrThrow(RecomputeRequest, request);
  if (parsed.zone !== undefined) {
    try {
      checkZone('zone', parsed.zone);
    } catch (err) {
      if (err instanceof CalendarError) throw new SchedulerError('VALIDATION', err.reason, 'zone');
      throw err;
    }
  }
  return parsed;
}

export class SchedulerClient {
  constructor(private readonly options: SchedulerClientOptions) {}

  private get tenant(): string {
    return this.options.principal.tenant_id;
  }

  /** The calendar's batches of `requests`, on the configured runner; calendar errors become VALIDATION. */
  private async batches(requests: SlotBatchRequest[]) {
    return await batchesOn(this.options.calendar ?? IN_PROCESS_SLOTS, this.tenant, requests);
  }

  /**
   * validateSpec on the configured runner; `refuseRepeats` for a timing that enters with this request (an
   * edit that leaves a stored timing alone is not refused for what that timing always said).
   */
  private async validated(
    scheduleId: string,
    spec: ScheduleSpec,
    createdAt: string,
    now: string,
    refuseRepeats: boolean,
  ) {
    const [batch] = await this.batches([
      { scheduleId, spec, createdAt, after: now, count: VALIDATION_RUNS, refuseRepeats },
    ]);
    return expectRuns(spec, now, batch!.slots.map(toNextRun));
  }

  /** The next run of a definition after now, or null. */
  private async nextRun(scheduleId: string, spec: ScheduleSpec, createdAt: string): Promise<string | null> {
    const [batch] = await this.batches([{ scheduleId, spec, createdAt, after: await this.now(), count: 1 }]);
    const [slot] = batch!.slots;
    return slot ? toNextRun(slot).fire_at : null;
  }

  private async now(): Promise<string> {
    return new Date(this.options.clock ? await this.options.clock() : Date.now()).toISOString();
  }

  private handle(scheduleId: string): WorkflowHandle {
    return this.options.client.workflow.getHandle(scheduleWorkflowId(this.tenant, scheduleId));
  }

  /**
   * Where a target may reach, beyond its shape: EVENT sinks within the operator's allowlist; never another
   * tenant's scheduler workflows; never a start on the scheduler's own task queue (that would run a forged
   * schedule). The hand-off activity checks the first two again when it runs.
   */
  /** Where this tenant's JOBs without a task_queue start: the policy's first exact queue, else the deployment's. */
  private defaultJobTaskQueue(): string {
    return (
      this.options.tenantPolicy?.().defaultJobTaskQueue(this.tenant, this.options.jobTaskQueue) ??
      this.options.jobTaskQueue
    );
  }

  /** The target against the tenant policy in force (the worker asks again at every hand-off). */
  private checkTarget(spec: ScheduleSpec): void {
    const policy = this.options.tenantPolicy?.() ?? ALWAYS_CHECKED;
    const verdict = policy.check(this.tenant, spec.target, {
      schedulerTaskQueue: this.options.taskQueue,
      defaultJobTaskQueue: this.defaultJobTaskQueue(),
    });
    if (!verdict.allowed) throw new SchedulerError('FORBIDDEN_TARGET', verdict.reason, verdict.field);
  }

  /** The tenant's quotas in the policy in force (none without a policy: an SDK embedded with namespace credentials). */
  private quotas(): TenantQuotas {
    return (this.options.tenantPolicy?.() ?? ALWAYS_CHECKED).quotas(this.tenant);
  }

  /**
   * quotas.max_schedules: the tenant's live schedules (running, not deleted), counted by visibility, which
   * trails starts by up to a second: a burst of concurrent creates may pass the quota by a few. A create
   * of a schedule that already exists (an idempotent retry) is answered as usual, never refused.
   */
  private async checkScheduleCount(scheduleId: string, spec: ScheduleSpec, sha256: string) {
    const limit = this.quotas().max_schedules;
    if (!Number.isFinite(limit)) return null;
    const { count } = await this.call('', () =>
      this.options.client.workflowService.countWorkflowExecutions({
        namespace: this.options.client.options.namespace,
        query: `${this.listQuery({})} AND ExecutionStatus = 'Running'`,
      }),
    );
    const live = Number(count ?? 0);
    if (live < limit) return null;
    try {
      return await this.existing(scheduleId, spec, sha256);
    } catch (err) {
      if (!(err instanceof SchedulerError && err.code === 'NOT_FOUND')) throw err;
    }
    throw new QuotaExceededError(
      `the tenant has ${live} live schedules, its quota is ${limit} (quotas.max_schedules): cancel or delete one first`,
      null,
      limit,
      live,
    );
  }

  /** At creation, every reminder of a DEADLINE must still be ahead (one already past could never fire). */
  private checkReminders(spec: ScheduleSpec, runs: NextRun[]): void {
    if (spec.timing.kind !== 'DEADLINE' || !spec.timing.reminders) return;
    const ahead = new Set(runs.map((r) => r.label));
    spec.timing.reminders.forEach((reminder, index) => {
      if (!ahead.has(`reminder:${reminder}`)) {
        throw new SchedulerError(
          'VALIDATION',
          `the reminder ${reminder} before the deadline is already in the past: remove it or move the deadline`,
          `timing.reminders.${index}`,
        );
      }
    });
  }

  private async call<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      throw translate(err, scheduleId);
    }
  }

  /**
   * A read under a deadline: past it, the call fails with UNAVAILABLE (a retryable error) instead of
   * waiting for the server's own query timeout (30 s on the dev server) or forever.
   */
  private async read<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
    try {
      return await this.options.client.connection.withDeadline(deadline, body);
    } catch (err) {
      // The client reports its own deadline as DEADLINE_EXCEEDED, or as CANCELLED when it hit a retry.
      const code = grpcCode(err);
      const expired = code === GRPC_DEADLINE_EXCEEDED || code === GRPC_CANCELLED;
      if (err instanceof ServiceError && expired && Date.now() >= deadline) throw unavailable();
      throw translate(err, scheduleId);
    }
  }

  /** Updates and signals reach only a running schedule; on a closed one, say so instead of "not found". */
  private async callLive<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
    try {
      return await this.call(scheduleId, body);
    } catch (err) {
      if (!(err instanceof SchedulerError && err.code === 'NOT_FOUND')) throw err;
      const { status } = await this.get(scheduleId); // throws NOT_FOUND when it really is gone
      throw new SchedulerError('INVALID_STATE', `schedule is ${status}`);
    }
  }

  /**
   * Runs an update on the schedule. The server refuses an update whose workflow task failed (e.g. the
   * worker holding it died) with FAILED_PRECONDITION; that is transient, so it is retried with backoff
   * under one update ID, which the server deduplicates: a retry never applies the update twice.
   */
  private async runUpdate<Ret, Arg>(
    scheduleId: string,
    update: UpdateDefinition<Ret, [Arg]>,
    arg: Arg,
  ): Promise<Ret> {
    const updateId = randomUUID();
    return await retry(
      () =>
        this.callLive(scheduleId, () =>
          this.handle(scheduleId).executeUpdate(update, { args: [arg], updateId }),
        ),
      UPDATE_RETRY,
    );
  }

  /**
   * Starts the schedule's workflow and answers from what the SDK knows — the validated definition and
   * the next runs counted from the creation instant it hands the workflow — without waiting for the
   * scheduler's worker, which may be busy (a creation storm) or down: the schedule exists and will run
   * once a worker picks it up. A create whose ID is taken is answered from DescribeWorkflowExecution
   * (the memo written at start), again without the worker.
   */
  async create(input: CreateScheduleInput): Promise<CreateResult> {
    const { schedule_id, contract, ...specInput } = input;
    checkContract(contract);
    const scheduleId = schedule_id ?? randomUUID();
    const identity = parseOrThrow(ScheduleIdentity, {
      schedule_id: scheduleId,
      tenant_id: this.tenant,
      owner_ref: this.options.principal.owner_ref,
    });
    const spec = parseOrThrow(ScheduleSpec, specInput);
    this.checkTarget(spec);
    checkPayloadSize(spec.target);
    // One instant for both sides: the workflow counts its slots from the createdAt it is given, so the
    // next runs computed here are the ones it will fire.
    const createdAt = await this.now();
    // Validation and the workflow's first batch in one trip to the calendar (one task of the API's pool,
    // under one budget); each is what it was computed alone, the first batch what the slot activity computes.
    const [validation, firstBatch] = await this.batches([
      { scheduleId, spec, createdAt, after: createdAt, count: VALIDATION_RUNS, refuseRepeats: true },
      { scheduleId, spec, createdAt, after: createdAt, count: FIRST_SLOT_BATCH },
    ]);
    const runs = expectRuns(spec, createdAt, validation!.slots.map(toNextRun));
    this.checkReminders(spec, runs);
    const quotas = this.quotas();
    checkMinInterval(spec.timing, runs, quotas);
    const sha256 = definitionHash(spec);
    const alreadyThere = await this.checkScheduleCount(scheduleId, spec, sha256);
    if (alreadyThere) return alreadyThere;
    const zones = zonesOf(spec);
    const armLeadMs = this.options.armLeadMs ?? DEFAULT_ARM_LEAD_MS;
    const sleepMs =
      this.options.startAsleep === false
        ? 0
        : startDelayMs(scheduleId, runs[0]!.fire_at, createdAt, armLeadMs);
    const definition: DefinitionMemo = { sha256, created_at: createdAt, owner_ref: identity.owner_ref };
    try {
      await this.options.client.workflow.start(SCHEDULE_WORKFLOW_TYPE, {
        taskQueue: this.options.taskQueue,
        workflowId: scheduleWorkflowId(this.tenant, scheduleId),
        args: [
          {
            identity,
            spec,
            defaultJobTaskQueue: this.defaultJobTaskQueue(),
            createdAt,
            // The workflow's bound on hand-offs in flight until the first hand-off tells the one in force.
            ...(Number.isFinite(quotas.max_handoffs_in_flight)
              ? { maxHandoffsInFlight: quotas.max_handoffs_in_flight }
              : {}),
            // The calendar's first batch, as the slot activity would compute it: the schedule knows its
            // next runs from its first workflow task.
            firstBatch,
            armLeadMs,
          },
        ],
        ...(sleepMs > 0 ? { startDelay: sleepMs } : {}),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        memo: { [DEFINITION_MEMO]: definition, [VERSION_MEMO]: 1 },
        // What the run upserts later, set once here (a new schedule always has a next run, so no null).
        typedSearchAttributes: [
          ...scheduleAttributes({
            tenantId: this.tenant,
            scheduleId,
            timingKind: spec.timing.kind,
            status: 'ACTIVE',
            nextRunAt: runs[0]!.fire_at,
            tz: { version: zones.length > 0 ? (firstBatch?.tz ?? null) : null, zones },
          }).filter((pair) => pair.value !== null),
          { key: OwnerKey, value: ownerKeyValue(this.tenant, this.options.principal.owner_ref) },
        ] as SearchAttributePair[],
        staticSummary: `Schedule ${scheduleId} (${spec.timing.kind} → ${spec.target.type})`,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw translate(err, scheduleId);
      return await this.existing(scheduleId, spec, sha256);
    }
    return {
      schedule: withExplanation(newScheduleDocument(identity, spec, createdAt, 'ACTIVE', runs[0]!.fire_at)),
      created: true,
    };
  }

  /** Answers a create whose schedule ID is taken, from DescribeWorkflowExecution: no worker needed. */
  private async existing(scheduleId: string, spec: ScheduleSpec, sha256: string): Promise<CreateResult> {
    const description = await this.read(scheduleId, () => this.handle(scheduleId).describe());
    const definition = description.memo?.[DEFINITION_MEMO] as DefinitionMemo | undefined;
    if (!definition?.sha256) return await this.existingByQuery(scheduleId, spec);
    // The version is in the memo: 1 at start, upserted by the workflow on every edit. An edited schedule is
    // not the one this create describes, even if an edit went back to the same definition: a conflict.
    // (A schedule edited by a worker older than the memo upsert still reads as version 1 here.)
    const version = Number(description.memo?.[VERSION_MEMO] ?? 1);
    if (definition.sha256 !== sha256 || version !== 1) {
      throw new SchedulerError(
        'ALREADY_EXISTS',
        `schedule ${scheduleId} ${ALREADY_EXISTS_REASON} (version ${version})`,
        'schedule_id',
      );
    }
    // Same hash: the definition is the one given here, so the schedule is built from it, from the start's
    // memo (created_at, owner) and from the search attributes the workflow keeps current.
    const status = statusOf(description);
    let nextRunAt: string | null = null;
    if (!isTerminal(status)) {
      // The workflow clears SchedulerNextRunAt while PAUSED; the definition's next run stands in for it.
      nextRunAt =
        description.typedSearchAttributes.get(NextRunAtKey)?.toISOString() ??
        (await this.nextRun(scheduleId, spec, definition.created_at));
    }
    const identity = { schedule_id: scheduleId, tenant_id: this.tenant, owner_ref: definition.owner_ref };
    return {
      schedule: withExplanation(
        newScheduleDocument(identity, spec, definition.created_at, status, nextRunAt),
      ),
      created: false,
    };
  }

  /** A schedule started before the definition memo: compared through the workflow's own answer. */
  private async existingByQuery(scheduleId: string, spec: ScheduleSpec): Promise<CreateResult> {
    const existing = await this.get(scheduleId);
    const sameDefinition = stable(ScheduleSpec.parse(specOf(existing))) === stable(spec);
    if (existing.version === 1 && sameDefinition) return { schedule: existing, created: false };
    throw new SchedulerError(
      'ALREADY_EXISTS',
      `schedule ${scheduleId} ${ALREADY_EXISTS_REASON} (version ${existing.version})`,
      'schedule_id',
    );
  }

  /**
   * The workflow's own answer, with the schedule's `explanation` (its definition in words, added here: the
   * workflow neither stores nor computes it); UNAVAILABLE when its worker does not answer within
   * `readTimeoutMs`.
   */
  async describe(scheduleId: string): Promise<ScheduleDescription> {
    const description = await this.read(scheduleId, () =>
      retry(() => this.queryAwake(scheduleId), STALE_CLOCK_RETRY),
    );
    const asOfNow = describedAsOf(description, Date.parse(await this.now()));
    return { ...asOfNow, schedule: withExplanation(asOfNow.schedule) };
  }

  /** The schedule's describe query; a schedule still asleep (created with a start delay) is woken first. */
  private async queryAwake(scheduleId: string): Promise<ScheduleDescription> {
    try {
      return await this.handle(scheduleId).query(describeQuery);
    } catch (err) {
      if (!isAsleep(err)) throw err;
      await this.wake(scheduleId);
      return await this.handle(scheduleId).query(describeQuery);
    }
  }

  /** Runs the schedule's first workflow task now (the wake update is a no-op: the task is what it asks for). */
  private async wake(scheduleId: string): Promise<void> {
    await this.runUpdate(scheduleId, wakeUpdate, {});
  }

  /**
   * Wakes a schedule created asleep whose start delay has not ended, so that what was just signalled to
   * it shows in its search attributes (a listing by status) now, not at its first run.
   */
  private async wakeIfAsleep(scheduleId: string): Promise<void> {
    const { executionTime } = await this.handle(scheduleId).describe();
    if (executionTime && executionTime.getTime() > Date.parse(await this.now())) await this.wake(scheduleId);
  }

  async get(scheduleId: string): Promise<Schedule> {
    return (await this.describe(scheduleId)).schedule;
  }

  /** The visibility query for this tenant's schedules under a filter. */
  private listQuery(filter: ListFilter): string {
    const clauses = [SCHEDULE_WORKFLOWS, `${TenantIdKey.name} = ${quoteQueryValue(this.tenant)}`];
    // Filter values are enum members (validated by the contracts), never free text.
    if (filter.status) clauses.push(`${ScheduleStatusKey.name} = '${filter.status}'`);
    if (filter.timing_kind) clauses.push(`${TimingKindKey.name} = '${filter.timing_kind}'`);
    if (!filter.include_deleted) clauses.push(`${ScheduleStatusKey.name} != '${DELETED_VISIBLE_STATUS}'`);
    return clauses.join(' AND ');
  }

  /**
   * One page of this tenant's schedules, newest first, from the server's visibility store; each item is
   * read from its schedule (a query), so a page needs the scheduler worker.
   */
  async listPage(filter: ListFilter = {}): Promise<SchedulePage> {
    const query = this.listQuery(filter);
    const secret = this.options.cursorSecret ?? PROCESS_CURSOR_SECRET;
    const token = filter.cursor ? decodeCursor(secret, filter.cursor, query) : undefined;
    const pageSize = Math.min(Math.max(filter.limit ?? 20, 1), MAX_PAGE_SIZE);
    const listed = await this.visibleIds(query, pageSize, token).catch((err) => {
      // A token we signed that the server no longer takes (it changed since, or its visibility store did):
      // the caller's cursor, not our fault. Without a cursor the query is ours alone: left a server error.
      if (token && grpcCode(err) === GRPC_INVALID_ARGUMENT) throw cursorRefused();
      throw err;
    });
    return {
      items: await this.readAll(listed.ids),
      next_cursor: listed.next ? encodeCursor(secret, listed.next, query) : null,
    };
  }

  /** Every schedule of the tenant (deleted ones included, as before 0.2), up to `limit`, page by page. */
  async list(filter: { status?: Schedule['status']; limit?: number } = {}): Promise<Schedule[]> {
    const query = this.listQuery({
      ...(filter.status ? { status: filter.status } : {}),
      include_deleted: true,
    });
    const schedules: Schedule[] = [];
    let token: Uint8Array | undefined;
    do {
      const wanted = filter.limit ? filter.limit - schedules.length : MAX_PAGE_SIZE;
      const listed = await this.visibleIds(query, Math.min(wanted, MAX_PAGE_SIZE), token);
      schedules.push(...(await this.readAll(listed.ids)));
      token = listed.next;
    } while (token && !(filter.limit && schedules.length >= filter.limit));
    return schedules;
  }

  /** The schedule IDs of one visibility page of `query`, and the server's token for the next page. */
  private async visibleIds(query: string, pageSize: number, token: Uint8Array | undefined) {
    const page = await this.call('', () =>
      this.options.client.workflowService.listWorkflowExecutions({
        namespace: this.options.client.options.namespace,
        query,
        pageSize,
        ...(token ? { nextPageToken: token } : {}),
      }),
    );
    const ids = (page.executions ?? []).flatMap((execution) => {
      const named = scheduleIdOf(execution.execution?.workflowId ?? '');
      return named ? [named.scheduleId] : [];
    });
    const next = page.nextPageToken;
    return { ids, next: next && next.length > 0 ? next : undefined };
  }

  /** The schedules of `ids`, read from their workflows; one deleted since it was listed is left out. */
  private async readAll(ids: string[]): Promise<Schedule[]> {
    const items = await Promise.all(
      ids.map((id) =>
        this.get(id).catch((err) => {
          if (err instanceof SchedulerError && err.code === 'NOT_FOUND') return null;
          throw err;
        }),
      ),
    );
    return items.filter((item): item is Schedule => item !== null);
  }

  async update(scheduleId: string, request: EditRequestInput): Promise<EditResult> {
    const parsed = parseOrThrow(EditRequest, request);
    this.checkTarget(parsed.spec);
    const current = await this.get(scheduleId);
    // A schedule stored before a quota existed keeps working: only what the edit changes is judged.
    if (stable(current.target.payload ?? null) !== stable(parsed.spec.target.payload ?? null))
      checkPayloadSize(parsed.spec.target);
    const now = await this.now();
    const newTiming = stable(current.timing) !== stable(parsed.spec.timing);
    const runs = await this.validated(scheduleId, parsed.spec, current.created_at, now, newTiming);
    const calendarOf = (spec: SlotSpec) => stable({ timing: spec.timing, ...calendarOptionsOf(spec) });
    if (calendarOf(specOf(current)) !== calendarOf(parsed.spec))
      checkMinInterval(parsed.spec.timing, runs, this.quotas());
    // The editor becomes the owner: a departing owner cannot leave a rewritten schedule under a colleague's name.
    return await this.runUpdate(scheduleId, editUpdate, {
      ...parsed,
      owner_ref: this.options.principal.owner_ref,
    });
  }

  /**
   * Changes the definition fields given, each replacing the current one whole (`null` clears an optional
   * one), on the schedule as it is at `expected_version`; a stale version is a VersionConflictError naming
   * the current one. Answers the schedule as this change left it, even when another edit landed since.
   */
  async patch(scheduleId: string, changes: PatchScheduleInput): Promise<Schedule> {
    const { expected_version, contract, ...fields } = parseOrThrow(PatchScheduleRequest, changes);
    const current = await this.get(scheduleId);
    checkContract(contract);
    if (expected_version !== current.version)
      throw new VersionConflictError(expected_version, current.version);
    const spec = mergedSpec(current, withoutStaleWords(current, fields));
    const edited = await this.update(scheduleId, { expected_version, spec }).catch(async (err) => {
      if (!(err instanceof SchedulerError && err.code === 'VERSION_CONFLICT')) throw err;
      throw new VersionConflictError(expected_version, (await this.get(scheduleId)).version);
    });
    const after = await this.get(scheduleId);
    return after.version === edited.version ? after : withExplanation(asEdited(current, spec, edited, after));
  }

  /** Pauses the schedule; with `{ wait: true }`, answers it once the pause shows (see SettleOptions). */
  pause(scheduleId: string, note?: string): Promise<undefined>;
  pause(scheduleId: string, note: string | undefined, options: SettleOptions): Promise<Schedule>;
  async pause(scheduleId: string, note?: string, options?: SettleOptions): Promise<Schedule | undefined> {
    await this.callLive(scheduleId, async () => {
      await this.handle(scheduleId).signal(pauseSignal, note ? { note } : {});
      await this.wakeIfAsleep(scheduleId);
    });
    return options?.wait ? await this.settled(scheduleId, (s) => s.status !== 'ACTIVE') : undefined;
  }

  /**
   * Resumes a paused schedule. On a schedule whose owner was revoked, it also takes the schedule over
   * (an update, which no other schedule's signal can imitate): the caller becomes its owner and slots are
   * handed off again. With `{ wait: true }`, answers the schedule once the resume shows.
   */
  resume(scheduleId: string): Promise<undefined>;
  resume(scheduleId: string, options: SettleOptions): Promise<Schedule>;
  async resume(scheduleId: string, options?: SettleOptions): Promise<Schedule | undefined> {
    const { owner_ref } = this.options.principal;
    await this.runUpdate(scheduleId, takeOverUpdate, { owner_ref });
    await this.callLive(scheduleId, () => this.handle(scheduleId).signal(resumeSignal, { owner_ref }));
    return options?.wait
      ? await this.settled(scheduleId, (s) => s.status !== 'PAUSED' && s.owner_revoked_at === null)
      : undefined;
  }

  /** The schedule once `shows` holds for it, or as it is when the settle polls ran out. */
  private async settled(scheduleId: string, shows: (schedule: Schedule) => boolean): Promise<Schedule> {
    return await poll(() => this.get(scheduleId), shows, SETTLE_POLL);
  }

  async triggerNow(scheduleId: string, request: TriggerRequest = {}): Promise<Occurrence> {
    const parsed = parseOrThrow(TriggerRequest, request);
    return await this.runUpdate(scheduleId, triggerNowUpdate, parsed);
  }

  async backfill(scheduleId: string, request: BackfillRequest): Promise<BackfillResult> {
    const parsed = parseOrThrow(BackfillRequest, request);
    const slots = await this.backfillSlotCount(scheduleId, parsed);
    const release =
      slots === null
        ? () => {}
        : (this.options.backfillLedger ?? PROCESS_BACKFILL_LEDGER).reserve(
            this.tenant,
            slots,
            this.quotas().max_backfill_slots_per_hour,
          );
    try {
      return await this.runUpdate(scheduleId, backfillUpdate, parsed);
    } catch (err) {
      release(); // refused or failed: nothing was backfilled
      throw err;
    }
  }

  /**
   * The slots a backfill covers, counted as the workflow's slot activity will (same function, same
   * definition and creation instant), refusing more than quotas.max_backfill_slots. Null when no quota
   * applies, or when the range passes the workflow's own limit (it answers that one itself, 422). A range
   * that cannot be counted is refused (VALIDATION naming `to`), never sent on unchecked.
   */
  private async backfillSlotCount(scheduleId: string, request: BackfillRequest): Promise<number | null> {
    const quotas = this.quotas();
    if (!Number.isFinite(quotas.max_backfill_slots) && !Number.isFinite(quotas.max_backfill_slots_per_hour))
      return null;
    const current = await this.get(scheduleId);
    const cap = Math.min(quotas.max_backfill_slots, WORKFLOW_BACKFILL_LIMIT);
    let count: number;
    try {
      const [batch] = await (this.options.calendar ?? IN_PROCESS_SLOTS).slots(this.tenant, [
        {
          scheduleId,
          spec: specOf(current),
          createdAt: current.created_at,
          after: new Date(Date.parse(request.from) - 1).toISOString(),
          until: request.to,
          count: cap + 1,
        },
      ]);
      count = batch!.slots.length;
    } catch (err) {
      // A range the calendar cannot count (not within the API's budget, or past its candidate limit) is
      // refused here: sent on uncounted, it would pass both quotas (security review N4). A busy calendar
      // pool's refusal is the answer.
      if (err instanceof CalendarError && err.code === 'SEARCH_LIMIT')
        throw new SchedulerError(
          'VALIDATION',
          `the slots from ${request.from} to this instant could not be counted, so this tenant's backfill quotas cannot be checked (${err.reason}): backfill a shorter range`,
          'to',
        );
      if (err instanceof CalendarError) throw validationError(err)!;
      throw err;
    }
    if (count <= cap) return count;
    if (quotas.max_backfill_slots >= WORKFLOW_BACKFILL_LIMIT) return null;
    throw new QuotaExceededError(
      `the range covers more than ${quotas.max_backfill_slots} slots, this tenant's quota for one backfill (quotas.max_backfill_slots): split it`,
      'to',
      quotas.max_backfill_slots,
      count,
    );
  }

  /**
   * Drops a schedule's buffered future slots and computes them again with the rules of the worker that
   * runs its slot activity (after a tz database upgrade); answered without a change when the schedule does
   * not depend on `zone`, or when `if_older_than` is given and no buffered slot is older. Idempotent.
   */
  async recomputeSchedule(scheduleId: string, request: RecomputeRequestInput = {}): Promise<RecomputeResult> {
    return await this.runUpdate(scheduleId, recomputeUpdate, parseRecompute(request));
  }

  /**
   * `recomputeSchedule` on every running schedule of the tenant (those whose instants depend on `zone`,
   * when given), a few at a time. A schedule that could not be asked is listed in `failed`: recompute it
   * alone (the HTTP API runs a tenant-wide recompute once per tenant every 10 minutes).
   * `onAsk` is called once per schedule asked (each an update: the HTTP API charges by them).
   */
  async recompute(
    request: RecomputeRequestInput = {},
    options: { onAsk?: () => void } = {},
  ): Promise<RecomputeSummary> {
    const parsed = parseRecompute(request);
    const clauses = [this.listQuery({}), `ExecutionStatus = 'Running'`];
    if (parsed.zone) clauses.push(`${ZonesKey.name} = ${quoteQueryValue(parsed.zone)}`);
    const summary: RecomputeSummary = { matched: 0, recomputed: 0, moved_slots: 0, moved: [], failed: [] };
    let token: Uint8Array | undefined;
    do {
      const listed = await this.visibleIds(clauses.join(' AND '), RECOMPUTE_PAGE, token);
      summary.matched += listed.ids.length;
      for (let i = 0; i < listed.ids.length; i += RECOMPUTE_CONCURRENCY) {
        await Promise.all(
          listed.ids.slice(i, i + RECOMPUTE_CONCURRENCY).map(async (id) => {
            try {
              options.onAsk?.();
              const result = await this.runUpdate(id, recomputeUpdate, parsed);
              if (!result.recomputed) return;
              summary.recomputed += 1;
              const moved = result.record?.moved ?? 0;
              summary.moved_slots += moved;
              if (moved > 0)
                summary.moved.push({ schedule_id: id, moved, tz_version: result.record?.tz_version ?? null });
            } catch (err) {
              // Ended or deleted since it was listed: nothing to recompute.
              if (err instanceof SchedulerError && (err.code === 'NOT_FOUND' || err.code === 'INVALID_STATE'))
                return;
              summary.failed.push({ schedule_id: id, error: (err as Error).message });
            }
          }),
        );
      }
      token = listed.next;
    } while (token);
    return summary;
  }

  /** No future runs; emitted occurrences stay (or, with running: 'CANCEL', running targets are cancelled). */
  async cancel(scheduleId: string, request: Partial<CancelRequest> = {}): Promise<ScheduleDescription> {
    const parsed = parseOrThrow(CancelRequest, request);
    const description = await this.runUpdate(scheduleId, cancelUpdate, parsed);
    if (parsed.running === 'CANCEL') await this.cancelRunningJobs(scheduleId, description.recent_occurrences);
    return { ...description, schedule: withExplanation(description.schedule) };
  }

  /**
   * The schedule's JOB workflows still running, cancelled from here (issue 40). The workflow asks for the
   * jobs it awaits as it ends, in the task that closes it, and the server drops a cancel requested by a
   * workflow that closed; the jobs it started without awaiting them (a recurring ALLOW JOB) it never
   * followed. The awaited ones come from its answer, the others from visibility (which may not list a job
   * started within the last second). Best effort: the schedule is cancelled whatever happens here.
   */
  private async cancelRunningJobs(scheduleId: string, occurrences: readonly Occurrence[]): Promise<void> {
    const prefix = occurrenceIdPrefix(this.tenant, scheduleId);
    const jobs = new Set(
      occurrences
        .filter((o) => o.status === 'RUNNING' && o.target_ref.startsWith(prefix))
        .map((o) => o.target_ref),
    );
    const query = [
      `${TenantIdKey.name} = ${quoteQueryValue(this.tenant)}`,
      `${ScheduleIdKey.name} = ${quoteQueryValue(scheduleId)}`,
      `ExecutionStatus = 'Running'`,
    ].join(' AND ');
    try {
      for await (const execution of this.options.client.workflow.list({ query }))
        if (execution.workflowId.startsWith(prefix)) jobs.add(execution.workflowId);
    } catch {
      // Visibility unavailable: the awaited jobs are still cancelled.
    }
    await Promise.allSettled([...jobs].map((id) => this.options.client.workflow.getHandle(id).cancel()));
  }

  /**
   * Cancels the schedule and hides it from listings (`deleted_at` is set; it stays readable by ID, with its
   * occurrences, for audit). A schedule that had already ended is removed from Temporal instead (the
   * server purges it asynchronously). Started target workflows are never touched.
   */
  async delete(scheduleId: string, request: Partial<CancelRequest> = {}): Promise<void> {
    const parsed = parseOrThrow(CancelRequest, request);
    try {
      await this.runUpdate(scheduleId, cancelUpdate, { ...parsed, delete: true });
    } catch (err) {
      if (!(err instanceof SchedulerError && err.code === 'INVALID_STATE')) throw err;
      await this.call(scheduleId, async () => {
        await this.options.client.workflowService.deleteWorkflowExecution({
          namespace: this.options.client.options.namespace,
          workflowExecution: { workflowId: scheduleWorkflowId(this.tenant, scheduleId) },
        });
      });
    }
  }

  async listOccurrences(scheduleId: string): Promise<Occurrence[]> {
    return (await this.describe(scheduleId)).recent_occurrences;
  }

  /** A page of the schedule's recent occurrences, newest first; `cursor` is the previous page's `next_cursor`. */
  async listOccurrencesPage(
    scheduleId: string,
    page: { limit?: number; cursor?: string } = {},
  ): Promise<OccurrencePage> {
    const { limit, cursor } = parseOrThrow(ListOccurrencesQuery, page);
    // Slots carry their zone's offset (manual ones UTC): compare instants, not strings.
    const newestFirst = [...(await this.listOccurrences(scheduleId))].sort(
      (a, b) => Date.parse(b.scheduled_for) - Date.parse(a.scheduled_for),
    );
    const offset = Number(cursor ?? 0);
    const end = offset + limit;
    return {
      items: newestFirst.slice(offset, end),
      next_cursor: end < newestFirst.length ? String(end) : null,
    };
  }

  /**
   * The next runs of a definition, computed locally (no server). With `{ explain: true }` the answer is
   * POST /v1/preview's: `{ runs, explanation }`, the explanation being the definition in words (left out
   * when the words cannot say it).
   */
  preview(spec: ScheduleSpecInput, options?: PreviewOptions & { explain?: false }): NextRun[];
  preview(spec: ScheduleSpecInput, options: PreviewOptions & { explain: true }): PreviewResult;
  preview(
    spec: ScheduleSpecInput,
    options: PreviewOptions & { explain?: boolean } = {},
  ): NextRun[] | PreviewResult {
    const parsed = parseOrThrow(ScheduleSpec, spec);
    const from = options.from ?? new Date().toISOString();
    const runs = previewRuns(options.scheduleId ?? 'preview', parsed, from, from, options.count ?? 10);
    if (!options.explain) return runs;
    const explanation = explanationOf(parsed);
    return { runs, ...(explanation !== undefined ? { explanation } : {}) };
  }

  /**
   * Reads a schedule said in words (English or Russian, docs/words.md) into the structured timing and the
   * calendar options the sentence sets, with its explanation, notes and next runs; locally, no server (on
   * the configured `calendar` runner when it reads, else in this thread). `now` defaults to the client's
   * clock. The same text, `timezone` and `now` give what POST /v1/interpret and `scheduler interpret`
   * answer. Throws {@link InterpretProblemError}: AMBIGUOUS (`readings`), UNREADABLE (`unread`),
   * ZONE_REQUIRED (field `timezone`); VALIDATION for a request or a reading the calendar refuses.
   */
  async interpret(request: InterpretRequestInput): Promise<InterpretResult> {
    const parsed = parseOrThrow(InterpretRequest, request);
    const task = { request: parsed, wallNow: await this.now() };
    const runner = this.options.calendar ?? IN_PROCESS_SLOTS;
    const outcome = runner.interpret ? await runner.interpret(this.tenant, task) : runInterpretTask(task);
    return interpretResultOf(outcome);
  }
}

export interface PreviewOptions {
  /** Runs strictly after this instant, for a definition created then; default now. */
  from?: string;
  count?: number;
  /** Seeds deterministic jitter; default `preview`. */
  scheduleId?: string;
}

/** What `SchedulerClient.interpret` takes: POST /v1/interpret's body (`count` defaults to 5). */
export type InterpretRequestInput = InterpretRequest;
