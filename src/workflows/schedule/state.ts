// The continue-as-new payload of a schedule and the tweakables its run reads. Field names and shapes here
// are history: a run started from an older release receives its state in exactly this shape, so a field is
// only ever added (optional, absent in older states), never renamed or retyped.
import type { CalendarCursor, Slot } from '../../calendar/index.js';
import type { DefinitionInForce } from '../../model/audit.js';
import type {
  BackfillResult,
  CancelRequest,
  EditResult,
  FailureHookView,
  NoticeFailure,
  Occurrence,
  PayloadOverride,
  RecomputeRecord,
  RecomputeRequest,
  RecomputeResult,
  ScheduleCounters,
  ScheduleDescription,
  ScheduleIdentity,
  ScheduleSpec,
  ScheduleStatus,
} from '../../model/contracts.js';
import type { SlotBatch } from '../../model/slots.js';
import type { BackfillCommand, EditCommand, TriggerCommand } from '../definitions.js';

// History-visible: changing one changes the commands a running schedule emits (it needs a patch).
/** Slots per slot-batch activity. */
export const SLOT_BATCH = 100;
/** Fires handed off per pass of the loop; the rest wait in `pendingFires` (and survive continue-as-new). */
export const FIRES_PER_PASS = 50;
/** History length past which a run continues as new, unless the input names another. */
export const DEFAULT_CONTINUE_AS_NEW_AFTER = 5000;
/**
 * History size (bytes, as the server counts it) past which a run continues as new (PATCHES.BOUNDED_HANDOFFS):
 * a history past the 4 MiB gRPC message limit cannot be read back in one page, and the server's own
 * suggestion may come later, or never (the test server).
 */
export const CONTINUE_AS_NEW_AFTER_BYTES = 2 * 1024 * 1024;
/** An inert start needs the next slot this far away, so that it resolved before the next wake. */
export const INERT_START_SPACING_MS = 30_000;
/**
 * How far ahead of its computation a recorded instant may fire (PATCHES.TZ_HORIZON): a slot whose batch was
 * computed longer ago than this before it fires is computed again first, with the worker's rules of then.
 * The bound on how long a tz database upgrade takes to reach a schedule nobody asked to recompute; its cost
 * is one slot batch per schedule per horizon (BENCHMARKS.md, "The tz horizon").
 */
export const TZ_HORIZON_MS = 7 * 24 * 3_600_000;
/**
 * At most this many armed jobs per schedule (PATCHES.ARMED_HANDOFFS): a schedule every few seconds arms this
 * many ahead, not a lead's worth, so that a pause or an edit has few to take back.
 */
export const ARMED_AT_MOST = 10;
/**
 * An armed JOB whose instant is this close is left to begin (PATCHES.ARMED_HANDOFFS): a disarm could reach
 * the server after the job began. A pause, edit, cancel or revocation that lands this close to an armed slot
 * applies after it, as one that lands on a due slot does.
 */
export const DISARM_GUARD_MS = 5_000;

// State-only: changing one changes what the state keeps or a view shows, never a command.
export { RECENT_OCCURRENCES_KEPT as RECENT_LIMIT } from '../../model/views.js';
/** Next runs shown by describe and answered by an edit. */
export const NEXT_RUNS_SHOWN = 10;
/** Definitions the audit's log keeps (state.inForce): the oldest are let go, and the audit says so. */
export const IN_FORCE_KEPT = 16;

export interface PendingFire {
  slot: Slot;
  trigger: Occurrence['trigger'];
  late: boolean;
  reason: string | null;
  /** The digest of the payload override it runs with (a trigger's, a backfill's); absent: the target's. */
  override?: string;
}

/** A JOB started ahead of its slot with a start delay to its instant (PATCHES.ARMED_HANDOFFS). */
export interface ArmedSlot {
  occurrenceId: string;
  /** Kept whole: a disarmed slot goes back into the buffer as it was computed. */
  slot: Slot;
}

/** A started JOB whose completion this run awaits (overlap policy, FIXED_DELAY). */
export interface RunningTarget {
  occurrenceId: string;
  workflowId: string;
}

/** Everything a run carries into the next one across continue-as-new. */
export interface ScheduleState {
  identity: ScheduleIdentity;
  spec: ScheduleSpec;
  version: number;
  status: ScheduleStatus;
  pauseNote: string | null;
  createdAt: string;
  updatedAt: string;
  /** Every slot with scheduled_for <= watermark has been decided (fired, queued or skipped). */
  watermark: string;
  buffer: Slot[];
  cursor: CalendarCursor | null;
  exhausted: boolean;
  pendingFires: PendingFire[];
  occurrences: Occurrence[];
  running: RunningTarget[];
  queue: string[];
  counters: ScheduleCounters;
  lastRunAt: string | null;
  lastCompletedAt: string | null;
  /** Set when the owner's API key was removed; absent in states carried from runs before it existed. */
  ownerRevoked?: { at: string; reason: string } | null;
  /** Set by a delete (a cancel that also hides the schedule from listings). */
  deletedAt?: string | null;
  /**
   * Occurrences decided to fire (DISPATCHING) whose hand-off waits for room under the schedule's bound
   * (PATCHES.BOUNDED_HANDOFFS), oldest first; absent in states of runs before it.
   */
  awaitingHandoff?: Array<{ occurrenceId: string; late: boolean }>;
  /** The tenant's `max_handoffs_in_flight` as last told (at create, then by each hand-off); null: none. */
  handoffQuota?: number | null;
  /**
   * When the buffered future slots were computed (PATCHES.TZ_HORIZON): they are trusted to fire until
   * TZ_HORIZON_MS after it. Absent (a state from before 0.6, or an unpatched run): not yet bounded.
   */
  computedAt?: string | null;
  /** Recomputes and what a newer worker said (PATCHES.TZ_HORIZON); absent before. */
  tz?: TzState;
  /** A worker with newer holiday data than the buffer's said so (business_days only; cleared by a recompute with it). */
  holidaysNewer?: { version: string; seen_at: string } | null;
  /** Armed JOBs whose instant has not passed at the last pass, by instant (PATCHES.ARMED_HANDOFFS). */
  armed?: ArmedSlot[];
  /**
   * Occurrences whose armed job a disarm terminated before it began: the only IDs a later arming of the same
   * slot may reuse (a job that ran, or failed on its own, is never started again under its ID).
   */
  disarmed?: Array<{ occurrenceId: string; fireAt: string }>;
  /** Armings so far: names each arming's start request (a re-arm after a disarm is another request). */
  armings?: number;
  /** Failed occurrences in a row, the last of them listed (only schedules with on_failure or on_recovery). */
  failureStreak?: { count: number; recent: NoticeFailure[] };
  /**
   * Payload overrides by digest, each kept while an occurrence that runs with it may still be handed off:
   * once, however many backfilled occurrences share it.
   */
  overrides?: Record<string, PayloadOverride>;
  /**
   * The definitions whose slots the schedule decided, each from the instant it took over (the audit reads
   * it); written at the first edit since 0.11, the oldest let go past IN_FORCE_KEPT. Absent: the current
   * definition is the first (version 1), or its predecessors were never recorded.
   */
  inForce?: DefinitionInForce[];
  /** The latest scheduled_for among SCHEDULE occurrences the ledger let go (RECENT_LIMIT); absent: none. */
  droppedUpTo?: string;
  /** What the failure hooks did (./hooks.ts); absent until they first had something to decide. */
  hooks?: HookState;
}

export interface HookState {
  /** Times the hook went off: names each notice. */
  trips: number;
  /** The streak's length when the hook last went off; null: nothing failed since the last success. */
  trippedAt: number | null;
  /** Failures of the streak before the hook's count started again (a resume after its pause, an edit of it). */
  countedFrom: number;
  /** The hook paused the schedule and no resume came since. */
  pausedByHook: boolean;
  lastNotice: NonNullable<FailureHookView['last_notice']> | null;
}

export interface TzState {
  horizonRefreshes: number;
  recomputes: number;
  last: RecomputeRecord | null;
  /** When a recompute was last asked for and done (the horizon's refreshes aside): at most one a minute. */
  lastRequestedAt?: string;
  /** A worker with a newer tz database than the buffer's said so (cleared by a recompute with it). */
  newer: { version: string; seen_at: string } | null;
}

export interface ScheduleWorkflowInput {
  identity: ScheduleIdentity;
  spec: ScheduleSpec;
  /** Task queue for JOB targets that name none (the deployment's job workers). */
  defaultJobTaskQueue: string;
  /**
   * The instant slots are counted from. The SDK passes the instant it validated the definition at and
   * computed the next runs it answered `create` with, so both agree exactly; default (a caller that
   * passes none): the workflow's start (server time).
   */
  createdAt?: string;
  /**
   * The calendar's first batch (FIRST_SLOT_BATCH slots after `createdAt`), computed by the SDK with the
   * same function as the slot activity and recorded here, in the start event: a new schedule needs no
   * activity before it knows its next runs (since the patch v0.3-no-local-activities).
   */
  firstBatch?: SlotBatch;
  /** Set by continue-as-new. */
  state?: ScheduleState;
  /** History length after which the run continues as new (tests lower it). */
  continueAsNewAfterEvents?: number;
  /** The tenant's `max_handoffs_in_flight` when the schedule was created (none: no quota told). */
  maxHandoffsInFlight?: number;
  /**
   * How long before its slot a recurring ALLOW JOB is armed: started with a delay to its instant, so that at
   * the instant the server alone begins it (PATCHES.ARMED_HANDOFFS). The deployment's choice at create
   * (SCHEDULER_ARM_LEAD_S); absent or 0: never armed. Carried across continue-as-new.
   */
  armLeadMs?: number;
  /**
   * How far ahead a recurring ALLOW JOB arms its slots when that is longer than armLeadMs: every slot within
   * it, at most ARMED_AT_MOST (SCHEDULER_ARM_AHEAD_S at create). Absent (every schedule created before 0.11):
   * the lead alone. Carried across continue-as-new.
   */
  armAheadMs?: number;
}

/**
 * The one module that writes each field of the state; every other reads it (test/unit/state-owners.test.ts
 * holds the code to this table). The shape of the state is history; who writes it is not.
 */
export const STATE_OWNERS = {
  identity: 'lifecycle',
  spec: 'lifecycle',
  version: 'lifecycle',
  status: 'lifecycle',
  pauseNote: 'lifecycle',
  createdAt: 'lifecycle',
  updatedAt: 'lifecycle',
  ownerRevoked: 'lifecycle',
  deletedAt: 'lifecycle',
  watermark: 'generator',
  buffer: 'generator',
  cursor: 'generator',
  exhausted: 'generator',
  computedAt: 'generator',
  tz: 'generator',
  holidaysNewer: 'generator',
  pendingFires: 'invoker',
  queue: 'invoker',
  running: 'invoker',
  awaitingHandoff: 'invoker',
  handoffQuota: 'invoker',
  armed: 'invoker',
  disarmed: 'invoker',
  armings: 'invoker',
  occurrences: 'ledger',
  counters: 'ledger',
  lastRunAt: 'ledger',
  lastCompletedAt: 'ledger',
  failureStreak: 'ledger',
  inForce: 'generator',
  droppedUpTo: 'ledger',
  overrides: 'ledger',
  hooks: 'hooks',
} as const satisfies Record<keyof ScheduleState, 'lifecycle' | 'generator' | 'invoker' | 'ledger' | 'hooks'>;

/** What a handler asks of the loop, which applies commands one at a time between slot decisions. */
export type Command =
  | { kind: 'pause'; note: string | null; byHook?: boolean }
  | { kind: 'resume'; ownerRef: string | null }
  | { kind: 'takeOver'; ownerRef: string; done: (r: { owner_ref: string; taken_over: boolean }) => void }
  | { kind: 'revokeOwner'; reason: string }
  | { kind: 'refuseArmed'; occurrenceIds: string[]; reason: string }
  | { kind: 'edit'; request: EditCommand; done: (r: EditResult | Error) => void }
  | { kind: 'trigger'; request: TriggerCommand; done: (r: Occurrence | Error) => void }
  | { kind: 'backfill'; request: BackfillCommand; done: (r: BackfillResult | Error) => void }
  | { kind: 'cancel'; request: CancelRequest & { delete?: boolean }; done: (r: ScheduleDescription) => void }
  | { kind: 'recompute'; request: RecomputeRequest; done: (r: RecomputeResult) => void }
  | { kind: 'noteNewerTz'; version: string }
  | { kind: 'noteNewerHolidays'; version: string };

/** A new schedule's state; `createdAt`: the input's, else the workflow's start. */
export function initialState(input: ScheduleWorkflowInput, createdAt: string): ScheduleState {
  return {
    identity: input.identity,
    spec: input.spec,
    version: 1,
    status: 'ACTIVE',
    pauseNote: null,
    createdAt,
    updatedAt: createdAt,
    watermark: createdAt,
    buffer: [],
    cursor: null,
    exhausted: false,
    pendingFires: [],
    occurrences: [],
    running: [],
    queue: [],
    counters: { fired: 0, caught_up: 0, skipped: 0, expired: 0, failed: 0, duplicates_prevented: 0 },
    lastRunAt: null,
    lastCompletedAt: null,
    ...(input.maxHandoffsInFlight !== undefined ? { handoffQuota: input.maxHandoffsInFlight } : {}),
  };
}

/** The next run's input: the same fields, in the same order, as every release since 0.1 wrote them. */
export function continuedInput(input: ScheduleWorkflowInput, s: ScheduleState): ScheduleWorkflowInput {
  return {
    identity: s.identity,
    spec: s.spec,
    createdAt: s.createdAt,
    defaultJobTaskQueue: input.defaultJobTaskQueue,
    state: s,
    ...(input.continueAsNewAfterEvents ? { continueAsNewAfterEvents: input.continueAsNewAfterEvents } : {}),
    ...(input.armLeadMs ? { armLeadMs: input.armLeadMs } : {}),
    ...(input.armAheadMs ? { armAheadMs: input.armAheadMs } : {}),
  };
}

/** A schedule that counts its failures in a row (on_failure, on_recovery). */
export const hasFailureHooks = (spec: ScheduleSpec): boolean =>
  spec.on_failure !== undefined || spec.on_recovery !== undefined;

/** ONE_TIME, DELAY and DEADLINE end when their occurrences have run; they end FAILED if one failed. */
export const endsAfterItsSlots = (spec: ScheduleSpec): boolean =>
  ['ONE_TIME', 'DELAY', 'DEADLINE'].includes(spec.timing.kind);
export const isFixedDelay = (spec: ScheduleSpec): boolean =>
  spec.timing.kind === 'INTERVAL' && spec.timing.mode === 'FIXED_DELAY';
/**
 * Overlap and FIXED_DELAY need to know when a started JOB finishes, and a finite schedule ends with its
 * jobs' outcome (COMPLETED, or FAILED when one failed); a recurring ALLOW schedule needs none.
 */
export const watchesCompletion = (spec: ScheduleSpec): boolean =>
  spec.overlap !== 'ALLOW' || isFixedDelay(spec) || endsAfterItsSlots(spec);
