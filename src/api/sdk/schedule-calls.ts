// The calls every SchedulerClient operation is made of: one tenant's schedule workflows reached through
// Temporal, each failure translated (./temporal-errors.ts), reads under a deadline, updates retried under
// one update ID; and the tenant's policy, quotas and calendar as this client is configured.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { ServiceError, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition, UpdateDefinition } from '@temporalio/common';
import type { ScheduleAuditRecord } from '../../model/audit.js';
import {
  asNoticeTarget,
  type EditRequestInput,
  type EditResult,
  type NextRun,
  noticeField,
  type Schedule,
  type ScheduleDescription,
  type ScheduleSpec,
  type Target,
  toNextRun,
} from '../../model/contracts.js';
import { DEFAULT_TEMPORAL_TIMEOUT_MS } from '../../model/defaults.js';
import { withExplanation } from '../../model/explanation.js';
import { scheduleIdOf, scheduleWorkflowId } from '../../model/ids.js';
import {
  LabelSelectorError,
  parseLabelSelector,
  type Requirement,
  requiredTokens,
} from '../../model/labels.js';
import type { SlotBatchRequest } from '../../model/slots.js';
import { TenantPolicy, type TenantQuotas } from '../../model/tenant-policy.js';
import { DELETED_VISIBLE_STATUS, describedAsOf, lastOccurrenceOf } from '../../model/views.js';
import {
  auditQuery,
  describeQuery,
  SCHEDULE_WORKFLOWS,
  STALE_CLOCK_REFUSAL,
  wakeUpdate,
} from '../../workflows/definitions.js';
import {
  LabelsKey,
  quoteQueryValue,
  ScheduleStatusKey,
  TenantIdKey,
  TimingKindKey,
} from '../../workflows/search-attributes.js';
import { SchedulerError, UnavailableError } from '../errors.js';
import { backoff, type RetryPolicy, retry } from '../retry.js';
import { IN_PROCESS_SLOTS } from '../slot-runner.js';
import type { ListFilter, SchedulerClientOptions } from './options.js';
import { batchesOn, expectRuns, VALIDATION_RUNS } from './previews.js';
import { grpcCode, isAsleep, noAnswer, translate } from './temporal-errors.js';

/** FAILED_PRECONDITION: the update's workflow task failed (see runUpdate). */
const UPDATE_RETRY: RetryPolicy = {
  attempts: 6,
  delay: backoff({ firstMs: 250, maxMs: 4000 }),
  transient: (err) => (err as { cause?: { code?: number } }).cause?.code === status.FAILED_PRECONDITION,
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
/** Without a policy: only what every deployment refuses (scheduler workflows, the scheduler's own queue). */
const ALWAYS_CHECKED = TenantPolicy.openToAll();

/**
 * The client's public operations that other operations go through: a subclass that overrides one (a test
 * placing another editor's change before a read) sees every use an operation makes of it.
 */
export interface SdkOperations {
  get(scheduleId: string): Promise<Schedule>;
  update(scheduleId: string, request: EditRequestInput): Promise<EditResult>;
}

export class ScheduleCalls {
  constructor(
    readonly options: SchedulerClientOptions,
    readonly sdk: SdkOperations,
  ) {}

  get tenant(): string {
    return this.options.principal.tenant_id;
  }

  /** The calendar's batches of `requests`, on the configured runner; calendar errors become VALIDATION. */
  async batches(requests: SlotBatchRequest[]) {
    return await batchesOn(this.options.calendar ?? IN_PROCESS_SLOTS, this.tenant, requests);
  }

  /**
   * validateSpec on the configured runner; `refuseRepeats` for a timing that enters with this request (an
   * edit that leaves a stored timing alone is not refused for what that timing always said).
   */
  async validated(
    scheduleId: string,
    spec: ScheduleSpec,
    createdAt: string,
    now: string,
    refuseRepeats: boolean,
  ): Promise<NextRun[]> {
    const [batch] = await this.batches([
      { scheduleId, spec, createdAt, after: now, count: VALIDATION_RUNS, refuseRepeats },
    ]);
    return expectRuns(spec, now, batch!.slots.map(toNextRun));
  }

  /** The next run of a definition after now, or null. */
  async nextRun(scheduleId: string, spec: ScheduleSpec, createdAt: string): Promise<string | null> {
    const [batch] = await this.batches([{ scheduleId, spec, createdAt, after: await this.now(), count: 1 }]);
    const [slot] = batch!.slots;
    return slot ? toNextRun(slot).fire_at : null;
  }

  async now(): Promise<string> {
    return new Date(this.options.clock ? await this.options.clock() : Date.now()).toISOString();
  }

  handle(scheduleId: string): WorkflowHandle {
    return this.options.client.workflow.getHandle(scheduleWorkflowId(this.tenant, scheduleId));
  }

  /** Where this tenant's JOBs without a task_queue start: the policy's first exact queue, else the deployment's. */
  defaultJobTaskQueue(): string {
    return (
      this.options.tenantPolicy?.().defaultJobTaskQueue(this.tenant, this.options.jobTaskQueue) ??
      this.options.jobTaskQueue
    );
  }

  /**
   * The target against the tenant policy in force, beyond its shape: EVENT sinks within the operator's
   * allowlist; never another tenant's scheduler workflows; never a start on the scheduler's own task queue
   * (that would run a forged schedule). The hand-off activity checks the first two again when it runs.
   */
  checkTarget(spec: ScheduleSpec): void {
    const policy = this.options.tenantPolicy?.() ?? ALWAYS_CHECKED;
    const check = (target: Target, fieldOf: (field: string) => string = (field) => field) => {
      const verdict = policy.check(this.tenant, target, {
        schedulerTaskQueue: this.options.taskQueue,
        defaultJobTaskQueue: this.defaultJobTaskQueue(),
      });
      if (!verdict.allowed)
        throw new SchedulerError('FORBIDDEN_TARGET', verdict.reason, fieldOf(verdict.field));
    };
    check(spec.target);
    // A failure hook's notice reaches what a target could: the same policy, its own field named.
    for (const hook of ['on_failure', 'on_recovery'] as const) {
      const target = spec[hook]?.notify;
      if (target) check(asNoticeTarget(target), (field) => noticeField(field, hook));
    }
  }

  /** The tenant's quotas in the policy in force (none without a policy: an SDK embedded with namespace credentials). */
  quotas(): TenantQuotas {
    return (this.options.tenantPolicy?.() ?? ALWAYS_CHECKED).quotas(this.tenant);
  }

  async call<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
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
  async read<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.options.readTimeoutMs ?? DEFAULT_TEMPORAL_TIMEOUT_MS);
    try {
      return await this.options.client.connection.withDeadline(deadline, body);
    } catch (err) {
      // The client reports its own deadline as DEADLINE_EXCEEDED, or as CANCELLED when it hit a retry.
      const code = grpcCode(err);
      const expired = code === status.DEADLINE_EXCEEDED || code === status.CANCELLED;
      if (err instanceof ServiceError && expired && Date.now() >= deadline) throw noAnswer();
      throw translate(err, scheduleId);
    }
  }

  /** Updates and signals reach only a running schedule; on a closed one, say so instead of "not found". */
  async callLive<T>(scheduleId: string, body: () => Promise<T>): Promise<T> {
    try {
      return await this.call(scheduleId, body);
    } catch (err) {
      if (!(err instanceof SchedulerError && err.code === 'NOT_FOUND')) throw err;
      const { status } = await this.sdk.get(scheduleId); // throws NOT_FOUND when it really is gone
      throw new SchedulerError('INVALID_STATE', `schedule is ${status}`);
    }
  }

  /**
   * Runs an update on the schedule. The server refuses an update whose workflow task failed (e.g. the
   * worker holding it died) with FAILED_PRECONDITION; that is transient, so it is retried with backoff
   * under one update ID, which the server deduplicates: a retry never applies the update twice.
   */
  async runUpdate<Ret, Arg>(
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
   * The workflow's own answer, with the schedule's `explanation` (its definition in words) and its
   * `last_occurrence`, both added here: the workflow neither stores nor computes them, so a listing shows
   * the last outcome without an event per fire. UNAVAILABLE when its worker does not answer within
   * `readTimeoutMs`.
   */
  async describe(scheduleId: string): Promise<ScheduleDescription> {
    const description = await this.read(scheduleId, () =>
      retry(() => this.queryAwake(scheduleId), STALE_CLOCK_RETRY),
    );
    const nowMs = Date.parse(await this.now());
    const asOfNow = describedAsOf(description, nowMs);
    const schedule = {
      ...asOfNow.schedule,
      last_occurrence: lastOccurrenceOf(asOfNow.recent_occurrences, nowMs),
    };
    return { ...asOfNow, schedule: withExplanation(schedule) };
  }

  /** What the schedule tells of itself for an audit (src/api/sdk/audit.ts); read as describe is. */
  async auditRecord(scheduleId: string): Promise<ScheduleAuditRecord> {
    return await this.call(scheduleId, () =>
      this.read(scheduleId, () => retry(() => this.queryAwake(scheduleId, auditQuery), STALE_CLOCK_RETRY)),
    );
  }

  /** A query of the schedule; a schedule still asleep (created with a start delay) is woken first. */
  private async queryAwake<T = ScheduleDescription>(
    scheduleId: string,
    query: QueryDefinition<T> = describeQuery as unknown as QueryDefinition<T>,
  ): Promise<T> {
    try {
      return await this.handle(scheduleId).query(query);
    } catch (err) {
      if (!isAsleep(err)) throw err;
      await this.wake(scheduleId);
      return await this.handle(scheduleId).query(query);
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
  async wakeIfAsleep(scheduleId: string): Promise<void> {
    const { executionTime } = await this.handle(scheduleId).describe();
    if (executionTime && executionTime.getTime() > Date.parse(await this.now())) await this.wake(scheduleId);
  }

  /** The visibility query for this tenant's schedules under a filter. */
  listQuery(filter: ListFilter): string {
    const clauses = [SCHEDULE_WORKFLOWS, `${TenantIdKey.name} = ${quoteQueryValue(this.tenant)}`];
    // Filter values are enum members (validated by the contracts), never free text.
    if (filter.status) clauses.push(`${ScheduleStatusKey.name} = '${filter.status}'`);
    if (filter.timing_kind) clauses.push(`${TimingKindKey.name} = '${filter.timing_kind}'`);
    if (!filter.include_deleted) clauses.push(`${ScheduleStatusKey.name} != '${DELETED_VISIBLE_STATUS}'`);
    // The requirements the server can test (membership of a label token); negations are tested on each
    // schedule read (listing.ts), as a schedule without labels has no attribute for `!=` to match.
    for (const anyOf of requiredTokens(selectorRequirements(filter.selector)))
      clauses.push(`${LabelsKey.name} IN (${anyOf.map(quoteQueryValue).join(', ')})`);
    return clauses.join(' AND ');
  }

  /** The schedule IDs of one visibility page of `query`, and the server's token for the next page. */
  async visibleIds(query: string, pageSize: number, token: Uint8Array | undefined) {
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
}

/** The requirements of a list's label selector (none without one); one that does not parse is a VALIDATION error. */
export function selectorRequirements(selector: string | undefined): Requirement[] {
  if (selector === undefined) return [];
  try {
    return parseLabelSelector(selector);
  } catch (err) {
    if (err instanceof LabelSelectorError)
      throw new SchedulerError('VALIDATION', `at character ${err.at + 1}: ${err.reason}`, 'selector');
    throw err;
  }
}
