// Every `patched()` ID of the schedule workflow, one line each, and where each is asked. A history recorded
// before a patch replays the old path; the folder under test/histories is the first release recorded with
// it (test/unit/replay.test.ts replays them all). Why each exists is told in docs/runtime.md and
// RELIABILITY.md; the rules for asking are below the table. A new patch: add a row with the next level, ask
// it where the table says, record a histories folder for the release, assert what it changed in
// replay.test.ts. A run born knowing a level (SCHEDULE_WORKFLOW_TYPE, since 0.10) takes every row up to it
// as answered true and asks none of them: each `patched()` records a marker and, beside it, the
// TemporalChangeVersion upsert sdk-core adds (18 of a new schedule's first 24 events on 0.9).
import * as wf from '@temporalio/workflow';

/**
 * `level`: its place in the order patches were added (append only: a run born knowing level N knows every
 * row up to N); `release`: the first histories folder that carries it; `asked`: when a run asks it.
 */
export const PATCHES = {
  SMALL_FIRST_BATCH: {
    level: 1,
    id: 'small-first-slot-batch',
    effect: 'the first slot batch of a calendar is FIRST_SLOT_BATCH slots, not SLOT_BATCH',
    release: 'v0.2.0',
    asked: 'where first needed: at the first batch of a calendar (cursor null); never hoist',
  },
  VERSION_MEMO: {
    level: 2,
    id: 'version-memo',
    effect: 'an edit upserts the version into the memo; continue-as-new carries the memo',
    release: 'v0.2.0',
    asked: 'where first needed: after an edit bumps the version, and before continue-as-new; never hoist',
  },
  PER_FIRE_COST: {
    level: 3,
    id: 'issue-9-local-job-start-and-changed-attributes',
    effect:
      'a JOB of a schedule that waits for none starts from an activity; only changed search attributes are upserted',
    release: 'v0.2.0',
    asked: 'in the run’s first activation (resolveBehaviour)',
  },
  HANDLERS_WHILE_DRAINING: {
    level: 4,
    id: 'v0.3-handlers-while-draining',
    effect: 'commands arriving while hand-offs drain (full history, ended schedule) are applied',
    release: 'v0.3.0',
    asked: 'in the run’s first activation (resolveBehaviour)',
  },
  NO_LOCAL_ACTIVITIES: {
    level: 5,
    id: 'v0.3-no-local-activities',
    effect: 'slot batches and job starts are regular activities, not local ones',
    release: 'v0.3.0',
    asked: 'in the run’s first activation (resolveBehaviour)',
  },
  INERT_LOCAL_START: {
    level: 6,
    id: 'v0.4-inert-local-job-start',
    effect: 'a recurring ALLOW JOB fire whose result wakes nothing starts locally (one task per fire)',
    release: 'v0.4.0',
    asked: 'in the run’s first activation, last of the three inert-start IDs (resolveBehaviour)',
  },
  NO_INERT_LOCAL_START: {
    level: 7,
    id: 'v0.4.1-no-inert-local-job-start',
    effect: 'inert local starts off again for new runs',
    release: 'v0.4.1',
    asked: 'in the run’s first activation, second of the three (resolveBehaviour)',
  },
  INERT_LOCAL_START_GUARDED: {
    level: 8,
    id: 'v0.4.2-inert-local-job-start',
    effect: 'inert local starts on again, under the stale-clock guard',
    release: 'v0.4.2',
    asked: 'in the run’s first activation, first of the three (resolveBehaviour)',
  },
  TARGETS_BOUND: {
    level: 9,
    id: 'v0.5-targets-bound-to-tenant',
    effect:
      'a child JOB start is authorized first; a revoked owner’s trigger, backfill and queue are refused',
    release: 'v0.5.0',
    asked:
      'at the top of every pass of the loop until true (askEachPass), never in runs with local activities',
  },
  BOUNDED_HANDOFFS: {
    level: 10,
    id: 'v0.5.1-bounded-handoffs',
    effect:
      'at most handoffBound() hand-offs in flight; continue-as-new past 2 MiB; the payload once per hand-off',
    release: 'v0.5.1',
    asked: 'at the top of every pass of the loop until true (askEachPass), after TARGETS_BOUND',
  },
  TZ_HORIZON: {
    level: 11,
    id: 'v0.6-tz-horizon',
    effect:
      'a buffered slot fires only on instants computed at most TZ_HORIZON before it (else recomputed first); recompute and tz notes applied; SchedulerTzVersion and SchedulerZones shown',
    release: 'v0.6.0',
    asked: 'at the top of every pass of the loop until true (askEachPass), after BOUNDED_HANDOFFS',
  },
  ARMED_HANDOFFS: {
    level: 12,
    id: 'v0.8-armed-handoffs',
    effect:
      'a recurring ALLOW JOB is started ahead of its slot with a start delay to its instant (armLeadMs); pause, edit, cancel and revocation disarm what has not begun',
    release: 'v0.8.0',
    asked: 'at the top of every pass of the loop until true (askEachPass), after TZ_HORIZON',
  },
} as const;

type Patch = (typeof PATCHES)[keyof typeof PATCHES];

/**
 * The patches a run of SCHEDULE_WORKFLOW_TYPE was born knowing: every row up to ARMED_HANDOFFS (0.9 and
 * before). A later patch gets a later level and is asked in these runs too, until a new workflow type is
 * born knowing it.
 */
export const KNOWN_AT_BIRTH_V2 = PATCHES.ARMED_HANDOFFS.level;

/** Whether a run born knowing `knownAtBirth` takes `patch` as answered true without asking. */
const knownAt = (knownAtBirth: number, patch: Patch): boolean => patch.level <= knownAtBirth;
/** A patch as a run sees it: known at birth (true, nothing recorded), else asked. */
const has = (knownAtBirth: number, patch: Patch): boolean =>
  knownAt(knownAtBirth, patch) || wf.patched(patch.id);

/**
 * What a run does, as the patches asked in its first activation answered. Resolved once, before any other
 * `wf.*` call, in this order and with this short-circuit: the markers of a history recorded by any release
 * are then met in the order that release asked them.
 */
export interface Behaviour {
  /** The level of PATCHES the run was born knowing (0: the first workflow type, which asks them all). */
  readonly knownAtBirth: number;
  /** PER_FIRE_COST. */
  readonly perFireCost: boolean;
  /** HANDLERS_WHILE_DRAINING. */
  readonly servesHandlersWhileDraining: boolean;
  /** Not NO_LOCAL_ACTIVITIES: a run of 0.2 or before. */
  readonly localActivities: boolean;
  /** GUARDED, or (not NO_INERT and INERT): never in a run with local activities. */
  readonly inertLocalStarts: boolean;
}

export function resolveBehaviour(knownAtBirth: number): Behaviour {
  const perFireCost = has(knownAtBirth, PATCHES.PER_FIRE_COST);
  const servesHandlersWhileDraining = has(knownAtBirth, PATCHES.HANDLERS_WHILE_DRAINING);
  const localActivities = !has(knownAtBirth, PATCHES.NO_LOCAL_ACTIVITIES);
  const inertLocalStarts =
    !localActivities &&
    (has(knownAtBirth, PATCHES.INERT_LOCAL_START_GUARDED) ||
      (!has(knownAtBirth, PATCHES.NO_INERT_LOCAL_START) && has(knownAtBirth, PATCHES.INERT_LOCAL_START)));
  return Object.freeze({
    knownAtBirth,
    perFireCost,
    servesHandlersWhileDraining,
    localActivities,
    inertLocalStarts,
  });
}

/**
 * The patches a run takes up at the top of a pass of its loop (where no local activity is in flight), so
 * that runs started before them switch at their next pass rather than at their next continue-as-new. Each
 * is asked until it answers true, in table order; runs with local activities (0.2 and before) never ask.
 */
export class PatchesAskedEachPass {
  targetsBound: boolean;
  handoffsBounded: boolean;
  tzHorizon: boolean;
  armedHandoffs: boolean;

  constructor(private readonly behaviour: Behaviour) {
    const known = behaviour.knownAtBirth;
    this.targetsBound = knownAt(known, PATCHES.TARGETS_BOUND);
    this.handoffsBounded = knownAt(known, PATCHES.BOUNDED_HANDOFFS);
    this.tzHorizon = knownAt(known, PATCHES.TZ_HORIZON);
    this.armedHandoffs = knownAt(known, PATCHES.ARMED_HANDOFFS);
  }

  askAtTopOfPass(): void {
    if (this.behaviour.localActivities) return;
    if (!this.targetsBound) this.targetsBound = wf.patched(PATCHES.TARGETS_BOUND.id);
    if (!this.handoffsBounded) this.handoffsBounded = wf.patched(PATCHES.BOUNDED_HANDOFFS.id);
    if (!this.tzHorizon) this.tzHorizon = wf.patched(PATCHES.TZ_HORIZON.id);
    if (!this.armedHandoffs) this.armedHandoffs = wf.patched(PATCHES.ARMED_HANDOFFS.id);
  }
}

/** SMALL_FIRST_BATCH, asked where a calendar's first batch is computed. */
export const askSmallFirstBatch = (b: Behaviour): boolean => has(b.knownAtBirth, PATCHES.SMALL_FIRST_BATCH);
/** VERSION_MEMO, asked after an edit bumped the version and before continue-as-new. */
export const askVersionMemo = (b: Behaviour): boolean => has(b.knownAtBirth, PATCHES.VERSION_MEMO);

/**
 * The `patched()` IDs of the owner registry (workflows/owner-registry.ts), a workflow of its own: no level
 * and no birth type, each asked where `asked` says. Its histories are test/histories/owner-registry/
 * (test/histories/record-owner-registry.ts), replayed with the others by test/unit/replay.test.ts.
 */
export const OWNER_REGISTRY_PATCHES = {
  GENERATIONS: {
    id: 'v0.11-owner-report-generations',
    effect:
      'a report whose key configuration is older than the newest one applied is recorded and revokes nothing',
    release: 'v0.11.0',
    asked:
      'in the reconcile update handler, at each report that carries a generation (false while replaying the reports a worker before it answered)',
  },
} as const;
