// What becomes of decided slots: fires waiting for their pass, the overlap queue, hand-offs waiting for
// room under the schedule's bound, jobs armed ahead of their instant, and awaited jobs still running. The
// only writer of those fields (state.ts, STATE_OWNERS); every occurrence status is the ledger's to write.
import * as wf from '@temporalio/workflow';
import type { Slot } from '../../calendar/index.js';
import { armAtMs, wakeBetweenMs } from '../../model/arming.js';
import type { Occurrence } from '../../model/contracts.js';
import { workflowNow } from '../clock.js';
import { PATCHES, type RunVersion, startsJobsInertly } from '../patches.js';
import { admit, handoffBound, inertEligible, slotsToArm } from '../policy.js';
import type { SlotGenerator } from './generator.js';
import { activityCause, armTogether, type HandOffContext, handOffNow, type InFlight } from './hand-off.js';
import { type ArmedStart, disarmJob } from './job-start.js';
import type { Ledger } from './ledger.js';
import type { Lifecycle } from './lifecycle.js';
import {
  ARMED_AT_MOST,
  DISARM_GUARD_MS,
  FIRES_PER_PASS,
  INERT_START_SPACING_MS,
  type PendingFire,
  type ScheduleState,
  watchesCompletion,
} from './state.js';

/** Why armed jobs are disarmed, and what becomes of their occurrences. */
export type DisarmCause = 'pause' | 'edit' | 'cancel' | 'revoke' | 'recompute' | 'policy';

/** What the invoker reads of the run around it. */
export interface InvokerContext {
  readonly state: ScheduleState;
  readonly version: RunVersion;
  readonly ledger: Ledger;
  readonly lifecycle: Lifecycle;
  readonly generator: SlotGenerator;
  readonly defaultJobTaskQueue: string;
  /** How long before its slot a JOB is armed (0: never): the lead, or how far it arms ahead when longer. */
  readonly armWithinMs: number;
  /** Armed ahead (input.armAheadMs): wakes between slots, not on them. */
  readonly armsAhead: boolean;
  wakeLoop(): void;
  historyIsFull(): boolean;
}

export class Invoker implements HandOffContext {
  readonly inFlight: InFlight = { handoffs: 0, jobStarts: 0, inert: 0, notices: 0 };
  readonly state: ScheduleState;
  readonly version: RunVersion;
  readonly ledger: Ledger;
  readonly defaultJobTaskQueue: string;
  /** The payload's size, measured once per version of the definition. */
  private payloadOf: { version: number; chars: number } | null = null;

  constructor(private readonly run: InvokerContext) {
    this.state = run.state;
    this.version = run.version;
    this.ledger = run.ledger;
    this.defaultJobTaskQueue = run.defaultJobTaskQueue;
  }

  wakeLoop(): void {
    this.run.wakeLoop();
  }

  // ---------------------------------------------------------------- fires

  get pendingFires(): readonly PendingFire[] {
    return this.state.pendingFires;
  }

  /** A slot the misfire policy decided to fire: handed off at this pass or a later one. */
  schedule(fire: PendingFire): void {
    this.state.pendingFires.push(fire);
  }

  /**
   * A revoked owner's schedule keeps its calendar but hands nothing off: each slot is recorded as refused,
   * so the gap is auditable and a takeover resumes from the next slot.
   */
  firePending(inert: boolean): void {
    for (const fire of this.state.pendingFires.splice(0, FIRES_PER_PASS)) {
      const refused = this.run.lifecycle.revocation();
      if (refused) this.ledger.skip(fire, refused);
      else this.emit(fire, inert);
    }
  }

  /** Turns a decided slot into an occurrence, through the overlap policy (policy.admit). */
  emit(fire: PendingFire, inert = false): { occurrence: Occurrence; duplicate: boolean } {
    const s = this.state;
    const id = this.ledger.idOf(fire);
    const existing = this.ledger.emittedBefore(fire);
    if (existing) return { occurrence: existing, duplicate: true };
    const plan = admit(s.spec.overlap, {
      running: this.ledger.activeCount(),
      queued: s.queue.length,
      queueLimit: s.spec.queue_limit,
    });
    if (plan.occurrence === 'SKIP')
      return { occurrence: this.ledger.skip(fire, plan.reason!), duplicate: false };
    if (plan.skipQueued) {
      for (const queuedId of s.queue.splice(0)) {
        const queued = this.ledger.find(queuedId);
        if (queued) this.ledger.markSkipped(queued, `overlap COALESCE: merged into ${id}`);
      }
    }
    if (plan.cancelRunning) this.cancelRunning();
    const occ = this.ledger.newOccurrence(fire);
    if (plan.occurrence === 'ENQUEUE') s.queue.push(id);
    this.ledger.remember(occ);
    if (plan.occurrence === 'START') this.dispatch(occ, fire.late, inert);
    return { occurrence: occ, duplicate: false };
  }

  cancelRunning(): void {
    for (const target of this.state.running)
      void wf
        .getExternalWorkflowHandle(target.workflowId)
        .cancel()
        .catch(() => {});
  }

  /** A cancel: what waits for a pass, the queue or room is dropped; returns the occurrences that waited. */
  dropUndecided(): string[] {
    const s = this.state;
    s.pendingFires = [];
    return [...s.queue.splice(0), ...(s.awaitingHandoff?.splice(0) ?? []).map((a) => a.occurrenceId)];
  }

  // ---------------------------------------------------------------- hand-offs under the bound

  /** The hand-offs this schedule may have under way at once (PATCHES.BOUNDED_HANDOFFS). */
  handoffLimit(): number {
    const s = this.state;
    if (this.payloadOf?.version !== s.version)
      this.payloadOf = { version: s.version, chars: JSON.stringify(s.spec.target.payload ?? null).length };
    // A trigger's or backfill's override may carry more than the definition: the largest in use bounds too.
    const overrides = Object.values(s.overrides ?? {}).map((o) => JSON.stringify(o.payload ?? null).length);
    return handoffBound(s.handoffQuota, Math.max(this.payloadOf.chars, ...overrides));
  }

  learnQuota(told: { inFlightLimit?: number | null }): void {
    if (this.version.has(PATCHES.BOUNDED_HANDOFFS) && told.inFlightLimit !== undefined)
      this.state.handoffQuota = told.inFlightLimit;
  }

  get awaitingHandoff(): number {
    return this.state.awaitingHandoff?.length ?? 0;
  }

  private awaiting() {
    this.state.awaitingHandoff ??= [];
    return this.state.awaitingHandoff;
  }

  /** Marks an occurrence as being handed off; the hand-off starts now, or once there is room for it. */
  private dispatch(occ: Occurrence, late: boolean, inert: boolean): void {
    this.ledger.recordDispatching(occ);
    const full = this.inFlight.handoffs >= this.handoffLimit() || this.awaiting().length > 0;
    if (this.version.has(PATCHES.BOUNDED_HANDOFFS) && full) {
      this.awaiting().push({ occurrenceId: occ.occurrence_id, late });
      return;
    }
    handOffNow(this, occ, late, inert);
  }

  /** Hands waiting occurrences off while the bound leaves room (never into a history that is full). */
  handOffAwaiting(): void {
    const queue = this.state.awaitingHandoff;
    if (!queue || queue.length === 0) return;
    if (this.run.historyIsFull()) return;
    while (queue.length > 0 && this.inFlight.handoffs < this.handoffLimit()) {
      const { occurrenceId: id, late } = queue.shift()!;
      const occ = this.ledger.find(id);
      if (occ?.status !== 'DISPATCHING') continue;
      // Decided while the owner still had a key: it is handed off under nobody's permission now.
      const refused = this.run.lifecycle.revocation();
      if (refused) this.ledger.markSkipped(occ, refused);
      else handOffNow(this, occ, late, false);
    }
  }

  drainQueue(): void {
    const s = this.state;
    while (s.queue.length > 0 && this.ledger.activeCount() === 0) {
      const occ = this.ledger.find(s.queue.shift()!);
      if (occ?.status !== 'QUEUED') continue;
      // Queued while the owner still had a key: it is handed off under nobody's permission now.
      const refused = this.version.has(PATCHES.TARGETS_BOUND) ? this.run.lifecycle.revocation() : null;
      if (refused) this.ledger.markSkipped(occ, refused);
      else this.dispatch(occ, false, false);
    }
  }

  /** An awaited child started: the overlap policy counts it until it finishes. */
  childAwaited(occurrenceId: string, workflowId: string): void {
    this.state.running.push({ occurrenceId, workflowId });
  }

  childFinished(occurrenceId: string): void {
    this.state.running = this.state.running.filter((r) => r.occurrenceId !== occurrenceId);
  }

  /** Whether this pass's job starts may be inert: the task ends asleep on a timer (policy.inertEligible). */
  startsMayBeInert(now: number, commandsWaiting: number): boolean {
    const s = this.state;
    return inertEligible({
      enabled: startsJobsInertly(this.version),
      active: this.run.lifecycle.isActive,
      commandsWaiting,
      pendingFires: s.pendingFires.length,
      firesPerPass: FIRES_PER_PASS,
      nextFireAtMs: this.nextSlotWakeMs(),
      nowMs: now,
      spacingMs: INERT_START_SPACING_MS,
      historyFull: this.run.historyIsFull(),
      bounded: this.version.has(PATCHES.BOUNDED_HANDOFFS),
      awaitingHandoff: this.awaitingHandoff,
      inFlight: this.inFlight.handoffs,
      bound: this.handoffLimit(),
    });
  }

  // ---------------------------------------------------------------- armed hand-offs

  get armedCount(): number {
    return this.state.armed?.length ?? 0;
  }

  get lastArmed(): Slot | undefined {
    return this.state.armed?.at(-1)?.slot;
  }

  /**
   * Whether this schedule's slots are armed (PATCHES.ARMED_HANDOFFS): a recurring ALLOW JOB, which nothing
   * waits for and whose start the instant alone decides, of an active schedule whose owner has a key.
   */
  armsJobs(): boolean {
    const s = this.state;
    return (
      this.version.has(PATCHES.ARMED_HANDOFFS) &&
      this.run.armWithinMs > 0 &&
      s.spec.target.type === 'JOB' &&
      !watchesCompletion(s.spec) &&
      this.run.lifecycle.isActive &&
      this.run.lifecycle.revocation() === null
    );
  }

  /**
   * When the next buffered slot needs this schedule: its arming point, or its instant. With half of
   * ARMED_AT_MOST armed or more, not before all but that half began: a frequent schedule then wakes once
   * per several slots and arms them in one task (each still armed before its instant).
   */
  nextSlotWakeMs(): number | null {
    const next = this.run.generator.buffered[0];
    if (!next) return null;
    const fireAtMs = Date.parse(next.fireAt);
    if (!this.armsJobs()) return fireAtMs;
    const armAt = armAtMs(fireAtMs, this.run.armWithinMs, this.state.identity.schedule_id);
    const half = Math.floor(ARMED_AT_MOST / 2);
    const armed = this.state.armed ?? [];
    if (armed.length < half) return armAt;
    const begun = Date.parse(armed[armed.length - half]!.slot.fireAt);
    // Only schedules armed ahead (their input says so): every other history keeps its timers.
    const following = this.run.armsAhead ? armed[armed.length - half + 1] : undefined;
    const wakeAt = following
      ? wakeBetweenMs(begun, Date.parse(following.slot.fireAt), this.state.identity.schedule_id)
      : begun;
    return Math.max(armAt, wakeAt);
  }

  /** The buffered slots to arm in this pass, taken out of the buffer (within the bound on hand-offs). */
  takeSlotsToArm(now: number): Slot[] {
    if (!this.armsJobs()) return [];
    const s = this.state;
    const room = this.version.has(PATCHES.BOUNDED_HANDOFFS)
      ? this.handoffLimit() - this.inFlight.handoffs - s.pendingFires.length - this.awaitingHandoff
      : FIRES_PER_PASS;
    const slots = slotsToArm({
      buffer: this.run.generator.buffered,
      nowMs: now,
      leadMs: this.run.armWithinMs,
      spreadKey: s.identity.schedule_id,
      limit: Math.max(0, Math.min(FIRES_PER_PASS, room, ARMED_AT_MOST - this.armedCount)),
    });
    return this.run.generator.takeFirst(slots.length);
  }

  /** Starts each slot's job now, begun by the server at the slot's instant. */
  arm(slots: readonly Slot[], inert: boolean): void {
    const s = this.state;
    // Only runs armed ahead (their input says so) arm several slots in a pass often enough to ask.
    const together = this.run.armsAhead && slots.length > 1 && this.version.ask(PATCHES.BATCHED_ARMING);
    const batch: Array<{ occ: Occurrence; armed: ArmedStart }> = [];
    for (const slot of slots) {
      const fire: PendingFire = { slot, trigger: 'SCHEDULE', late: false, reason: null };
      if (this.ledger.emittedBefore(fire)) continue;
      const id = this.ledger.idOf({ slot });
      const occ = this.ledger.newOccurrence(fire);
      this.ledger.recordDispatching(occ);
      this.ledger.remember(occ);
      s.armed = [...(s.armed ?? []), { occurrenceId: id, slot }];
      const reuseDisarmed = s.disarmed?.some((d) => d.occurrenceId === id) ?? false;
      if (reuseDisarmed) s.disarmed = s.disarmed!.filter((d) => d.occurrenceId !== id);
      const armed = { beginAt: slot.fireAt, reuseDisarmed };
      if (together) batch.push({ occ, armed });
      else handOffNow(this, occ, false, inert, armed);
    }
    if (batch.length > 0) armTogether(this, batch, inert);
    if (slots.length > 0)
      wf.log.info('slots armed', {
        count: slots.length,
        first: slots[0]!.fireAt,
        within_ms: this.run.armWithinMs,
      });
  }

  /** Names an arming's start request: a re-arm after a disarm is another request. */
  nextArming(): number {
    this.state.armings = (this.state.armings ?? 0) + 1;
    return this.state.armings;
  }

  /** Armed jobs whose instant passed were begun by the server then (all of them, at +Infinity). */
  settleArmed(now: number): void {
    const s = this.state;
    // A disarmed slot not armed again by its instant never will be: its ID is not reused.
    if (s.disarmed?.length) s.disarmed = s.disarmed.filter((d) => Date.parse(d.fireAt) > now);
    if (!s.armed || s.armed.length === 0) return;
    s.armed = s.armed.filter(({ occurrenceId, slot }) => {
      if (Date.parse(slot.fireAt) > now) return true;
      const occ = this.ledger.find(occurrenceId);
      if (occ?.status === 'DISPATCHING') return true; // its start resolves first
      if (occ?.status === 'ARMED') this.ledger.recordArmedBegun(occ);
      return false;
    });
  }

  /**
   * Terminates every armed job whose instant is further than DISARM_GUARD_MS and that has not begun; what
   * becomes of its occurrence depends on `cause`. Returns the slots taken back (a pause and a recompute put
   * them back in the buffer; an edit computes its own). An armed job that began (or could not be reached)
   * stays armed, with a note: it runs. `only`: these occurrences' jobs, no other.
   */
  async disarm(cause: DisarmCause, reason: string, only?: ReadonlySet<string>): Promise<Slot[]> {
    const s = this.state;
    if (!s.armed || s.armed.length === 0) return [];
    // Starts still in flight resolve first: a disarm must know the job exists.
    await wf.condition(() =>
      (s.armed ?? []).every((a) => this.ledger.find(a.occurrenceId)?.status !== 'DISPATCHING'),
    );
    const now = workflowNow();
    this.settleArmed(now);
    const candidates = (s.armed ?? []).filter(
      (a) =>
        (only === undefined || only.has(a.occurrenceId)) &&
        Date.parse(a.slot.fireAt) - now > DISARM_GUARD_MS &&
        this.ledger.find(a.occurrenceId)?.status === 'ARMED',
    );
    const outcomes = await Promise.all(
      candidates.map((a) =>
        disarmJob({ workflowId: this.ledger.find(a.occurrenceId)!.target_ref, reason }).catch((err) => ({
          outcome: 'UNREACHED' as const,
          detail: (activityCause(err) as Error).message,
        })),
      ),
    );
    const taken: Slot[] = [];
    candidates.forEach((a, i) => {
      const occ = this.ledger.find(a.occurrenceId)!;
      const { outcome, detail } = outcomes[i]!;
      if (outcome !== 'DISARMED') {
        this.ledger.noteNotDisarmed(occ, `not disarmed (${cause}): ${detail}`);
        return;
      }
      s.armed = (s.armed ?? []).filter((x) => x.occurrenceId !== a.occurrenceId);
      const ended =
        cause === 'cancel' ? 'CANCELLED' : cause === 'revoke' || cause === 'policy' ? 'SKIPPED' : null;
      this.ledger.recordDisarmed(occ, ended && { status: ended, reason });
      // Taken back: the slot is the calendar's again, its ID free for a later arming.
      if (!ended)
        s.disarmed = [...(s.disarmed ?? []), { occurrenceId: occ.occurrence_id, fireAt: occ.fire_at }];
      taken.push(a.slot);
    });
    wf.log.info('armed jobs disarmed', { cause, disarmed: taken.length, armed: candidates.length });
    return taken;
  }
}
