// SchedulerClient.create: the schedule's workflow started with everything it needs from its first task,
// answered without the scheduler's worker; a create whose ID is taken is answered idempotently.
import { createHash, randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  type WorkflowExecutionDescription,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { armAtMs, armWithinMs } from '../../model/arming.js';
import {
  type NextRun,
  ScheduleIdentity,
  ScheduleSpec,
  ScheduleStatus,
  specOf,
  toNextRun,
} from '../../model/contracts.js';
import { DEFAULT_ARM_AHEAD_MS, DEFAULT_ARM_LEAD_MS } from '../../model/defaults.js';
import { withExplanation } from '../../model/explanation.js';
import { scheduleWorkflowId } from '../../model/ids.js';
import { labelTokens } from '../../model/labels.js';
import type { SlotBatch } from '../../model/slots.js';
import type { TenantQuotas } from '../../model/tenant-policy.js';
import { DELETED_VISIBLE_STATUS, isTerminal, newScheduleDocument } from '../../model/views.js';
import { zonesOf } from '../../model/zones.js';
import {
  DEFINITION_MEMO,
  type DefinitionMemo,
  FIRST_SLOT_BATCH,
  SCHEDULE_WORKFLOW_TYPE,
  VERSION_MEMO,
} from '../../workflows/definitions.js';
import {
  NextRunAtKey,
  OwnerKey,
  ownerKeyValue,
  ScheduleStatusKey,
  scheduleAttributes,
} from '../../workflows/search-attributes.js';
import { checkContract, parseOrThrow, QuotaExceededError, SchedulerError } from '../errors.js';
import { checkMinInterval, checkPayloadSize } from '../quotas.js';
import { canonicalJson } from './canonical-json.js';
import type { CreateResult, CreateScheduleInput } from './options.js';
import { expectRuns, VALIDATION_RUNS } from './previews.js';
import type { ScheduleCalls } from './schedule-calls.js';
import { translate } from './temporal-errors.js';

/**
 * The least time before its first run a schedule created asleep takes its first workflow task (room for a
 * backlog of other schedules' tasks at that instant); also the least sleep worth a delayed start.
 */
export const WAKE_MARGIN_MS = 60_000;

/**
 * The start delay of schedule `scheduleId`, created asleep at `createdAt`, whose first run is `firstRunAt`:
 * it wakes when it would arm that run's job (armAtMs: within `armWithin` — its lead, or how far ahead it
 * arms — spread per schedule), so that a
 * recurring job is armed by its first task (one task, not one to start and another to arm), and at least
 * WAKE_MARGIN_MS before the run. 0: started awake (less than a margin of sleep).
 */
export function startDelayMs(
  scheduleId: string,
  firstRunAt: string,
  createdAt: string,
  armWithin: number,
): number {
  const firstRunMs = Date.parse(firstRunAt);
  // With no lead, armAtMs is the run itself, so the margin decides.
  const wakeAt = Math.min(armAtMs(firstRunMs, armWithin, scheduleId), firstRunMs - WAKE_MARGIN_MS);
  const delay = wakeAt - Date.parse(createdAt);
  return delay >= WAKE_MARGIN_MS ? delay : 0;
}

/**
 * What idempotent create compares: sha256 (hex) of the canonical JSON of the parsed definition (defaults
 * filled in, so leaving a field out and giving its default are the same definition). Stored in the
 * schedule's memo at start. A new defaulted field in ScheduleSpec changes every hash: a retry across such
 * an upgrade is answered ALREADY_EXISTS, not silently accepted.
 */
export function definitionHash(spec: ScheduleSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
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

/**
 * Starts the schedule's workflow and answers from what the SDK knows — the validated definition and
 * the next runs counted from the creation instant it hands the workflow — without waiting for the
 * scheduler's worker, which may be busy (a creation storm) or down: the schedule exists and will run
 * once a worker picks it up. A create whose ID is taken is answered from DescribeWorkflowExecution
 * (the memo written at start), again without the worker.
 */
export async function createSchedule(
  calls: ScheduleCalls,
  input: CreateScheduleInput,
  /** An apply counted its creates and deletes against quotas.max_schedules as one plan (apply.ts). */
  scheduleCountChecked = false,
): Promise<CreateResult> {
  const { schedule_id, contract, ...specInput } = input;
  checkContract(contract);
  const scheduleId = schedule_id ?? randomUUID();
  const identity = parseOrThrow(ScheduleIdentity, {
    schedule_id: scheduleId,
    tenant_id: calls.tenant,
    owner_ref: calls.options.principal.owner_ref,
  });
  const spec = parseOrThrow(ScheduleSpec, specInput);
  calls.checkTarget(spec);
  checkPayloadSize(spec.target);
  // One instant for both sides: the workflow counts its slots from the createdAt it is given, so the
  // next runs computed here are the ones it will fire.
  const createdAt = await calls.now();
  // Validation and the workflow's first batch in one trip to the calendar (one task of the API's pool,
  // under one budget); each is what it was computed alone, the first batch what the slot activity computes.
  const [validation, firstBatch] = await calls.batches([
    { scheduleId, spec, createdAt, after: createdAt, count: VALIDATION_RUNS, refuseRepeats: true },
    { scheduleId, spec, createdAt, after: createdAt, count: FIRST_SLOT_BATCH },
  ]);
  const runs = expectRuns(spec, createdAt, validation!.slots.map(toNextRun));
  checkReminders(spec, runs);
  const quotas = calls.quotas();
  checkMinInterval(spec.timing, runs, quotas);
  const sha256 = definitionHash(spec);
  const alreadyThere = scheduleCountChecked
    ? null
    : await checkScheduleCount(calls, scheduleId, spec, sha256);
  if (alreadyThere) return alreadyThere;
  const start = { identity, spec, createdAt, firstRunAt: runs[0]!.fire_at, firstBatch, quotas, sha256 };
  try {
    await calls.options.client.workflow.start(SCHEDULE_WORKFLOW_TYPE, startOptions(calls, start));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw translate(err, scheduleId);
    return await existing(calls, scheduleId, spec, sha256);
  }
  return {
    schedule: withExplanation(newScheduleDocument(identity, spec, createdAt, 'ACTIVE', runs[0]!.fire_at)),
    created: true,
  };
}

/** What a new schedule's workflow is started from. */
interface ScheduleStart {
  identity: ScheduleIdentity;
  spec: ScheduleSpec;
  createdAt: string;
  firstRunAt: string;
  firstBatch: SlotBatch | undefined;
  quotas: TenantQuotas;
  sha256: string;
}

/** The workflow start of a new schedule: its input, its sleep, its memo and its search attributes. */
function startOptions(calls: ScheduleCalls, start: ScheduleStart): WorkflowStartOptions {
  const { identity, spec, createdAt, firstRunAt, firstBatch, quotas, sha256 } = start;
  const scheduleId = identity.schedule_id;
  const zones = zonesOf(spec);
  const armLeadMs = calls.options.armLeadMs ?? DEFAULT_ARM_LEAD_MS;
  const armAheadMs = calls.options.armAheadMs ?? DEFAULT_ARM_AHEAD_MS;
  const sleepMs =
    calls.options.startAsleep === false
      ? 0
      : startDelayMs(scheduleId, firstRunAt, createdAt, armWithinMs(armLeadMs, armAheadMs));
  const definition: DefinitionMemo = { sha256, created_at: createdAt, owner_ref: identity.owner_ref };
  return {
    taskQueue: calls.options.taskQueue,
    workflowId: scheduleWorkflowId(calls.tenant, scheduleId),
    args: [
      {
        identity,
        spec,
        defaultJobTaskQueue: calls.defaultJobTaskQueue(),
        createdAt,
        // The workflow's bound on hand-offs in flight until the first hand-off tells the one in force.
        ...(Number.isFinite(quotas.max_handoffs_in_flight)
          ? { maxHandoffsInFlight: quotas.max_handoffs_in_flight }
          : {}),
        // The calendar's first batch, as the slot activity would compute it: the schedule knows its
        // next runs from its first workflow task.
        firstBatch,
        armLeadMs,
        ...(armLeadMs > 0 && armAheadMs > 0 ? { armAheadMs } : {}),
      },
    ],
    ...(sleepMs > 0 ? { startDelay: sleepMs } : {}),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    memo: { [DEFINITION_MEMO]: definition, [VERSION_MEMO]: 1 },
    // What the run upserts later, set once here (a new schedule always has a next run, so no null).
    typedSearchAttributes: [
      ...scheduleAttributes({
        tenantId: calls.tenant,
        scheduleId,
        timingKind: spec.timing.kind,
        status: 'ACTIVE',
        nextRunAt: firstRunAt,
        tz: { version: zones.length > 0 ? (firstBatch?.tz ?? null) : null, zones },
        ...(spec.labels ? { labels: labelTokens(spec.labels) } : {}),
      }).filter((pair) => pair.value !== null),
      { key: OwnerKey, value: ownerKeyValue(calls.tenant, calls.options.principal.owner_ref) },
    ] as SearchAttributePair[],
    staticSummary: `Schedule ${scheduleId} (${spec.timing.kind} → ${spec.target.type})`,
  };
}

/** At creation, every reminder of a DEADLINE must still be ahead (one already past could never fire). */
function checkReminders(spec: ScheduleSpec, runs: NextRun[]): void {
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

/** The tenant's live schedules (running, not deleted), as visibility counts them (quotas.max_schedules). */
export async function liveScheduleCount(calls: ScheduleCalls): Promise<number> {
  const { count } = await calls.call('', () =>
    calls.options.client.workflowService.countWorkflowExecutions({
      namespace: calls.options.client.options.namespace,
      query: `${calls.listQuery({})} AND ExecutionStatus = 'Running'`,
    }),
  );
  return Number(count ?? 0);
}

/**
 * quotas.max_schedules: the tenant's live schedules (running, not deleted), counted by visibility, which
 * trails starts by up to a second: a burst of concurrent creates may pass the quota by a few. A create
 * of a schedule that already exists (an idempotent retry) is answered as usual, never refused.
 */
async function checkScheduleCount(
  calls: ScheduleCalls,
  scheduleId: string,
  spec: ScheduleSpec,
  sha256: string,
) {
  const limit = calls.quotas().max_schedules;
  if (!Number.isFinite(limit)) return null;
  const live = await liveScheduleCount(calls);
  if (live < limit) return null;
  try {
    return await existing(calls, scheduleId, spec, sha256);
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

/** Answers a create whose schedule ID is taken, from DescribeWorkflowExecution: no worker needed. */
async function existing(
  calls: ScheduleCalls,
  scheduleId: string,
  spec: ScheduleSpec,
  sha256: string,
): Promise<CreateResult> {
  const description = await calls.read(scheduleId, () => calls.handle(scheduleId).describe());
  const definition = description.memo?.[DEFINITION_MEMO] as DefinitionMemo | undefined;
  if (!definition?.sha256) return await existingByQuery(calls, scheduleId, spec);
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
      (await calls.nextRun(scheduleId, spec, definition.created_at));
  }
  const identity = { schedule_id: scheduleId, tenant_id: calls.tenant, owner_ref: definition.owner_ref };
  return {
    schedule: withExplanation(newScheduleDocument(identity, spec, definition.created_at, status, nextRunAt)),
    created: false,
  };
}

/** A schedule started before the definition memo: compared through the workflow's own answer. */
async function existingByQuery(
  calls: ScheduleCalls,
  scheduleId: string,
  spec: ScheduleSpec,
): Promise<CreateResult> {
  const existing = await calls.sdk.get(scheduleId);
  const sameDefinition = canonicalJson(ScheduleSpec.parse(specOf(existing))) === canonicalJson(spec);
  if (existing.version === 1 && sameDefinition) return { schedule: existing, created: false };
  throw new SchedulerError(
    'ALREADY_EXISTS',
    `schedule ${scheduleId} ${ALREADY_EXISTS_REASON} (version ${existing.version})`,
    'schedule_id',
  );
}
