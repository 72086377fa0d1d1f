// The pure decisions of a schedule, separate from the plumbing that sleeps, signals and continues as
// new (as Temporal's own scheduler separates processTimeRange from its loop). No Temporal import: these
// are unit-tested on plain values.
import { armAtMs } from '../model/arming.js';
import type { MisfirePolicy, OverlapPolicy } from '../model/contracts.js';

/** A slot as the calendar computed it: identity (`scheduledFor`) and when it is due (`fireAt`). */
export interface SlotLike {
  scheduledFor: string;
  fireAt: string;
}

export type MisfireDecision<S extends SlotLike> =
  | { slot: S; action: 'FIRE'; late: boolean; reason: string | null }
  | { slot: S; action: 'SKIP'; counter: 'skipped' | 'expired'; reason: string };

export interface MisfireSettings {
  misfire: MisfirePolicy;
  maxLatenessMs: number;
  catchUpLimit: number;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Slots of `buffer` that are due at `nowMs` (fireAt <= now), in order, and the rest. */
export function splitDue<S extends SlotLike>(buffer: readonly S[], nowMs: number): { due: S[]; later: S[] } {
  const due: S[] = [];
  const later: S[] = [];
  for (const slot of buffer) (Date.parse(slot.fireAt) <= nowMs ? due : later).push(slot);
  return { due, later };
}

/**
 * Judges due slots against `max_lateness_s` and the misfire policy. A slot no later than the bound is
 * on time and fires. Late slots: SKIP drops them all; FIRE_ONCE makes one occurrence for all of them
 * (the newest late slot, unless an on-time slot already fires); CATCH_UP fires each, at most
 * `catchUpLimit` (the newest ones), and the older excess expires.
 */
export function applyMisfirePolicy<S extends SlotLike>(
  due: readonly S[],
  nowMs: number,
  settings: MisfireSettings,
): MisfireDecision<S>[] {
  const lateness = (slot: S) => nowMs - Date.parse(slot.fireAt);
  const late = due.filter((slot) => lateness(slot) > settings.maxLatenessMs);
  const onTimeCount = due.length - late.length;
  const bound = `max_lateness_s=${settings.maxLatenessMs / 1000}`;

  let firedLate: Set<S>;
  if (settings.misfire === 'CATCH_UP') firedLate = new Set(late.slice(-settings.catchUpLimit));
  else if (settings.misfire === 'FIRE_ONCE' && onTimeCount === 0 && late.length > 0)
    firedLate = new Set(late.slice(-1));
  else firedLate = new Set();

  return due.map((slot): MisfireDecision<S> => {
    const by = lateness(slot);
    if (by <= settings.maxLatenessMs) return { slot, action: 'FIRE', late: false, reason: null };
    if (firedLate.has(slot)) {
      const reason =
        settings.misfire === 'FIRE_ONCE'
          ? `late by ${seconds(by)} (${bound}); FIRE_ONCE: one occurrence for ${late.length} missed slot(s)`
          : `late by ${seconds(by)} (${bound}); CATCH_UP`;
      return { slot, action: 'FIRE', late: true, reason };
    }
    if (settings.misfire === 'CATCH_UP') {
      return {
        slot,
        action: 'SKIP',
        counter: 'expired',
        reason: `late by ${seconds(by)}; beyond catch_up_limit=${settings.catchUpLimit}`,
      };
    }
    return {
      slot,
      action: 'SKIP',
      counter: 'skipped',
      reason:
        settings.misfire === 'SKIP'
          ? `late by ${seconds(by)} (${bound}); misfire SKIP`
          : `late by ${seconds(by)} (${bound}); FIRE_ONCE: covered by a newer occurrence`,
    };
  });
}

export interface OverlapState {
  /** Occurrences started and not finished (awaited jobs, hand-offs under way). */
  running: number;
  queued: number;
  queueLimit: number;
}

/**
 * What to do with a new occurrence under the overlap policy, as data the loop carries out (the shape of
 * Temporal's ProcessBuffer result): the occurrence starts, waits in the queue, or is skipped; COALESCE also
 * skips what was queued before it (the new one takes their place), REPLACE also cancels what runs.
 */
export interface AdmitPlan {
  occurrence: 'START' | 'ENQUEUE' | 'SKIP';
  /** Why the occurrence is skipped (SKIP only). */
  reason?: string;
  /** Mark every queued occurrence skipped first (COALESCE). */
  skipQueued: boolean;
  /** Cancel the running targets before the start (REPLACE). */
  cancelRunning: boolean;
}

/** A slot is due: what happens to it, given what is still running or waiting. */
export function admit(policy: OverlapPolicy, state: OverlapState): AdmitPlan {
  const plan: AdmitPlan = { occurrence: 'START', skipQueued: false, cancelRunning: false };
  const busy = state.running > 0 || state.queued > 0;
  if (policy === 'ALLOW' || !busy) return plan;
  switch (policy) {
    case 'SKIP':
      return {
        ...plan,
        occurrence: 'SKIP',
        reason: 'overlap SKIP: the previous occurrence is still running',
      };
    case 'QUEUE':
      return state.queued < state.queueLimit
        ? { ...plan, occurrence: 'ENQUEUE' }
        : {
            ...plan,
            occurrence: 'SKIP',
            reason: `overlap QUEUE: queue full (queue_limit=${state.queueLimit})`,
          };
    case 'COALESCE':
      return { ...plan, occurrence: 'ENQUEUE', skipQueued: true };
    case 'REPLACE':
      return { ...plan, cancelRunning: true };
  }
}

// ------------------------------------------------------------------ hand-offs (PATCHES.BOUNDED_HANDOFFS)
// History-visible tweakables: changing one changes the commands a running schedule emits (a patch).
/** Hand-offs one schedule has under way at once when its tenant's quota says nothing smaller. */
export const MAX_HANDOFFS_IN_FLIGHT = 100;
/**
 * What the hand-off commands of one workflow task may carry, in characters of their JSON (the payload in
 * each): far below the server's 4 MiB gRPC message limit even for a payload of 3-byte UTF-8 characters.
 */
export const HANDOFF_CHARS_PER_TASK = 1024 * 1024;
/** What one hand-off command carries besides the payload (the envelope, search attributes, details). */
export const HANDOFF_OVERHEAD_CHARS = 2048;

/**
 * How many hand-offs a schedule may have under way: its tenant's `max_handoffs_in_flight` (null or absent:
 * none told), MAX_HANDOFFS_IN_FLIGHT, and as many as fit HANDOFF_CHARS_PER_TASK with its payload (a 60 KB
 * payload: 16). At least one. New starts happen only below it, so no workflow task schedules more.
 */
export function handoffBound(quota: number | null | undefined, payloadChars: number): number {
  const fitting = Math.floor(HANDOFF_CHARS_PER_TASK / (HANDOFF_OVERHEAD_CHARS + payloadChars));
  return Math.max(1, Math.min(MAX_HANDOFFS_IN_FLIGHT, fitting, quota ?? MAX_HANDOFFS_IN_FLIGHT));
}

/** How an occurrence is handed off (src/workflows/schedule/hand-off.ts and the activities run them). */
export type StartMode =
  /** A JOB started by a local activity whose result wakes nothing (PATCHES.INERT_LOCAL_START). */
  | 'INERT_LOCAL_JOB_START'
  /** A JOB started by an activity: the schedule never waits for the job. */
  | 'JOB_START_ACTIVITY'
  /** A JOB started as a child workflow: the schedule needs its completion. */
  | 'CHILD_JOB'
  /** A WORKFLOW_SIGNAL or EVENT, through the handOff activity. */
  | 'HANDOFF_ACTIVITY';

export interface StartModeFacts {
  targetType: 'JOB' | 'WORKFLOW_SIGNAL' | 'EVENT';
  trigger: 'SCHEDULE' | 'MANUAL' | 'BACKFILL';
  /** Overlap other than ALLOW, FIXED_DELAY, or a schedule that ends after its slots. */
  watchesCompletion: boolean;
  /** PATCHES.PER_FIRE_COST: before it every JOB was a child. */
  jobsFromActivity: boolean;
  /** The pass may start inertly (inertEligible). */
  startsMayBeInert: boolean;
}

export function startMode(f: StartModeFacts): StartMode {
  if (f.targetType !== 'JOB') return 'HANDOFF_ACTIVITY';
  if (f.watchesCompletion) return 'CHILD_JOB';
  if (f.startsMayBeInert && f.trigger === 'SCHEDULE') return 'INERT_LOCAL_JOB_START';
  return f.jobsFromActivity ? 'JOB_START_ACTIVITY' : 'CHILD_JOB';
}

export interface InertFacts {
  /** The run starts jobs inertly at all (patches.startsJobsInertly). */
  enabled: boolean;
  active: boolean;
  commandsWaiting: number;
  pendingFires: number;
  firesPerPass: number;
  nextFireAtMs: number | null;
  nowMs: number;
  /** How far the next slot must be for an inert start to resolve before it. */
  spacingMs: number;
  historyFull: boolean;
  /** PATCHES.BOUNDED_HANDOFFS answered true; then the three below count. */
  bounded: boolean;
  awaitingHandoff: number;
  inFlight: number;
  bound: number;
}

/**
 * Whether this pass's job starts may be inert: only if the task ends asleep on a timer (ACTIVE, a later
 * slot buffered and far enough, no command waiting, the whole catch-up in this pass, the history short of
 * its bound) and, under the bound, every fire of the pass starts now (one left waiting would wait for a
 * wake an inert start never gives).
 */
export function inertEligible(f: InertFacts): boolean {
  return (
    f.enabled &&
    f.active &&
    f.commandsWaiting === 0 &&
    f.pendingFires <= f.firesPerPass &&
    f.nextFireAtMs !== null &&
    f.nextFireAtMs - f.nowMs >= f.spacingMs &&
    !f.historyFull &&
    (!f.bounded || (f.awaitingHandoff === 0 && f.inFlight + f.pendingFires <= f.bound))
  );
}

export interface OutcomeFacts {
  /** The calendar has no slot left. */
  exhausted: boolean;
  buffered: number;
  pendingFires: number;
  queued: number;
  awaitingHandoff: number;
  inFlight: number;
  running: number;
  /** ONE_TIME, DELAY, DEADLINE. */
  endsAfterItsSlots: boolean;
  failed: number;
}

/**
 * An active schedule's outcome after a pass: it ends once nothing is left to compute, decide, hand off or
 * wait for; a schedule that ends after its slots ends FAILED if one of its occurrences failed.
 */
export function runOutcome(f: OutcomeFacts): 'RUNNING' | 'COMPLETED' | 'FAILED' {
  const idle =
    f.exhausted &&
    f.buffered === 0 &&
    f.pendingFires === 0 &&
    f.queued === 0 &&
    f.awaitingHandoff === 0 &&
    f.inFlight === 0 &&
    f.running === 0;
  if (!idle) return 'RUNNING';
  return f.endsAfterItsSlots && f.failed > 0 ? 'FAILED' : 'COMPLETED';
}

export interface HorizonFacts {
  /** fireAt of the next buffered slot (ms); null: none buffered. */
  nextFireAtMs: number | null;
  /** When the buffered slots were computed (ms); null: before the horizon existed (a state from 0.5). */
  computedAtMs: number | null;
  nowMs: number;
  horizonMs: number;
}

/**
 * When the buffered slots must be computed again so that no slot fires on instants computed more than the
 * horizon before it: `now`, at `wakeAtMs` (a sparse schedule whose next slot is further than the horizon:
 * recomputed a horizon before it), or not yet. A buffer from before the horizon existed is recomputed now.
 */
export function horizonRefresh(f: HorizonFacts): { now: boolean; wakeAtMs: number | null } {
  const refreshNow = { now: true, wakeAtMs: null };
  if (f.nextFireAtMs === null) return { now: false, wakeAtMs: null };
  if (f.computedAtMs === null) return refreshNow;
  if (f.nextFireAtMs - f.computedAtMs <= f.horizonMs) return { now: false, wakeAtMs: null };
  const refreshAt = f.nextFireAtMs - f.horizonMs;
  return refreshAt <= f.nowMs ? refreshNow : { now: false, wakeAtMs: refreshAt };
}

/**
 * The dropped future slots that a recomputation did not give back (their instant or offset changed, or they
 * are gone), among those it covers: the new slots reach up to `lastNew` (or beyond, once `exhausted`).
 */
export function movedSlots(
  dropped: readonly SlotLike[],
  recomputed: readonly SlotLike[],
  exhausted: boolean,
): number {
  const kept = new Set(recomputed.map((s) => s.scheduledFor));
  const last = recomputed.at(-1);
  const lastMs = last ? Date.parse(last.scheduledFor) : Number.NEGATIVE_INFINITY;
  return dropped.filter(
    (d) => !kept.has(d.scheduledFor) && (exhausted || Date.parse(d.scheduledFor) <= lastMs),
  ).length;
}

export interface ArmingFacts<S extends SlotLike> {
  /** The buffered slots, none of them due. */
  buffer: readonly S[];
  nowMs: number;
  leadMs: number;
  spreadKey: string;
  /** At most this many armed in one pass. */
  limit: number;
}

/**
 * The slots to arm now: none until the first one's arming point is reached; then every slot due within the
 * lead, so that a frequent schedule arms several in one task and no armed job waits longer than the lead.
 */
export function slotsToArm<S extends SlotLike>(f: ArmingFacts<S>): S[] {
  const first = f.buffer[0];
  if (!first || f.leadMs <= 0) return [];
  if (armAtMs(Date.parse(first.fireAt), f.leadMs, f.spreadKey) > f.nowMs) return [];
  const armed: S[] = [];
  for (const slot of f.buffer) {
    const fireAtMs = Date.parse(slot.fireAt);
    if (fireAtMs <= f.nowMs || fireAtMs - f.nowMs > f.leadMs || armed.length >= f.limit) break;
    armed.push(slot);
  }
  return armed;
}
