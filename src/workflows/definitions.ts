// The schedule workflow's public surface: its type name, handler names and argument/result types, and the
// failure types its handlers reject with. The SDK and the HTTP API import this module, never the workflow
// implementation, so a caller does not load workflow code to talk to a schedule. Names are part of the
// public contract: users' own tools (tctl, the Web UI, other SDKs) call them too.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ScheduleAuditRecord } from '../model/audit.js';
import type {
  BackfillRequest,
  BackfillResult,
  CancelRequest,
  EditRequest,
  EditResult,
  Occurrence,
  PayloadOverride,
  RecomputeRequest,
  RecomputeResult,
  ResumeRequest,
  ScheduleDescription,
  TriggerRequest,
} from '../model/contracts.js';

/**
 * The type a new schedule's workflow starts as (since 0.10): born knowing every patch of 0.9 and before
 * (src/workflows/patches.ts, KNOWN_AT_BIRTH_V2), its runs ask none of them. A worker before 0.10 does not
 * register it: the task fails and waits for a worker that does, instead of being run by code that would
 * record the patch markers newer code does not ask for (which no worker could replay).
 */
export const SCHEDULE_WORKFLOW_TYPE = 'scheduleWorkflowV2';
/** The type of schedules created before 0.10 (and of their continued runs): every patch is asked. */
export const SCHEDULE_WORKFLOW_TYPE_V1 = 'scheduleWorkflow';
/** Every type a schedule's workflow runs as, whichever release created it. */
export const SCHEDULE_WORKFLOW_TYPES: readonly string[] = [SCHEDULE_WORKFLOW_TYPE_V1, SCHEDULE_WORKFLOW_TYPE];
/** A visibility filter for every schedule's workflow. */
export const SCHEDULE_WORKFLOWS = `WorkflowType IN (${SCHEDULE_WORKFLOW_TYPES.map((t) => `'${t}'`).join(', ')})`;

/**
 * Slots in the first batch of a calendar (a new schedule, or just edited): few, so the first workflow task
 * of a new schedule is cheap under a creation storm. The SDK computes a new schedule's first batch with it
 * and hands it to the workflow (ScheduleWorkflowInput.firstBatch).
 */
export const FIRST_SLOT_BATCH = 5;

/** Slots one backfill may cover; past it the workflow refuses the backfill (INVALID_REQUEST: split it). */
export const BACKFILL_LIMIT = 1000;

export const pauseSignal = defineSignal<[{ note?: string }?]>('pause');
/**
 * Resume a paused schedule. Before v0.5 (runs without PATCHES.TARGETS_BOUND) it also took a revoked
 * schedule over; since, only `takeOverUpdate` does: a signal is what another schedule's WORKFLOW_SIGNAL
 * target sends, an API takeover is not.
 */
export const resumeSignal = defineSignal<[ResumeRequest?]>('resume');
/** The owner's API key was removed from the configuration: refuse (and record) every slot until taken over. */
export const ownerRevokedSignal = defineSignal<[{ reason: string }]>('ownerRevoked');
/**
 * An edit; `owner_ref` (set by the SDK to the caller, never by a request body) makes the editor the
 * schedule's owner: whoever last defined what it does answers for it.
 */
export type EditCommand = EditRequest & { owner_ref?: string };
export const editUpdate = defineUpdate<EditResult, [EditCommand]>('edit');
/**
 * The API's takeover of a schedule whose owner was revoked (POST …/resume by another owner of the tenant):
 * the caller becomes the owner and slots are handed off again. On a schedule not revoked: nothing changes.
 */
export const takeOverUpdate = defineUpdate<
  { owner_ref: string; taken_over: boolean },
  [{ owner_ref: string }]
>('takeOver');
/** A payload override as the SDK sends it: with its digest (sha256 of its canonical JSON, 16 hex). */
export type RecordedOverride = PayloadOverride & { digest: string };
export type TriggerCommand = Omit<TriggerRequest, 'override'> & { override?: RecordedOverride };
export type BackfillCommand = Omit<BackfillRequest, 'override'> & { override?: RecordedOverride };
export const triggerNowUpdate = defineUpdate<Occurrence, [TriggerCommand]>('triggerNow');
export const backfillUpdate = defineUpdate<BackfillResult, [BackfillCommand]>('backfill');
/** `delete: true` (set by the SDK's delete, never by a caller's cancel body) also hides it from listings. */
export const cancelUpdate = defineUpdate<ScheduleDescription, [CancelRequest & { delete?: boolean }]>(
  'cancel',
);
export const describeQuery = defineQuery<ScheduleDescription>('describe');
/** What the audit joins expected slots with (src/api/sdk/audit.ts computes the rest). */
export const auditQuery = defineQuery<ScheduleAuditRecord>('audit');
/**
 * Nothing but a workflow task: a schedule created asleep (started with a delay to its first arming point,
 * so a creation costs no worker time) cannot answer a query before its first task; the API wakes it
 * with this update when a caller reads it, or after a pause signal so its listing shows the pause.
 */
export const wakeUpdate = defineUpdate<null, [Record<string, never>]>('wake');
/**
 * Drop the buffered future slots and compute them again with the rules of the worker that runs the slot
 * activity (a tz database upgrade). Answered without a change when the schedule does not depend on
 * `zone`, or when every buffered slot is already at least `if_older_than`.
 */
export const recomputeUpdate = defineUpdate<RecomputeResult, [RecomputeRequest]>('recompute');
/**
 * A worker's tenant policy changed and no longer allows the targets of these armed jobs (`reason`: the
 * policy's): take back those that have not begun (their occurrences SKIPPED, refused). Sent by every worker
 * whose policy file changed (src/runtime/armed-policy-watch.ts): repeated, it takes back nothing more.
 */
export const armedTargetsRefusedSignal =
  defineSignal<[{ occurrence_ids: string[]; reason: string }]>('armedTargetsRefused');
/** A worker whose tz database (`version`) is newer than the schedule's buffered slots' says so (describe shows it). */
export const newerTzSignal = defineSignal<[{ version: string }]>('newerTz');
/** A worker whose holiday data (`version`, e.g. date-holidays@3.38.0) is newer than the buffered slots' says so. */
export const newerHolidayDataSignal = defineSignal<[{ version: string }]>('newerHolidayData');

/** The deployment's one owner registry (workflows/owner-registry.ts); not a schedule, never a target. */
export const OWNER_REGISTRY_WORKFLOW_TYPE = 'ownerRegistryWorkflow';
export { OWNER_REGISTRY_WORKFLOW_ID } from '../model/ids.js';
export interface OwnerReconcileRequest {
  /** `tenant/owner` of every owner the reporting process's keys name. */
  present: string[];
  allowMassRevocation: boolean;
  /** Above this share of the known owners a report is refused as a likely mistake (0–1). */
  maxShare: number;
  /**
   * When the reporting process's key configuration was written (ms since the epoch: the key file's
   * modification time, or when the process loaded SCHEDULER_API_KEYS; src/api/owners.ts
   * keyConfigurationGeneration). A report older than the newest one applied revokes nothing. Absent from
   * an API before 0.11: such a report is taken whole, as before.
   */
  generation?: number;
}
export interface OwnerReconcileResult {
  /** Every owner that left and is not back: its running schedules must refuse their slots. */
  revoked: string[];
  /** Those this report revoked. */
  newlyRevoked: string[];
  /** Why the report was not applied (the brake), or null. */
  refused: string | null;
  /**
   * Why the report was recorded but revoked nothing: its configuration is older than one applied (a
   * replica the new keys have not reached yet). Null or absent otherwise (absent: a registry before 0.11).
   */
  outdated?: string | null;
}
export const reconcileOwnersUpdate = defineUpdate<OwnerReconcileResult, [OwnerReconcileRequest]>(
  'reconcileOwners',
);
export const ownerRegistryDescribeQuery = defineQuery<{
  known: string[];
  revoked: string[];
  reconciles: number;
  /** The generation of the newest report applied (OwnerReconcileRequest.generation), if any carried one. */
  generation?: number;
}>('describeOwners');

/** Error types the handlers reject with (ApplicationFailure.type), mapped to API errors by the client. */
export const VERSION_CONFLICT = 'VersionConflict';
export const INVALID_STATE = 'InvalidScheduleState';
export const INVALID_REQUEST = 'InvalidRequest';

/**
 * Carried by a query refused because sdk-core activated the workflow on a previous task's clock to
 * answer it (workflows/stale-clock-guard.ts); asking again is safe and soon answered.
 */
export const STALE_CLOCK_REFUSAL = 'STALE_WORKFLOW_CLOCK';

/**
 * Memo keys of a schedule workflow, readable with DescribeWorkflowExecution (no worker needed).
 * `SchedulerDefinition` ({@link DefinitionMemo}) is written by the SDK at start: what the schedule was
 * created with, so an idempotent create is answered without querying the workflow. `SchedulerVersion` is
 * the schedule's version: 1 at start, upserted by the workflow on every edit.
 */
export const DEFINITION_MEMO = 'SchedulerDefinition';
export const VERSION_MEMO = 'SchedulerVersion';

export interface DefinitionMemo {
  /** sha256 (hex) of the canonical JSON of the parsed definition (ScheduleSpec) the schedule started with. */
  sha256: string;
  created_at: string;
  owner_ref: string;
}
