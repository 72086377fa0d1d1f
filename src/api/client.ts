// The TypeScript client SDK. Every operation is scoped to one tenant (the principal the client was made
// for): schedule workflow IDs embed the tenant, so a caller cannot reach another tenant's schedules.
// This module is the SDK's public face; what each operation does lives by concern in ./sdk/.

import type { AuditRequestInput, ScheduleAudit, TenantAudit } from '../model/audit.js';
import {
  type BackfillRequest,
  type BackfillResult,
  type BulkRequestInput,
  type BulkResult,
  type CancelRequest,
  type EditRequestInput,
  type EditResult,
  type NextRun,
  type Occurrence,
  type RecomputeResult,
  type RecomputeSummary,
  type Schedule,
  type ScheduleDescription,
  ScheduleSpec,
  type ScheduleSpecInput,
  TriggerRequest,
} from '../model/contracts.js';
import { explanationOf } from '../model/explanation.js';
import type { ApplyRequestInput, ApplyResult, OccurrencePage, PreviewResult } from '../model/http.js';
import { InterpretRequest, type InterpretResult } from '../model/interpret.js';
import { pauseSignal, resumeSignal, takeOverUpdate, triggerNowUpdate } from '../workflows/definitions.js';
import { parseOrThrow } from './errors.js';
import type { PatchScheduleInput } from './patch.js';
import { backoff, poll, type RepeatPolicy } from './retry.js';
import { type ApplyHooks, applySchedules } from './sdk/apply.js';
import { type AuditHooks, auditSchedule, auditTenant } from './sdk/audit.js';
import { backfillSchedule } from './sdk/backfill.js';
import { type BulkHooks, bulkOperation } from './sdk/bulk.js';
import { cancelSchedule, deleteSchedule } from './sdk/cancel.js';
import { createSchedule } from './sdk/create.js';
import { patchSchedule, updateSchedule } from './sdk/edit.js';
import { listAll, listPage, occurrencesPage } from './sdk/listing.js';
import type {
  CreateResult,
  CreateScheduleInput,
  InterpretRequestInput,
  ListFilter,
  PreviewOptions,
  RecomputeRequestInput,
  SchedulePage,
  SchedulerClientOptions,
  SettleOptions,
} from './sdk/options.js';
import { recordedOverride } from './sdk/override.js';
import { interpretResultOf, previewRuns } from './sdk/previews.js';
import { recomputeSchedule, recomputeTenant } from './sdk/recompute.js';
import { ScheduleCalls } from './sdk/schedule-calls.js';
import { IN_PROCESS_SLOTS, runInterpretTask } from './slot-runner.js';

export { definitionHash, startDelayMs, WAKE_MARGIN_MS } from './sdk/create.js';
export type * from './sdk/options.js';
export { interpretResultOf, previewRuns, previewRunsOn, validateSpec } from './sdk/previews.js';

/** SettleOptions' watch: the first read and 20 more, 100 ms apart. */
const SETTLE_POLL: RepeatPolicy = { attempts: 21, delay: backoff({ firstMs: 100, factor: 1 }) };

export class SchedulerClient {
  private readonly calls: ScheduleCalls;

  constructor(options: SchedulerClientOptions) {
    this.calls = new ScheduleCalls(options, this);
  }

  /**
   * Starts the schedule's workflow and answers from what the SDK knows — the validated definition and
   * the next runs counted from the creation instant it hands the workflow — without waiting for the
   * scheduler's worker, which may be busy (a creation storm) or down: the schedule exists and will run
   * once a worker picks it up. A create whose ID is taken is answered from DescribeWorkflowExecution
   * (the memo written at start), again without the worker.
   */
  async create(input: CreateScheduleInput): Promise<CreateResult> {
    return await createSchedule(this.calls, input);
  }

  /**
   * The workflow's own answer, with the schedule's `explanation` (its definition in words, added here: the
   * workflow neither stores nor computes it); UNAVAILABLE when its worker does not answer within
   * `readTimeoutMs`.
   */
  async describe(scheduleId: string): Promise<ScheduleDescription> {
    return await this.calls.describe(scheduleId);
  }

  async get(scheduleId: string): Promise<Schedule> {
    return (await this.describe(scheduleId)).schedule;
  }

  /**
   * One page of this tenant's schedules, newest first, from the server's visibility store; each item is
   * read from its schedule (a query), so a page needs the scheduler worker.
   */
  async listPage(filter: ListFilter = {}): Promise<SchedulePage> {
    return await listPage(this.calls, filter);
  }

  /** Every schedule of the tenant (deleted ones included, as before 0.2), up to `limit`, page by page. */
  async list(
    filter: { status?: Schedule['status']; limit?: number; selector?: string } = {},
  ): Promise<Schedule[]> {
    return await listAll(this.calls, filter);
  }

  async update(scheduleId: string, request: EditRequestInput): Promise<EditResult> {
    return await updateSchedule(this.calls, scheduleId, request);
  }

  /**
   * Changes the definition fields given, each replacing the current one whole (`null` clears an optional
   * one), on the schedule as it is at `expected_version`; a stale version is a VersionConflictError naming
   * the current one. Answers the schedule as this change left it, even when another edit landed since.
   */
  async patch(scheduleId: string, changes: PatchScheduleInput): Promise<Schedule> {
    return await patchSchedule(this.calls, scheduleId, changes);
  }

  /** Pauses the schedule; with `{ wait: true }`, answers it once the pause shows (see SettleOptions). */
  pause(scheduleId: string, note?: string): Promise<undefined>;
  pause(scheduleId: string, note: string | undefined, options: SettleOptions): Promise<Schedule>;
  async pause(scheduleId: string, note?: string, options?: SettleOptions): Promise<Schedule | undefined> {
    await this.calls.callLive(scheduleId, async () => {
      await this.calls.handle(scheduleId).signal(pauseSignal, note ? { note } : {});
      await this.calls.wakeIfAsleep(scheduleId);
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
    const { owner_ref } = this.calls.options.principal;
    await this.calls.runUpdate(scheduleId, takeOverUpdate, { owner_ref });
    await this.calls.callLive(scheduleId, () =>
      this.calls.handle(scheduleId).signal(resumeSignal, { owner_ref }),
    );
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
    return await this.calls.runUpdate(scheduleId, triggerNowUpdate, recordedOverride(parsed));
  }

  async backfill(scheduleId: string, request: BackfillRequest): Promise<BackfillResult> {
    return await backfillSchedule(this.calls, scheduleId, request);
  }

  /**
   * Every slot the schedule's definitions called for from `from` to `to` (each definition for the time it was
   * in force), with what became of it: ON_TIME, LATE, FAILED, MISSED, SKIPPED, REFUSED, CANCELLED, REMOVED,
   * RUNNING, PENDING, BEYOND_LEDGER, or UNEXPLAINED (decided with no record: a bug).
   */
  async audit(scheduleId: string, request: AuditRequestInput): Promise<ScheduleAudit> {
    return await auditSchedule(this.calls, scheduleId, request);
  }

  /** The audit of every schedule of the tenant for a range: counts by outcome, and what was not on time. */
  async auditTenant(request: AuditRequestInput, hooks: AuditHooks = {}): Promise<TenantAudit> {
    return await auditTenant(this.calls, request, hooks);
  }

  /**
   * Drops a schedule's buffered future slots and computes them again with the rules of the worker that
   * runs its slot activity (after a tz database upgrade); answered without a change when the schedule does
   * not depend on `zone`, or when `if_older_than` is given and no buffered slot is older. Idempotent.
   */
  async recomputeSchedule(scheduleId: string, request: RecomputeRequestInput = {}): Promise<RecomputeResult> {
    return await recomputeSchedule(this.calls, scheduleId, request);
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
    return await recomputeTenant(this.calls, request, options.onAsk);
  }

  /**
   * The schedules a file declares, applied as one plan: each created, updated or left alone, and with
   * `prune` the schedules its selector picks that the file does not have deleted; `dry_run` answers the
   * plan with the next runs before and after each change. A schedule edited by other means since the last
   * apply is a conflict: nothing is applied (VERSION_CONFLICT naming it) unless `force`.
   */
  async apply(request: ApplyRequestInput, hooks: ApplyHooks = {}): Promise<ApplyResult> {
    return await applySchedules(this.calls, request, hooks);
  }

  /**
   * One action (pause, resume, cancel, delete) on every schedule of the tenant that the label selector
   * picks, each answered with what happened to it (`dry_run`: what would). A selector picking more than
   * BULK_MAX_SCHEDULES is refused before anything changes. `hooks` count the reads and the actions (the
   * HTTP API charges the tenant's rate limit by them).
   */
  async bulk(request: BulkRequestInput, hooks: BulkHooks = {}): Promise<BulkResult> {
    return await bulkOperation(
      this.calls,
      request,
      {
        pause: (id, r) => this.pause(id, r.note),
        resume: (id) => this.resume(id),
        cancel: (id, r) => this.cancel(id, { running: r.running, ...(r.note ? { note: r.note } : {}) }),
        delete: (id, r) => this.delete(id, { running: r.running, ...(r.note ? { note: r.note } : {}) }),
      },
      hooks,
    );
  }

  /** No future runs; emitted occurrences stay (or, with running: 'CANCEL', running targets are cancelled). */
  async cancel(scheduleId: string, request: Partial<CancelRequest> = {}): Promise<ScheduleDescription> {
    return await cancelSchedule(this.calls, scheduleId, request);
  }

  /**
   * Cancels the schedule and hides it from listings (`deleted_at` is set; it stays readable by ID, with its
   * occurrences, for audit). A schedule that had already ended is removed from Temporal instead (the
   * server purges it asynchronously). Started target workflows are never touched.
   */
  async delete(scheduleId: string, request: Partial<CancelRequest> = {}): Promise<void> {
    await deleteSchedule(this.calls, scheduleId, request);
  }

  async listOccurrences(scheduleId: string): Promise<Occurrence[]> {
    return (await this.describe(scheduleId)).recent_occurrences;
  }

  /** A page of the schedule's recent occurrences, newest first; `cursor` is the previous page's `next_cursor`. */
  async listOccurrencesPage(
    scheduleId: string,
    page: { limit?: number; cursor?: string } = {},
  ): Promise<OccurrencePage> {
    return await occurrencesPage(page, () => this.listOccurrences(scheduleId));
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
   * ZONE_REQUIRED (field `timezone`), REGION_REQUIRED (field `region`); VALIDATION for a request or a reading the calendar refuses.
   */
  async interpret(request: InterpretRequestInput): Promise<InterpretResult> {
    const parsed = parseOrThrow(InterpretRequest, request);
    const task = { request: parsed, wallNow: await this.calls.now() };
    const runner = this.calls.options.calendar ?? IN_PROCESS_SLOTS;
    const outcome = runner.interpret
      ? await runner.interpret(this.calls.tenant, task)
      : runInterpretTask(task);
    return interpretResultOf(outcome);
  }
}
