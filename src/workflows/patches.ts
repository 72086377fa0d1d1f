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
    asked: 'in the run’s first activation (RunVersion.takeUpAtFirstActivation)',
  },
  HANDLERS_WHILE_DRAINING: {
    level: 4,
    id: 'v0.3-handlers-while-draining',
    effect: 'commands arriving while hand-offs drain (full history, ended schedule) are applied',
    release: 'v0.3.0',
    asked: 'in the run’s first activation (RunVersion.takeUpAtFirstActivation)',
  },
  NO_LOCAL_ACTIVITIES: {
    level: 5,
    id: 'v0.3-no-local-activities',
    effect: 'slot batches and job starts are regular activities, not local ones',
    release: 'v0.3.0',
    asked: 'in the run’s first activation (RunVersion.takeUpAtFirstActivation)',
  },
  INERT_LOCAL_START: {
    level: 6,
    id: 'v0.4-inert-local-job-start',
    effect: 'a recurring ALLOW JOB fire whose result wakes nothing starts locally (one task per fire)',
    release: 'v0.4.0',
    asked:
      'in the run’s first activation, last of the three inert-start IDs (RunVersion.takeUpAtFirstActivation)',
  },
  NO_INERT_LOCAL_START: {
    level: 7,
    id: 'v0.4.1-no-inert-local-job-start',
    effect: 'inert local starts off again for new runs',
    release: 'v0.4.1',
    asked: 'in the run’s first activation, second of the three (RunVersion.takeUpAtFirstActivation)',
  },
  INERT_LOCAL_START_GUARDED: {
    level: 8,
    id: 'v0.4.2-inert-local-job-start',
    effect: 'inert local starts on again, under the stale-clock guard',
    release: 'v0.4.2',
    asked: 'in the run’s first activation, first of the three (RunVersion.takeUpAtFirstActivation)',
  },
  TARGETS_BOUND: {
    level: 9,
    id: 'v0.5-targets-bound-to-tenant',
    effect:
      'a child JOB start is authorized first; a revoked owner’s trigger, backfill and queue are refused',
    release: 'v0.5.0',
    asked:
      'at the top of every pass of the loop until true (RunVersion.takeUpAtTopOfPass), never in runs with local activities',
  },
  BOUNDED_HANDOFFS: {
    level: 10,
    id: 'v0.5.1-bounded-handoffs',
    effect:
      'at most handoffBound() hand-offs in flight; continue-as-new past 2 MiB; the payload once per hand-off',
    release: 'v0.5.1',
    asked:
      'at the top of every pass of the loop until true (RunVersion.takeUpAtTopOfPass), after TARGETS_BOUND',
  },
  TZ_HORIZON: {
    level: 11,
    id: 'v0.6-tz-horizon',
    effect:
      'a buffered slot fires only on instants computed at most TZ_HORIZON before it (else recomputed first); recompute and tz notes applied; SchedulerTzVersion and SchedulerZones shown',
    release: 'v0.6.0',
    asked:
      'at the top of every pass of the loop until true (RunVersion.takeUpAtTopOfPass), after BOUNDED_HANDOFFS',
  },
  ARMED_HANDOFFS: {
    level: 12,
    id: 'v0.8-armed-handoffs',
    effect:
      'a recurring ALLOW JOB is started ahead of its slot with a start delay to its instant (armLeadMs); pause, edit, cancel and revocation disarm what has not begun',
    release: 'v0.8.0',
    asked: 'at the top of every pass of the loop until true (RunVersion.takeUpAtTopOfPass), after TZ_HORIZON',
  },
  RETIRE_ONTO_V2: {
    level: 13,
    id: 'v0.11-retire-onto-v2',
    effect:
      'a run of the first type that behaves as one born knowing KNOWN_AT_BIRTH_V2 continues as new as SCHEDULE_WORKFLOW_TYPE',
    release: 'v0.11.0',
    asked:
      'where first needed: at continue-as-new, after VERSION_MEMO, in runs of the first type that behave as born knowing (RunVersion.retiresOntoV2)',
  },
  RECOMPUTE_DISARMS: {
    level: 14,
    id: 'v0.11-recompute-disarms',
    effect:
      'a requested recompute takes back the armed jobs that have not begun and computes their slots again with the rest',
    release: 'v0.11.0',
    asked: 'where first needed: in a requested recompute that will recompute, with jobs armed; never hoist',
  },
  POLICY_DISARMS: {
    level: 15,
    id: 'v0.11-policy-disarms',
    effect:
      'armed jobs whose target a changed tenant policy refuses (armedTargetsRefused) are taken back, their occurrences SKIPPED',
    release: 'v0.11.0',
    asked: 'where first needed: at an armedTargetsRefused signal, with one of its jobs armed; never hoist',
  },
  BATCHED_ARMING: {
    level: 16,
    id: 'v0.11-batched-arming',
    effect:
      'the slots a schedule armed ahead arms in one pass are started by one activity (startJobWorkflows), their results in one marker',
    release: 'v0.11.0',
    asked:
      'where first needed: in a pass of a run armed ahead (armAheadMs) that arms two slots or more; never hoist',
  },
} as const;

export type Patch = (typeof PATCHES)[keyof typeof PATCHES];

/**
 * The patches a run of SCHEDULE_WORKFLOW_TYPE was born knowing: every row up to ARMED_HANDOFFS (0.9 and
 * before). A later patch gets a later level and is asked in these runs too, until a new workflow type is
 * born knowing it.
 */
export const KNOWN_AT_BIRTH_V2 = PATCHES.ARMED_HANDOFFS.level;

/**
 * Which rows of PATCHES a run follows: the only way its behaviour depends on its history's age (`has`, the
 * model is Temporal's `hasMinVersion`). A row up to `knownAtBirth` is followed without asking; any other is
 * followed once `patched()` answered true where the table's `asked` says — and only there, so that every
 * history meets its markers where the release that recorded it asked them:
 * - at the run's first activation (`takeUpAtFirstActivation`, before any other `wf.*` call): decided once;
 * - at the top of every pass of the loop until true (`takeUpAtTopOfPass`): a run switches at its next pass;
 * - where first needed (`ask`): SMALL_FIRST_BATCH and VERSION_MEMO, asked again each time until true.
 * A row answered false stays false until asked again; nothing else reads `patched()`.
 */
export class RunVersion {
  private readonly taken = new Set<number>();

  constructor(readonly knownAtBirth: number) {}

  has(patch: Patch): boolean {
    return patch.level <= this.knownAtBirth || this.taken.has(patch.level);
  }

  /** Asks `patch` unless the run follows it already (a new history records its marker). */
  ask(patch: Patch): boolean {
    if (!this.has(patch) && wf.patched(patch.id)) this.taken.add(patch.level);
    return this.has(patch);
  }

  /** The rows of the first activation, in the order and with the short-circuits every release asked them. */
  takeUpAtFirstActivation(): this {
    this.ask(PATCHES.PER_FIRE_COST);
    this.ask(PATCHES.HANDLERS_WHILE_DRAINING);
    // Runs with local activities (0.2 and before) never knew the inert starts.
    if (!this.ask(PATCHES.NO_LOCAL_ACTIVITIES)) return this;
    // Newest first: a history of 0.4.1 answers the switch-off, and 0.4.0's ID is then not asked.
    if (!this.ask(PATCHES.INERT_LOCAL_START_GUARDED) && !this.ask(PATCHES.NO_INERT_LOCAL_START))
      this.ask(PATCHES.INERT_LOCAL_START);
    return this;
  }

  /** The rows a run takes up at the top of a pass (no local activity in flight), each until true. */
  takeUpAtTopOfPass(): void {
    if (usesLocalActivities(this)) return;
    this.ask(PATCHES.TARGETS_BOUND);
    this.ask(PATCHES.BOUNDED_HANDOFFS);
    this.ask(PATCHES.TZ_HORIZON);
    this.ask(PATCHES.ARMED_HANDOFFS);
  }
}

/**
 * The rows whose effect a run born knowing KNOWN_AT_BIRTH_V2 has: a run of the first type that follows them
 * all behaves as one of the second. SMALL_FIRST_BATCH and VERSION_MEMO are asked where first needed (true
 * in any run a current worker records); the two older inert-start rows are superseded by the guarded one.
 */
const BEHAVIOUR_OF_V2 = [
  PATCHES.PER_FIRE_COST,
  PATCHES.HANDLERS_WHILE_DRAINING,
  PATCHES.NO_LOCAL_ACTIVITIES,
  PATCHES.INERT_LOCAL_START_GUARDED,
  PATCHES.TARGETS_BOUND,
  PATCHES.BOUNDED_HANDOFFS,
  PATCHES.TZ_HORIZON,
  PATCHES.ARMED_HANDOFFS,
];

/**
 * Whether this run's next one starts as SCHEDULE_WORKFLOW_TYPE (asked at continue-as-new): a run of the
 * first type retires onto the second once it behaves as one, so the first type's runs end with the
 * schedules that need its old paths. Runs born knowing never ask.
 */
export function retiresOntoV2(v: RunVersion): boolean {
  if (v.knownAtBirth >= KNOWN_AT_BIRTH_V2) return false;
  return BEHAVIOUR_OF_V2.every((patch) => v.has(patch)) && v.ask(PATCHES.RETIRE_ONTO_V2);
}

// The two rows whose effect is not one `has`: named by what the run does.
/** Slot batches and job starts are local activities of the deciding task (runs of 0.2 and before). */
export const usesLocalActivities = (v: RunVersion): boolean => !v.has(PATCHES.NO_LOCAL_ACTIVITIES);
/** A recurring ALLOW JOB whose start wakes nothing starts within its task (0.4.0, and 0.4.2 on). */
export const startsJobsInertly = (v: RunVersion): boolean =>
  !usesLocalActivities(v) &&
  (v.has(PATCHES.INERT_LOCAL_START_GUARDED) ||
    (!v.has(PATCHES.NO_INERT_LOCAL_START) && v.has(PATCHES.INERT_LOCAL_START)));

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
