// One durable workflow per schedule. It owns the versioned definition, sleeps until the next slot,
// judges what is due with the pure policy step (./policy.ts), hands occurrences off through activities
// and continues as new to keep its history bounded. Handlers only enqueue commands; the loop is the one
// place that changes the slot pipeline, so an edit, pause or trigger that arrives while a slot is due is
// applied after that slot is decided, never half-way through.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { HandoffActivities, JobStartResult } from '../activities/handoff.js';
import type { CalendarCursor, Slot } from '../calendar/index.js';
import type {
  BackfillRequest,
  BackfillResult,
  CancelRequest,
  EditResult,
  NextRun,
  Occurrence,
  OccurrenceEnvelope,
  ScheduleCounters,
  ScheduleDescription,
  ScheduleIdentity,
  ScheduleSpec,
  ScheduleStatus,
  TriggerRequest,
} from '../model/contracts.js';
import {
  FORBIDDEN_TARGET_ERROR,
  PERMANENT_HANDOFF_ERROR,
  REFUSED_BY_POLICY,
} from '../model/handoff-failures.js';
import { canonicalInstant, idempotencyKey, occurrenceId } from '../model/ids.js';
import type { SlotBatch, SlotBatchRequest } from '../model/slots.js';
import { isTerminal, toNextRun, visibleStatus } from '../model/views.js';
import { workflowNow, workflowNowIso } from './clock.js';
import {
  BACKFILL_LIMIT,
  backfillUpdate,
  cancelUpdate,
  describeQuery,
  type EditCommand,
  editUpdate,
  FIRST_SLOT_BATCH,
  INVALID_REQUEST,
  INVALID_STATE,
  ownerRevokedSignal,
  pauseSignal,
  resumeSignal,
  takeOverUpdate,
  triggerNowUpdate,
  VERSION_CONFLICT,
  VERSION_MEMO,
} from './definitions.js';
import { authorizeJobStart, jobOutcome, startJob, startJobInActivity } from './handoff.js';
import { markdownLiteral } from './markdown.js';
import { countOccurrence, type MetricLabels, recordLateness } from './metrics.js';
import { askSmallFirstBatch, askVersionMemo, PatchesAskedEachPass, resolveBehaviour } from './patches.js';
import {
  applyMisfirePolicy,
  applyOverlapPolicy,
  handoffBound,
  inertEligible,
  runOutcome,
  splitDue,
  startMode,
} from './policy.js';
import {
  NextRunAtKey,
  OwnerKey,
  ownerKeyValue,
  ScheduleIdKey,
  ScheduleStatusKey,
  TenantIdKey,
  TimingKindKey,
} from './search-attributes.js';

/** An inert start needs the next slot this far away, so that it resolved before the next wake. */
const INERT_START_SPACING_MS = 30_000;

const SLOT_BATCH = 100;
const RECENT_LIMIT = 256;
const NEXT_RUNS_SHOWN = 10;
/** Handoffs started per pass of the loop; the rest wait in `pendingFires` (and survive continue-as-new). */
const FIRES_PER_PASS = 50;
const DEFAULT_CONTINUE_AS_NEW_AFTER = 5000;
/**
 * History size (bytes, as the server counts it) past which a run continues as new (PATCHES.BOUNDED_HANDOFFS):
 * with a large payload every hand-off adds it to history, and a history past the 4 MiB gRPC message limit
 * cannot be read back in one page. The server's own suggestion may come later, or never (the test server).
 */
const CONTINUE_AS_NEW_AFTER_BYTES = 2 * 1024 * 1024;

type SlotActivities = { computeSlotBatch(r: SlotBatchRequest): Promise<SlotBatch> };
const slotActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
} satisfies wf.ActivityOptions;
const slotsLocally = wf.proxyLocalActivities<SlotActivities>(slotActivityOptions);
const slotsInTask = wf.proxyActivities<SlotActivities>(slotActivityOptions);
const { handOff } = wf.proxyActivities<HandoffActivities>({
  // Short, so a hand-off whose worker died is retried soon; an EVENT's POST gives up after 15 s itself.
  startToCloseTimeout: '20s',
  // Transient failures are retried with bounded exponential backoff under the same occurrence key.
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [PERMANENT_HANDOFF_ERROR],
  },
});

interface PendingFire {
  slot: Slot;
  trigger: Occurrence['trigger'];
  late: boolean;
  reason: string | null;
}

/** A started JOB whose completion this run awaits (overlap policy, FIXED_DELAY). */
interface RunningTarget {
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
}

type Command =
  | { kind: 'pause'; note: string | null }
  | { kind: 'resume'; ownerRef: string | null }
  | { kind: 'takeOver'; ownerRef: string; done: (r: { owner_ref: string; taken_over: boolean }) => void }
  | { kind: 'revokeOwner'; reason: string }
  | { kind: 'edit'; request: EditCommand; done: (r: EditResult | Error) => void }
  | { kind: 'trigger'; request: TriggerRequest; done: (r: Occurrence | Error) => void }
  | { kind: 'backfill'; request: BackfillRequest; done: (r: BackfillResult | Error) => void }
  | { kind: 'cancel'; request: CancelRequest & { delete?: boolean }; done: (r: ScheduleDescription) => void };

/** What failed inside an activity (its cause), or the error itself. */
const activityCause = (err: unknown): unknown =>
  err instanceof wf.ActivityFailure && err.cause ? err.cause : err;
const isForbiddenTarget = (err: unknown): boolean => {
  const cause = activityCause(err);
  return cause instanceof wf.ApplicationFailure && cause.type === FORBIDDEN_TARGET_ERROR;
};

/** Equal search-attribute values; an absent attribute equals a null (removing) update. */
function sameAttributeValue(current: unknown, wanted: unknown): boolean {
  if (current instanceof Date && wanted instanceof Date) return current.getTime() === wanted.getTime();
  return (current ?? null) === (wanted ?? null);
}

const ACTIVE_OCCURRENCE: ReadonlySet<Occurrence['status']> = new Set(['QUEUED', 'DISPATCHING', 'RUNNING']);

function initialState(input: ScheduleWorkflowInput): ScheduleState {
  const createdAt = input.createdAt ?? workflowNowIso();
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

export async function scheduleWorkflow(input: ScheduleWorkflowInput): Promise<ScheduleDescription> {
  const behaviour = resolveBehaviour();
  const { perFireCost, servesHandlersWhileDraining, localActivities, inertLocalStarts } = behaviour;
  const asked = new PatchesAskedEachPass(behaviour);
  const { computeSlotBatch } = localActivities ? slotsLocally : slotsInTask;
  let givenFirstBatch = input.state === undefined && !localActivities ? input.firstBatch : undefined;
  const s: ScheduleState = input.state ?? initialState(input);
  const continueAsNewAfter = input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER;
  const historyIsFull = () => {
    const info = wf.workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > continueAsNewAfter ||
      (asked.handoffsBounded && info.historySize > CONTINUE_AS_NEW_AFTER_BYTES)
    );
  };
  const commands: Command[] = [];
  let wake = false;
  let handoffsInFlight = 0;
  /** Jobs being started from an activity (a local one before v0.3: resolved within the task that started it). */
  let jobStartsInFlight = 0;
  /** Inert local starts in flight (PATCHES.INERT_LOCAL_START): not in jobStartsInFlight, they wake nothing. */
  let inertStartsInFlight = 0;
  /** Set by processDueSlots for the fires of a pass whose task ends asleep on a timer. */
  let startsMayBeInert = false;
  /** ONE_TIME, DELAY and DEADLINE end when their occurrences have run; they end FAILED if one failed. */
  const endsAfterItsSlots = () => ['ONE_TIME', 'DELAY', 'DEADLINE'].includes(s.spec.timing.kind);
  const isFixedDelay = () => s.spec.timing.kind === 'INTERVAL' && s.spec.timing.mode === 'FIXED_DELAY';
  /**
   * Overlap and FIXED_DELAY need to know when a started JOB finishes, and a finite schedule ends with its
   * jobs' outcome (COMPLETED, or FAILED when one failed); a recurring ALLOW schedule needs none.
   */
  const watchesCompletion = () => s.spec.overlap !== 'ALLOW' || isFixedDelay() || endsAfterItsSlots();

  // ---------------------------------------------------------------- views
  const nextRuns = (): NextRun[] =>
    [...s.pendingFires.map((p) => p.slot), ...s.buffer].slice(0, NEXT_RUNS_SHOWN).map(toNextRun);
  const nextFireAt = (): string | null => s.pendingFires[0]?.slot.fireAt ?? s.buffer[0]?.fireAt ?? null;
  const find = (id: string) => s.occurrences.find((o) => o.occurrence_id === id);
  const describe = (): ScheduleDescription => ({
    schedule: {
      contract: 'schedule.v1',
      ...s.identity,
      ...s.spec,
      status: s.status,
      version: s.version,
      next_run_at: isTerminal(s.status) ? null : nextFireAt(),
      last_run_at: s.lastRunAt,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
      pause_note: s.pauseNote,
      owner_revoked_at: s.ownerRevoked?.at ?? null,
      deleted_at: s.deletedAt ?? null,
    },
    next_runs: isTerminal(s.status) ? [] : nextRuns(),
    recent_occurrences: s.occurrences,
    running: s.occurrences
      .filter((o) => o.status === 'RUNNING' || o.status === 'DISPATCHING')
      .map((o) => o.occurrence_id),
    queued: [...s.queue],
    counters: { ...s.counters },
  });

  let shownAttributes = '';
  const refreshVisibility = () => {
    const next = isTerminal(s.status) || s.status === 'PAUSED' ? null : nextFireAt();
    const shownStatus = visibleStatus(s.status, s.deletedAt);
    const key = `${shownStatus}|${next}`;
    if (key !== shownAttributes) {
      shownAttributes = key;
      const wanted: SearchAttributeUpdatePair[] = [
        { key: TenantIdKey, value: s.identity.tenant_id },
        { key: ScheduleIdKey, value: s.identity.schedule_id },
        { key: TimingKindKey, value: s.spec.timing.kind },
        { key: ScheduleStatusKey, value: shownStatus },
        { key: NextRunAtKey, value: next ? new Date(next) : null },
      ];
      if (perFireCost) {
        // Only what differs from what the workflow already carries (from its start, the run it continued
        // from, or an earlier upsert): on a fire that is the next run alone.
        const current = wf.workflowInfo().typedSearchAttributes;
        const changed = wanted.filter((pair) => !sameAttributeValue(current.get(pair.key), pair.value));
        if (changed.length > 0) wf.upsertSearchAttributes(changed);
      } else {
        wf.upsertSearchAttributes(wanted);
      }
    }
    const last = s.occurrences.at(-1);
    // Markdown in the Web UI: every value a tenant or an operator wrote is a literal (./markdown.ts), never
    // a link or an image. The details are UI metadata, not a command: changing them leaves history alone.
    wf.setCurrentDetails(
      [
        `**${markdownLiteral(s.identity.schedule_id)}** (tenant ${markdownLiteral(s.identity.tenant_id)}) v${s.version} — ${s.status}${s.pauseNote ? ` (${markdownLiteral(s.pauseNote)})` : ''}${s.ownerRevoked ? ` — owner ${markdownLiteral(s.identity.owner_ref)} revoked, slots refused` : ''}`,
        `timing: ${markdownLiteral(JSON.stringify(s.spec.timing))}`,
        `next run: ${next ?? '—'}`,
        `last occurrence: ${last ? `${last.scheduled_for} ${last.status}${last.reason ? ` (${markdownLiteral(last.reason)})` : ''}` : '—'}`,
        `fired ${s.counters.fired}, caught up ${s.counters.caught_up}, skipped ${s.counters.skipped}, failed ${s.counters.failed}, duplicates prevented ${s.counters.duplicates_prevented}`,
      ].join('\n\n'),
    );
  };

  // ---------------------------------------------------------------- occurrences
  const remember = (occ: Occurrence) => {
    s.occurrences.push(occ);
    // Bounded: drop the oldest finished ones; active ones stay however many there are.
    while (s.occurrences.length > RECENT_LIMIT) {
      const index = s.occurrences.findIndex((o) => !ACTIVE_OCCURRENCE.has(o.status));
      if (index < 0) break;
      s.occurrences.splice(index, 1);
    }
  };

  const newOccurrence = (fire: PendingFire): Occurrence => ({
    occurrence_id: occurrenceId(s.identity.tenant_id, s.identity.schedule_id, fire.slot.scheduledFor),
    schedule_id: s.identity.schedule_id,
    schedule_version: s.version,
    scheduled_for: fire.slot.scheduledFor,
    fire_at: fire.slot.fireAt,
    emitted_at: null,
    idempotency_key: idempotencyKey(s.identity.schedule_id, fire.slot.scheduledFor),
    target_ref: '',
    payload_ref: s.spec.target.payload_ref ?? null,
    status: 'QUEUED',
    attempt: 0,
    reason: [fire.reason, ...fire.slot.adjustments.map((a) => a.note)].filter(Boolean).join('; ') || null,
    trigger: fire.trigger,
    duplicate_prevented: false,
    finished_at: null,
  });

  /** Every counter moves here: the schedule's own (describe) and the exported metric. */
  const metricLabels = (occ: Pick<Occurrence, 'trigger'>): MetricLabels => ({
    tenant: s.identity.tenant_id,
    timing_kind: s.spec.timing.kind,
    trigger: occ.trigger,
  });
  const count = (counter: keyof ScheduleCounters, occ: Pick<Occurrence, 'trigger'>) => {
    s.counters[counter] += 1;
    countOccurrence(counter, metricLabels(occ));
  };

  const skip = (fire: PendingFire, reason: string, counter: 'skipped' | 'expired' = 'skipped') => {
    const occ = newOccurrence(fire);
    occ.status = 'SKIPPED';
    occ.reason = reason;
    count(counter, occ);
    remember(occ);
    return occ;
  };

  const cancelRunning = () => {
    for (const target of s.running)
      void wf
        .getExternalWorkflowHandle(target.workflowId)
        .cancel()
        .catch(() => {});
  };

  const envelope = (occ: Occurrence): OccurrenceEnvelope => ({
    occurrence_id: occ.occurrence_id,
    idempotency_key: occ.idempotency_key,
    tenant_id: s.identity.tenant_id,
    schedule_id: s.identity.schedule_id,
    schedule_version: occ.schedule_version,
    scheduled_for: occ.scheduled_for,
    emitted_at: occ.emitted_at!,
    trigger: occ.trigger,
    payload_ref: occ.payload_ref,
    payload: s.spec.target.payload ?? null,
  });

  const finish = (occ: Occurrence, status: Occurrence['status'], reason: string | null) => {
    occ.status = status;
    occ.finished_at = workflowNowIso();
    if (reason) occ.reason = reason;
    s.lastCompletedAt = occ.finished_at;
  };

  /**
   * Every hand-off that nothing waits for ends here: HANDED_OFF, with the target's word that it had the
   * occurrence already (a JOB's workflow that existed, a sink's 208) counted as a prevented duplicate.
   */
  const recordHandedOff = (
    occ: Occurrence,
    handed: { targetRef: string; attempt: number; duplicate: boolean },
    duplicateNote: string | null,
  ) => {
    occ.target_ref = handed.targetRef;
    occ.attempt = handed.attempt;
    if (handed.duplicate) {
      occ.duplicate_prevented = true;
      count('duplicates_prevented', occ);
    }
    finish(occ, 'HANDED_OFF', handed.duplicate ? duplicateNote : null);
  };
  const JOB_EXISTED = 'the target workflow for this slot already existed';
  /** A JOB started from an activity, which nothing waits for: handed off, or found already started. */
  const finishJobStart = (occ: Occurrence, started: JobStartResult) =>
    recordHandedOff(occ, { targetRef: started.workflowId, ...started }, JOB_EXISTED);

  /** The payload's size, measured once per version of the definition. */
  let payloadOf: { version: number; chars: number } | null = null;
  /** The hand-offs this schedule may have under way at once (PATCHES.BOUNDED_HANDOFFS). */
  const handoffLimit = (): number => {
    if (payloadOf?.version !== s.version)
      payloadOf = { version: s.version, chars: JSON.stringify(s.spec.target.payload ?? null).length };
    return handoffBound(s.handoffQuota, payloadOf.chars);
  };
  /** A hand-off's result tells the tenant's quota in force (since v0.5.1 activities). */
  const learnQuota = (told: { inFlightLimit?: number | null }) => {
    if (asked.handoffsBounded && told.inFlightLimit !== undefined) s.handoffQuota = told.inFlightLimit;
  };
  const awaiting = () => (s.awaitingHandoff ??= []);

  /** Marks an occurrence as being handed off; the hand-off starts now, or once there is room for it. */
  const dispatch = (occ: Occurrence, late: boolean) => {
    occ.status = 'DISPATCHING';
    if (asked.handoffsBounded && (handoffsInFlight >= handoffLimit() || awaiting().length > 0)) {
      awaiting().push({ occurrenceId: occ.occurrence_id, late });
      return;
    }
    handOffNow(occ, late);
  };

  /** Hands waiting occurrences off while the bound leaves room (never into a history that is full). */
  const handOffAwaiting = () => {
    const queue = s.awaitingHandoff;
    if (!queue || queue.length === 0) return;
    if (historyIsFull()) return;
    while (queue.length > 0 && handoffsInFlight < handoffLimit()) {
      const { occurrenceId: id, late } = queue.shift()!;
      const occ = find(id);
      if (occ?.status !== 'DISPATCHING') continue;
      if (s.ownerRevoked) {
        // Decided while the owner still had a key: it is handed off under nobody's permission now.
        occ.status = 'SKIPPED';
        occ.reason = `refused: ${s.ownerRevoked.reason}`;
        count('skipped', occ);
      } else handOffNow(occ, late);
    }
  };

  const handOffNow = (occ: Occurrence, late: boolean) => {
    occ.emitted_at = workflowNowIso();
    s.lastRunAt = occ.emitted_at;
    count('fired', occ);
    if (late) count('caught_up', occ);
    wf.log.info('occurrence emitted', {
      occurrence_id: occ.occurrence_id,
      scheduled_for: occ.scheduled_for,
      trigger: occ.trigger,
      schedule_version: occ.schedule_version,
    });
    if (occ.trigger === 'SCHEDULE') {
      recordLateness((Date.parse(occ.emitted_at) - Date.parse(occ.scheduled_for)) / 1000, metricLabels(occ));
    }
    handoffsInFlight += 1;
    const target = s.spec.target;
    const mode = startMode({
      targetType: target.type,
      trigger: occ.trigger,
      watchesCompletion: watchesCompletion(),
      perFireCost,
      startsMayBeInert,
    });
    const inert = mode === 'INERT_LOCAL_JOB_START';
    // Names this emission: a start retried after a crash gets back the run it already started.
    const emission = `${wf.workflowInfo().runId}/${s.counters.fired}`;
    void (async () => {
      try {
        if (inert && target.type === 'JOB') {
          // Nothing follows this result: it updates the occurrence and the counters only. A start that
          // fails for good locally is retried once from a regular activity with the same request ID.
          inertStartsInFlight += 1;
          const started = await startJobInActivity(
            target,
            envelope(occ),
            input.defaultJobTaskQueue,
            emission,
            'inert',
          )
            .catch((err) =>
              isForbiddenTarget(err)
                ? Promise.reject(err)
                : startJobInActivity(target, envelope(occ), input.defaultJobTaskQueue, emission, false),
            )
            .finally(() => {
              inertStartsInFlight -= 1;
            });
          learnQuota(started);
          finishJobStart(occ, started);
        } else if (mode === 'JOB_START_ACTIVITY' && target.type === 'JOB') {
          // Nothing here waits for the job: start it from an activity (no child events, no child to
          // outlive the schedule). The request ID names this emission, so a start retried after a crash
          // gets back the run it already started.
          jobStartsInFlight += 1;
          const started = await startJobInActivity(
            target,
            envelope(occ),
            input.defaultJobTaskQueue,
            emission,
            localActivities,
          ).finally(() => {
            jobStartsInFlight -= 1;
          });
          learnQuota(started);
          finishJobStart(occ, started);
        } else if (mode === 'CHILD_JOB' && target.type === 'JOB') {
          if (asked.targetsBound) {
            // A child start is a command, not an activity: the policy in force is asked right before it.
            const verdict = await authorizeJobStart({
              tenant_id: s.identity.tenant_id,
              target,
              defaultJobTaskQueue: input.defaultJobTaskQueue,
            });
            if (!verdict.allowed) {
              finish(occ, 'FAILED', `${REFUSED_BY_POLICY}: ${verdict.field}: ${verdict.reason}`);
              count('failed', occ);
              return;
            }
          }
          const started = await startJob(target, envelope(occ), input.defaultJobTaskQueue);
          if (started.duplicate || !watchesCompletion()) {
            recordHandedOff(
              occ,
              { targetRef: started.workflowId, attempt: 1, duplicate: started.duplicate },
              JOB_EXISTED,
            );
          } else {
            occ.target_ref = started.workflowId;
            occ.attempt = 1;
            occ.status = 'RUNNING';
            s.running.push({ occurrenceId: occ.occurrence_id, workflowId: started.workflowId });
            void started.result
              .then(
                () => jobOutcome(undefined),
                (err) => jobOutcome(err),
              )
              .then(({ status, reason }) => {
                finish(occ, status, reason);
                if (status === 'FAILED') count('failed', occ);
                s.running = s.running.filter((r) => r.occurrenceId !== occ.occurrence_id);
                wake = true;
              });
          }
        } else if (target.type !== 'JOB') {
          // (startMode gives a JOB one of the three modes above.)
          // The payload travels in the envelope; since v0.5.1 not a second time in the target.
          const result = await handOff({
            target: asked.handoffsBounded ? { ...target, payload: undefined } : target,
            occurrence: envelope(occ),
          });
          learnQuota(result);
          recordHandedOff(occ, result, null);
        }
      } catch (err) {
        const cause = activityCause(err);
        finish(
          occ,
          'FAILED',
          isForbiddenTarget(err)
            ? `${REFUSED_BY_POLICY}: ${(cause as Error).message}`
            : `handoff failed: ${(cause as Error).message}`,
        );
        count('failed', occ);
        wf.log.warn('hand-off failed for good', {
          occurrence_id: occ.occurrence_id,
          scheduled_for: occ.scheduled_for,
          reason: occ.reason,
        });
      } finally {
        handoffsInFlight -= 1;
        if (!inert) wake = true;
      }
    })();
  };

  const activeCount = () => s.running.length + s.occurrences.filter((o) => o.status === 'DISPATCHING').length;

  /** Turns a decided slot into an occurrence, through the overlap policy. */
  const emit = (fire: PendingFire): { occurrence: Occurrence; duplicate: boolean } => {
    const id = occurrenceId(s.identity.tenant_id, s.identity.schedule_id, fire.slot.scheduledFor);
    const existing = find(id);
    if (existing && existing.status !== 'SKIPPED') {
      count('duplicates_prevented', fire);
      return { occurrence: existing, duplicate: true };
    }
    // A slot that was skipped may be run later (trigger, backfill): its new record replaces the old one,
    // so an occurrence ID always names one record.
    if (existing) s.occurrences.splice(s.occurrences.indexOf(existing), 1);
    const decision = applyOverlapPolicy(s.spec.overlap, {
      running: activeCount(),
      queued: s.queue.length,
      queueLimit: s.spec.queue_limit,
    });
    const occ = newOccurrence(fire);
    switch (decision.action) {
      case 'SKIP':
        return { occurrence: skip(fire, decision.reason), duplicate: false };
      case 'COALESCE':
        for (const queuedId of s.queue.splice(0)) {
          const queued = find(queuedId);
          if (queued) {
            queued.status = 'SKIPPED';
            queued.reason = `overlap COALESCE: merged into ${id}`;
            count('skipped', queued);
          }
        }
        s.queue.push(id);
        remember(occ);
        return { occurrence: occ, duplicate: false };
      case 'ENQUEUE':
        s.queue.push(id);
        remember(occ);
        return { occurrence: occ, duplicate: false };
      case 'REPLACE':
        cancelRunning();
        remember(occ);
        dispatch(occ, fire.late);
        return { occurrence: occ, duplicate: false };
      case 'START':
        remember(occ);
        dispatch(occ, fire.late);
        return { occurrence: occ, duplicate: false };
    }
  };

  const drainQueue = () => {
    while (s.queue.length > 0 && activeCount() === 0) {
      const occ = find(s.queue.shift()!);
      if (occ?.status !== 'QUEUED') continue;
      if (asked.targetsBound && s.ownerRevoked) {
        // Queued while the owner still had a key: it is handed off under nobody's permission now.
        occ.status = 'SKIPPED';
        occ.reason = `refused: ${s.ownerRevoked.reason}`;
        count('skipped', occ);
      } else dispatch(occ, false);
    }
  };

  // ---------------------------------------------------------------- slots
  const slotRequest = (after: string, extra: Partial<SlotBatchRequest> = {}): SlotBatchRequest => ({
    scheduleId: s.identity.schedule_id,
    spec: s.spec,
    createdAt: s.createdAt,
    after,
    count: SLOT_BATCH,
    ...(s.cursor ? { cursor: s.cursor } : {}),
    ...(s.lastCompletedAt ? { lastCompletedAt: s.lastCompletedAt } : {}),
    ...extra,
  });

  /** Keeps at least one future slot buffered (or all due ones), computing batches in an activity. */
  const fillBuffer = async (now: number) => {
    // FIXED_DELAY counts from the previous completion, so its next slot exists only once that is known.
    // One slot at a time: the next is computed only once the buffered one fired and its job finished.
    if (isFixedDelay() && (s.buffer.length > 0 || activeCount() > 0 || s.queue.length > 0)) return;
    while (!s.exhausted) {
      const last = s.buffer.at(-1);
      if (last && Date.parse(last.fireAt) > now) return;
      // No cursor yet: the first batch of this calendar (a new schedule, or just edited).
      const first = s.cursor === null && askSmallFirstBatch();
      const batch =
        givenFirstBatch ??
        (await computeSlotBatch(
          slotRequest(last?.scheduledFor ?? s.watermark, first ? { count: FIRST_SLOT_BATCH } : {}),
        ));
      givenFirstBatch = undefined;
      s.buffer.push(...batch.slots);
      s.cursor = batch.cursor;
      s.exhausted = batch.exhausted;
      if (isFixedDelay()) return;
      if (batch.slots.length === 0) return;
    }
  };

  const decideDueSlots = (now: number) => {
    const { due, later } = splitDue(s.buffer, now);
    if (due.length === 0) return;
    s.buffer = later;
    s.watermark = due.at(-1)!.scheduledFor;
    const decisions = applyMisfirePolicy(due, now, {
      misfire: s.spec.misfire,
      maxLatenessMs: s.spec.max_lateness_s * 1000,
      catchUpLimit: s.spec.catch_up_limit,
    });
    for (const d of decisions) {
      const fire: PendingFire = {
        slot: d.slot,
        trigger: 'SCHEDULE',
        late: d.action === 'FIRE' && d.late,
        reason: d.reason,
      };
      if (d.action === 'FIRE') s.pendingFires.push(fire);
      else skip(fire, d.reason, d.counter);
    }
  };

  const firePending = () => {
    for (const fire of s.pendingFires.splice(0, FIRES_PER_PASS)) {
      // A revoked owner's schedule keeps its calendar but hands nothing off: each slot is recorded as
      // refused, so the gap is auditable and a takeover resumes from the next slot.
      if (s.ownerRevoked) skip(fire, `refused: ${s.ownerRevoked.reason}`);
      else emit(fire);
    }
  };

  // ---------------------------------------------------------------- commands
  const reject = (type: string, message: string) => wf.ApplicationFailure.nonRetryable(message, type);
  const revoked = () =>
    reject(
      INVALID_STATE,
      `the schedule's owner ${s.identity.owner_ref} was revoked (${s.ownerRevoked?.reason}): nothing is handed off until an authorized owner of the tenant takes it over (resume)`,
    );
  const changeOwner = (ownerRef: string) => {
    if (ownerRef === s.identity.owner_ref) return;
    s.identity = { ...s.identity, owner_ref: ownerRef };
    wf.upsertSearchAttributes([{ key: OwnerKey, value: ownerKeyValue(s.identity.tenant_id, ownerRef) }]);
  };

  // Shared guards: why a command is refused now (an Error its `done` receives), or null.
  const endedRefusal = () => (isTerminal(s.status) ? reject(INVALID_STATE, `schedule is ${s.status}`) : null);
  const versionRefusal = (expected: number) =>
    expected !== s.version
      ? reject(VERSION_CONFLICT, `expected_version ${expected} but the schedule is at version ${s.version}`)
      : null;
  /** Trigger and backfill: live, and (under PATCHES.TARGETS_BOUND) an owner with a key. */
  const handOffRefusal = () => endedRefusal() ?? (asked.targetsBound && s.ownerRevoked ? revoked() : null);

  const applyPause = (note: string | null) => {
    if (s.status !== 'ACTIVE') return;
    s.status = 'PAUSED';
    s.pauseNote = note;
    s.updatedAt = workflowNowIso();
  };

  const applyRevokeOwner = (reason: string) => {
    if (s.ownerRevoked || isTerminal(s.status)) return;
    s.ownerRevoked = { at: workflowNowIso(), reason };
    wf.log.warn('owner revoked: slots are refused until the schedule is resumed', {
      owner_ref: s.identity.owner_ref,
    });
    s.updatedAt = s.ownerRevoked.at;
  };

  const applyTakeOver = (ownerRef: string) => {
    const taken = Boolean(s.ownerRevoked);
    if (s.ownerRevoked) {
      s.ownerRevoked = null;
      s.updatedAt = workflowNowIso();
      changeOwner(ownerRef);
    }
    return { owner_ref: s.identity.owner_ref, taken_over: taken };
  };

  const applyResume = (ownerRef: string | null) => {
    if (s.ownerRevoked && !asked.targetsBound) {
      s.ownerRevoked = null;
      s.updatedAt = workflowNowIso();
      if (ownerRef) changeOwner(ownerRef);
    }
    if (s.status === 'PAUSED') {
      // Slots missed while paused are still in (watermark, now]: the misfire policy judges them.
      s.status = 'ACTIVE';
      s.pauseNote = null;
      s.updatedAt = workflowNowIso();
    }
  };

  const applyEdit = async (request: EditCommand): Promise<EditResult | Error> => {
    const refusal = endedRefusal() ?? versionRefusal(request.expected_version);
    if (refusal) return refusal;
    s.spec = request.spec;
    s.version += 1;
    // Only v0.5 SDKs send the editor (histories before carry no owner_ref): nothing older changes.
    if (request.owner_ref) changeOwner(request.owner_ref);
    s.updatedAt = workflowNowIso();
    if (askVersionMemo()) wf.upsertMemo({ [VERSION_MEMO]: s.version });
    // Future runs only: what is already decided stays; the new definition starts after now.
    const now = workflowNow();
    if (Date.parse(s.watermark) < now) s.watermark = new Date(now).toISOString();
    s.buffer = [];
    s.cursor = null;
    s.exhausted = false;
    await fillBuffer(now);
    return { version: s.version, next_runs: nextRuns() };
  };

  const applyTrigger = (request: TriggerRequest): Occurrence | Error => {
    const refusal = handOffRefusal();
    if (refusal) return refusal;
    const at = request.scheduled_for ? canonicalInstant(request.scheduled_for) : workflowNowIso();
    return emit({
      slot: { scheduledFor: at, fireAt: workflowNowIso(), local: at, adjustments: [] },
      trigger: 'MANUAL',
      late: false,
      reason: request.reason ?? 'triggered manually',
    }).occurrence;
  };

  const applyBackfill = async (request: BackfillRequest): Promise<BackfillResult | Error> => {
    const refusal = handOffRefusal();
    if (refusal) return refusal;
    const { from, to } = request;
    let batch: SlotBatch;
    try {
      batch = await computeSlotBatch({
        ...slotRequest(new Date(Date.parse(from) - 1).toISOString(), {
          count: BACKFILL_LIMIT + 1,
          until: to,
        }),
        cursor: undefined,
      });
    } catch (err) {
      // A range the calendar cannot compute refuses this backfill; it must never fail the schedule.
      return reject(INVALID_REQUEST, `backfill ${from} – ${to}: ${(activityCause(err) as Error).message}`);
    }
    if (batch.slots.length > BACKFILL_LIMIT)
      return reject(INVALID_REQUEST, `backfill covers more than ${BACKFILL_LIMIT} slots: split it`);
    const result: BackfillResult = { emitted: [], already_emitted: [], skipped: [] };
    for (const slot of batch.slots) {
      const { occurrence, duplicate } = emit({
        slot,
        trigger: 'BACKFILL',
        late: false,
        reason: request.reason ?? `backfill ${from} – ${to}`,
      });
      if (duplicate) result.already_emitted.push(occurrence.occurrence_id);
      else if (occurrence.status === 'SKIPPED') result.skipped.push(occurrence.occurrence_id);
      else result.emitted.push(occurrence.occurrence_id);
    }
    return result;
  };

  const applyCancel = (request: CancelRequest & { delete?: boolean }): ScheduleDescription => {
    if (request.delete && !s.deletedAt) s.deletedAt = workflowNowIso();
    if (!isTerminal(s.status)) {
      s.status = 'CANCELLED';
      s.pauseNote = request.note ?? null;
      s.updatedAt = workflowNowIso();
      s.buffer = [];
      s.pendingFires = [];
      const notHandedOff = [
        ...s.queue.splice(0),
        ...(s.awaitingHandoff?.splice(0) ?? []).map((a) => a.occurrenceId),
      ];
      for (const id of notHandedOff) {
        const occ = find(id);
        if (occ) {
          occ.status = 'CANCELLED';
          occ.reason = 'schedule cancelled before the occurrence ran';
        }
      }
      if (request.running === 'CANCEL') cancelRunning();
    }
    return describe();
  };

  /** The loop applies every command here, one at a time; handlers only enqueue them. */
  const applyCommand = async (command: Command) => {
    switch (command.kind) {
      case 'pause':
        return applyPause(command.note);
      case 'revokeOwner':
        return applyRevokeOwner(command.reason);
      case 'takeOver':
        return command.done(applyTakeOver(command.ownerRef));
      case 'resume':
        return applyResume(command.ownerRef);
      case 'edit':
        return command.done(await applyEdit(command.request));
      case 'trigger':
        return command.done(applyTrigger(command.request));
      case 'backfill':
        return command.done(await applyBackfill(command.request));
      case 'cancel':
        return command.done(applyCancel(command.request));
    }
  };

  // ---------------------------------------------------------------- handlers
  const submit = <T>(make: (done: (r: T | Error) => void) => Command): Promise<T> => {
    let outcome: T | Error | undefined;
    let settled = false;
    commands.push(
      make((r) => {
        outcome = r;
        settled = true;
      }),
    );
    return wf
      .condition(() => settled)
      .then(() => {
        if (outcome instanceof Error) throw outcome;
        return outcome as T;
      });
  };
  const requireLive = () => {
    const refusal = endedRefusal();
    if (refusal) throw refusal;
  };
  /** Validators run only live (never on replay): refusing here adds nothing to any history. */
  const requireHandingOff = () => {
    requireLive();
    if (s.ownerRevoked) throw revoked();
  };

  wf.setHandler(pauseSignal, (request) => {
    commands.push({ kind: 'pause', note: request?.note ?? null });
  });
  wf.setHandler(resumeSignal, (request) => {
    commands.push({ kind: 'resume', ownerRef: request?.owner_ref ?? null });
  });
  wf.setHandler(ownerRevokedSignal, (request) => {
    commands.push({ kind: 'revokeOwner', reason: request.reason });
  });
  wf.setHandler(editUpdate, (request) => submit<EditResult>((done) => ({ kind: 'edit', request, done })), {
    validator: (request) => {
      const refusal = endedRefusal() ?? versionRefusal(request.expected_version);
      if (refusal) throw refusal;
    },
  });
  wf.setHandler(
    triggerNowUpdate,
    (request) => submit<Occurrence>((done) => ({ kind: 'trigger', request, done })),
    { validator: (_request) => requireHandingOff() },
  );
  wf.setHandler(
    backfillUpdate,
    (request) => submit<BackfillResult>((done) => ({ kind: 'backfill', request, done })),
    {
      validator: (request) => {
        requireHandingOff();
        if (!(Date.parse(request.from) < Date.parse(request.to)))
          throw reject(INVALID_REQUEST, 'from must be before to');
      },
    },
  );
  wf.setHandler(cancelUpdate, (request) =>
    submit<ScheduleDescription>((done) => ({ kind: 'cancel', request, done })),
  );
  wf.setHandler(takeOverUpdate, (request) =>
    submit<{ owner_ref: string; taken_over: boolean }>((done) => ({
      kind: 'takeOver',
      ownerRef: request.owner_ref,
      done,
    })),
  );
  wf.setHandler(describeQuery, describe);

  // ---------------------------------------------------------------- the loop

  const processDueSlots = async () => {
    // Slots are judged at the instant of the wake (on time or late, by the misfire policy), even when a
    // slot batch had to be fetched first: since 0.3 that fetch is an activity whose result comes with a
    // later workflow task (a local activity's came with the same one, whose time is the wake's).
    const now = workflowNow();
    await fillBuffer(now);
    decideDueSlots(localActivities ? workflowNow() : now);
    const nextSlot = s.buffer[0];
    // The pass's starts are inert only if this task ends asleep on a timer: ACTIVE, a later slot buffered
    // and far enough, no command waiting, the whole catch-up in this pass, the history short of its bound.
    startsMayBeInert = inertEligible({
      enabled: inertLocalStarts,
      active: s.status === 'ACTIVE',
      commandsWaiting: commands.length,
      pendingFires: s.pendingFires.length,
      firesPerPass: FIRES_PER_PASS,
      nextFireAtMs: nextSlot ? Date.parse(nextSlot.fireAt) : null,
      nowMs: now,
      spacingMs: INERT_START_SPACING_MS,
      historyFull: historyIsFull(),
      bounded: asked.handoffsBounded,
      awaitingHandoff: s.awaitingHandoff?.length ?? 0,
      inFlight: handoffsInFlight,
      bound: handoffLimit(),
    });
    firePending();
    startsMayBeInert = false;
  };

  /**
   * Waits until no hand-off is in flight and every handler finished, or (since the patch) until a command
   * arrived, which only the loop can apply.
   */
  const untilDrainedOrCommanded = () =>
    wf.condition(
      () =>
        (servesHandlersWhileDraining && commands.length > 0) ||
        (handoffsInFlight === 0 && wf.allHandlersFinished()),
    );

  const continuedInput = (): ScheduleWorkflowInput => ({
    identity: s.identity,
    spec: s.spec,
    createdAt: s.createdAt,
    defaultJobTaskQueue: input.defaultJobTaskQueue,
    state: s,
    ...(input.continueAsNewAfterEvents ? { continueAsNewAfterEvents: input.continueAsNewAfterEvents } : {}),
  });

  for (;;) {
    // Whatever woke the loop, inert starts resolve first: live their results may come with the wake's
    // task, on replay before it; after this wait the loop sees the same state either way.
    if (inertLocalStarts) await wf.condition(() => inertStartsInFlight === 0);
    asked.askAtTopOfPass();
    wake = false;
    // What was due before a command arrived is handled under the definition it was due under: an edit,
    // pause or cancel that lands on a due slot applies after that slot fired.
    if (s.status === 'ACTIVE') await processDueSlots();
    while (commands.length > 0) await applyCommand(commands.shift()!);
    if (isTerminal(s.status)) break;

    if (s.status === 'ACTIVE') {
      await processDueSlots();
      drainQueue();
      const outcome = runOutcome({
        exhausted: s.exhausted,
        buffered: s.buffer.length,
        pendingFires: s.pendingFires.length,
        queued: s.queue.length,
        awaitingHandoff: s.awaitingHandoff?.length ?? 0,
        inFlight: handoffsInFlight,
        running: s.running.length,
        endsAfterItsSlots: endsAfterItsSlots(),
        failed: s.counters.failed,
      });
      if (outcome !== 'RUNNING') {
        s.status = outcome;
        s.updatedAt = workflowNowIso();
        break;
      }
    }
    // Decided hand-offs go out while paused too: a pause stops new slots, not what was already emitted.
    if (asked.handoffsBounded) handOffAwaiting();
    refreshVisibility();

    // Awaited JOBs report their completion only to the run that started them, so a run that awaits
    // one keeps going until it finished.
    if (historyIsFull() && s.running.length === 0) {
      // Hand-offs in flight finish first, so their results land in this run's state.
      await untilDrainedOrCommanded();
      if (commands.length === 0) {
        // The server starts the next run with the first run's memo, not the upserted one: carry it.
        if (askVersionMemo()) {
          await wf.makeContinueAsNewFunc<typeof scheduleWorkflow>({
            memo: { ...wf.workflowInfo().memo, [VERSION_MEMO]: s.version },
          })(continuedInput());
        }
        await wf.continueAsNew<typeof scheduleWorkflow>(continuedInput());
      }
      continue;
    }

    if (s.pendingFires.length > 0) continue; // more of a catch-up to hand off
    if (jobStartsInFlight > 0) {
      // Local activities (before v0.3) resolve within this workflow task: live one by one, on replay
      // possibly together; arming the sleep's timer only once all resolved keeps the task's commands (and
      // timer IDs) independent of how their results were batched. A regular activity's start completes
      // with a later task: waiting for it spares a sleep timer cancelled and started again per fire, and
      // a command that arrives meanwhile is applied at once.
      await wf.condition(() => jobStartsInFlight === 0 || (!localActivities && commands.length > 0));
      continue;
    }
    const next = s.status === 'ACTIVE' ? nextFireAt() : null;
    const woken = () => wake || commands.length > 0;
    if (next === null) await wf.condition(woken);
    else await wf.condition(woken, Math.max(Date.parse(next) - workflowNow(), 1));
  }

  refreshVisibility();
  // An ended schedule still answers what arrives while its last hand-offs finish (a delete after a cancel).
  for (;;) {
    await untilDrainedOrCommanded();
    if (commands.length === 0) break;
    while (commands.length > 0) await applyCommand(commands.shift()!);
    refreshVisibility();
  }
  return describe();
}
