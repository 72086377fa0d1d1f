// The TypeScript client SDK. Every operation is scoped to one tenant (the principal the client was made
// for): schedule workflow IDs embed the tenant, so a caller cannot reach another tenant's schedules.
import { createHash, randomUUID } from 'node:crypto';
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import type { TimingKind } from '../calendar/timing.js';
import {
  BackfillRequest,
  type BackfillResult,
  CancelRequest,
  EditRequest,
  type EditRequestInput,
  type EditResult,
  type NextRun,
  type Occurrence,
  type Schedule,
  type ScheduleDescription,
  ScheduleIdentity,
  ScheduleSpec,
  type ScheduleSpecInput,
  type ScheduleStatus,
  specOf,
  TriggerRequest,
  toNextRun,
} from '../model/contracts.js';
import { schedulerWorkflowTenant, scheduleWorkflowId } from '../model/ids.js';
import { computeSlots } from '../model/slots.js';
import {
  backfillUpdate,
  cancelUpdate,
  describeQuery,
  editUpdate,
  INVALID_REQUEST,
  INVALID_STATE,
  pauseSignal,
  resumeSignal,
  SCHEDULE_WORKFLOW_TYPE,
  triggerNowUpdate,
  VERSION_CONFLICT,
} from '../workflows/definitions.js';
import {
  OwnerKey,
  ownerKeyValue,
  ScheduleIdKey,
  ScheduleStatusKey,
  TenantIdKey,
  TimingKindKey,
} from '../workflows/search-attributes.js';
import type { EventSinkPolicy, Principal } from './auth.js';
import { parseOrThrow, SchedulerError, validationError } from './errors.js';

export interface SchedulerClientOptions {
  client: Client;
  /** Task queue the scheduler's worker polls. */
  taskQueue: string;
  /** Task queue for JOB targets that name none (where the deployment's job workers poll). */
  jobTaskQueue: string;
  principal: Principal;
  /** Which EVENT sinks a schedule may POST to (SCHEDULER_EVENT_SINKS); default: any http(s) URL. */
  eventSinks?: EventSinkPolicy;
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

export interface SchedulePage {
  items: Schedule[];
  next_cursor: string | null;
}

export interface CreateScheduleInput extends ScheduleSpecInput {
  /** Client-chosen ID: create is idempotent on it. Default: a new UUID. */
  schedule_id?: string;
}

export interface CreateResult {
  schedule: Schedule;
  /** False when a schedule with this ID and the same definition already existed (idempotent create). */
  created: boolean;
}

const GRPC_FAILED_PRECONDITION = 9;
const UPDATE_ATTEMPTS = 6;

const stable = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

// A list cursor is the server's page token bound to the listing it came from (tenant and filters), so a
// cursor from another listing, or one we never issued, is a clear error instead of a server failure.
const queryTag = (query: string) => createHash('sha256').update(query).digest('base64url').slice(0, 16);

function encodeCursor(token: Uint8Array, query: string): string {
  return Buffer.from(
    JSON.stringify({ q: queryTag(query), t: Buffer.from(token).toString('base64url') }),
  ).toString('base64url');
}

function decodeCursor(cursor: string, query: string): Uint8Array {
  let parsed: { q?: unknown; t?: unknown } | null = null;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {}
  if (!parsed || typeof parsed.t !== 'string' || parsed.q !== queryTag(query)) {
    throw new SchedulerError(
      'VALIDATION',
      'not a cursor of this listing: pass the next_cursor of the previous page with the same filters',
      'cursor',
    );
  }
  return Buffer.from(parsed.t, 'base64url');
}

/** The next `count` runs of a definition after `after`; invalid rules and zones become VALIDATION errors. */
export function previewRuns(
  scheduleId: string,
  spec: ScheduleSpec,
  createdAt: string,
  after: string,
  count = 10,
): NextRun[] {
  try {
    return computeSlots({ scheduleId, spec, createdAt, after, count }).slots.map(toNextRun);
  } catch (err) {
    throw validationError(err) ?? err;
  }
}

/** Checks what the zod contract cannot: the rule compiles, and it will fire at least once after `now`. */
export function validateSpec(
  scheduleId: string,
  spec: ScheduleSpec,
  createdAt: string,
  now: string,
): NextRun[] {
  const runs = previewRuns(scheduleId, spec, createdAt, now, 50);
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

function translate(err: unknown, scheduleId: string): unknown {
  if (err instanceof WorkflowNotFoundError)
    return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === VERSION_CONFLICT)
      return new SchedulerError('VERSION_CONFLICT', cause.message, 'expected_version');
    if (cause.type === INVALID_STATE) return new SchedulerError('INVALID_STATE', cause.message);
    if (cause.type === INVALID_REQUEST) return new SchedulerError('VALIDATION', cause.message);
  }
  if ((err as { code?: number })?.code === 5)
    return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  return err;
}

export class SchedulerClient {
  constructor(private readonly options: SchedulerClientOptions) {}

  private get tenant(): string {
    return this.options.principal.tenant_id;
  }

  private handle(scheduleId: string): WorkflowHandle {
    return this.options.client.workflow.getHandle(scheduleWorkflowId(this.tenant, scheduleId));
  }

  /**
   * Where a target may reach, beyond its shape: EVENT sinks within the operator's allowlist; never another
   * tenant's scheduler workflows; never a start on the scheduler's own task queue (that would run a forged
   * schedule). The hand-off activity checks the first two again when it runs.
   */
  private checkTarget(spec: ScheduleSpec): void {
    const target = spec.target;
    if (target.type === 'EVENT' && this.options.eventSinks) {
      const verdict = this.options.eventSinks.check(target.sink_url);
      if (!verdict.ok) throw new SchedulerError('VALIDATION', verdict.reason, 'target.sink_url');
    }
    const ownQueue = (queue: string | undefined, field: string) => {
      if (queue === this.options.taskQueue) {
        throw new SchedulerError(
          'VALIDATION',
          `task queue ${queue} is the scheduler's own: name the queue your workers poll`,
          field,
        );
      }
    };
    if (target.type === 'JOB') ownQueue(target.task_queue, 'target.task_queue');
    if (target.type === 'WORKFLOW_SIGNAL') {
      const owner = schedulerWorkflowTenant(target.workflow_id);
      if (owner !== null && owner !== this.tenant) {
        throw new SchedulerError(
          'VALIDATION',
          "names a scheduler workflow of another tenant: a schedule may only signal your tenant's workflows",
          'target.workflow_id',
        );
      }
      ownQueue(target.start?.task_queue, 'target.start.task_queue');
    }
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
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callLive(scheduleId, () =>
          this.handle(scheduleId).executeUpdate(update, { args: [arg], updateId }),
        );
      } catch (err) {
        const transient = (err as { cause?: { code?: number } }).cause?.code === GRPC_FAILED_PRECONDITION;
        if (!transient || attempt >= UPDATE_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** (attempt - 1), 4000)));
      }
    }
  }

  async create(input: CreateScheduleInput): Promise<CreateResult> {
    const { schedule_id, ...specInput } = input;
    const scheduleId = schedule_id ?? randomUUID();
    const identity = parseOrThrow(ScheduleIdentity, {
      schedule_id: scheduleId,
      tenant_id: this.tenant,
      owner_ref: this.options.principal.owner_ref,
    });
    const spec = parseOrThrow(ScheduleSpec, specInput);
    this.checkTarget(spec);
    const now = new Date().toISOString();
    this.checkReminders(spec, validateSpec(scheduleId, spec, now, now));
    try {
      await this.options.client.workflow.start(SCHEDULE_WORKFLOW_TYPE, {
        taskQueue: this.options.taskQueue,
        workflowId: scheduleWorkflowId(this.tenant, scheduleId),
        // The workflow counts slots from its own start (server time), not from this machine's clock.
        args: [{ identity, spec, defaultJobTaskQueue: this.options.jobTaskQueue }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: [
          { key: TenantIdKey, value: this.tenant },
          { key: ScheduleIdKey, value: scheduleId },
          { key: ScheduleStatusKey, value: 'ACTIVE' },
          { key: TimingKindKey, value: spec.timing.kind },
          { key: OwnerKey, value: ownerKeyValue(this.tenant, this.options.principal.owner_ref) },
        ],
        staticSummary: `Schedule ${scheduleId} (${spec.timing.kind} → ${spec.target.type})`,
      });
      return { schedule: await this.get(scheduleId), created: true };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const existing = await this.get(scheduleId);
      const sameDefinition = stable(ScheduleSpec.parse(specOf(existing))) === stable(spec);
      if (existing.version === 1 && sameDefinition) return { schedule: existing, created: false };
      throw new SchedulerError(
        'ALREADY_EXISTS',
        `schedule ${scheduleId} already exists with another definition (version ${existing.version})`,
        'schedule_id',
      );
    }
  }

  async describe(scheduleId: string): Promise<ScheduleDescription> {
    return await this.call(scheduleId, () => this.handle(scheduleId).query(describeQuery));
  }

  async get(scheduleId: string): Promise<Schedule> {
    return (await this.describe(scheduleId)).schedule;
  }

  /**
   * One page of this tenant's schedules, newest first, from the server's visibility store; each item is
   * read from its schedule (a query), so a page needs the scheduler worker.
   */
  async listPage(filter: ListFilter = {}): Promise<SchedulePage> {
    const clauses = [
      `WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}'`,
      `${TenantIdKey.name} = '${this.tenant.replace(/'/g, '')}'`,
    ];
    // Filter values are enum members (validated by the contracts), never free text.
    if (filter.status) clauses.push(`${ScheduleStatusKey.name} = '${filter.status}'`);
    if (filter.timing_kind) clauses.push(`${TimingKindKey.name} = '${filter.timing_kind}'`);
    if (!filter.include_deleted) clauses.push(`${ScheduleStatusKey.name} != 'DELETED'`);
    const query = clauses.join(' AND ');
    const token = filter.cursor ? decodeCursor(filter.cursor, query) : undefined;
    const page = await this.call('', () =>
      this.options.client.workflowService.listWorkflowExecutions({
        namespace: this.options.client.options.namespace,
        query,
        pageSize: Math.min(Math.max(filter.limit ?? 20, 1), 100),
        ...(token ? { nextPageToken: token } : {}),
      }),
    );
    const ids = (page.executions ?? []).flatMap((execution) => {
      const id = execution.execution?.workflowId?.split('/').slice(2).join('/');
      return id ? [id] : [];
    });
    const items = await Promise.all(
      ids.map((id) =>
        this.get(id).catch((err) => {
          // Deleted between the listing and the read: not part of the page.
          if (err instanceof SchedulerError && err.code === 'NOT_FOUND') return null;
          throw err;
        }),
      ),
    );
    const next = page.nextPageToken;
    return {
      items: items.filter((item): item is Schedule => item !== null),
      next_cursor: next && next.length > 0 ? encodeCursor(next, query) : null,
    };
  }

  async list(filter: { status?: Schedule['status']; limit?: number } = {}): Promise<Schedule[]> {
    const clauses = [
      `WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}'`,
      `${TenantIdKey.name} = '${this.tenant.replace(/'/g, '')}'`,
    ];
    if (filter.status) clauses.push(`${ScheduleStatusKey.name} = '${filter.status}'`);
    const schedules: Schedule[] = [];
    for await (const execution of this.options.client.workflow.list({ query: clauses.join(' AND ') })) {
      const id = execution.searchAttributes?.[ScheduleIdKey.name]?.[0];
      if (typeof id !== 'string') continue;
      try {
        schedules.push(await this.get(id));
      } catch (err) {
        if (!(err instanceof SchedulerError && err.code === 'NOT_FOUND')) throw err;
      }
      if (filter.limit && schedules.length >= filter.limit) break;
    }
    return schedules;
  }

  async update(scheduleId: string, request: EditRequestInput): Promise<EditResult> {
    const parsed = parseOrThrow(EditRequest, request);
    this.checkTarget(parsed.spec);
    const current = await this.get(scheduleId);
    const now = new Date().toISOString();
    validateSpec(scheduleId, parsed.spec, current.created_at, now);
    return await this.runUpdate(scheduleId, editUpdate, parsed);
  }

  async pause(scheduleId: string, note?: string): Promise<void> {
    await this.callLive(scheduleId, () => this.handle(scheduleId).signal(pauseSignal, note ? { note } : {}));
  }

  /**
   * Resumes a paused schedule. On a schedule whose owner was revoked, it also takes the schedule over:
   * the caller becomes its owner and slots are handed off again.
   */
  async resume(scheduleId: string): Promise<void> {
    await this.callLive(scheduleId, () =>
      this.handle(scheduleId).signal(resumeSignal, { owner_ref: this.options.principal.owner_ref }),
    );
  }

  async triggerNow(scheduleId: string, request: TriggerRequest = {}): Promise<Occurrence> {
    const parsed = parseOrThrow(TriggerRequest, request);
    return await this.runUpdate(scheduleId, triggerNowUpdate, parsed);
  }

  async backfill(scheduleId: string, request: BackfillRequest): Promise<BackfillResult> {
    const parsed = parseOrThrow(BackfillRequest, request);
    return await this.runUpdate(scheduleId, backfillUpdate, parsed);
  }

  /** No future runs; emitted occurrences stay (or, with running: 'CANCEL', running targets are cancelled). */
  async cancel(scheduleId: string, request: Partial<CancelRequest> = {}): Promise<ScheduleDescription> {
    const parsed = parseOrThrow(CancelRequest, request);
    return await this.runUpdate(scheduleId, cancelUpdate, parsed);
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

  /** The next runs of a definition, computed locally (no server). */
  preview(
    spec: ScheduleSpecInput,
    options: { from?: string; count?: number; scheduleId?: string } = {},
  ): NextRun[] {
    const parsed = parseOrThrow(ScheduleSpec, spec);
    const from = options.from ?? new Date().toISOString();
    return previewRuns(options.scheduleId ?? 'preview', parsed, from, from, options.count ?? 10);
  }
}
