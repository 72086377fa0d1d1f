// One run of a schedule's workflow (until it ends or continues as new): the slot pipeline (buffer → due
// slots → fires → occurrences → hand-offs), the queue, what listings see, and the loop that sleeps between.
// Handlers only enqueue commands (./handlers.ts); the loop applies them (./commands.ts) between slot
// decisions, so an edit, pause or trigger that arrives while a slot is due is applied after that slot.
import * as wf from '@temporalio/workflow';
import type { Slot } from '../../calendar/index.js';
import { armAtMs } from '../../model/arming.js';
import type { Occurrence, RecomputeRecord } from '../../model/contracts.js';
import type { SlotBatch, SlotBatchRequest } from '../../model/slots.js';
import { isTerminal } from '../../model/views.js';
import {
  followsChangingData,
  holidayDataOlderThan,
  oldestHolidayVersion,
  oldestTzVersion,
} from '../../model/zones.js';
import { workflowNow, workflowNowIso } from '../clock.js';
import { FIRST_SLOT_BATCH, VERSION_MEMO } from '../definitions.js';
import { askSmallFirstBatch, askVersionMemo, type Behaviour, PatchesAskedEachPass } from '../patches.js';
import {
  admit,
  applyMisfirePolicy,
  handoffBound,
  horizonRefresh,
  inertEligible,
  movedSlots,
  runOutcome,
  slotsToArm,
  splitDue,
} from '../policy.js';
import { applyCommand } from './commands.js';
import { activityCause, type HandOffContext, handOffNow, type InFlight } from './hand-off.js';
import { disarmJob } from './job-start.js';
import { Ledger } from './ledger.js';
import {
  ARMED_AT_MOST,
  CONTINUE_AS_NEW_AFTER_BYTES,
  type Command,
  continuedInput,
  DEFAULT_CONTINUE_AS_NEW_AFTER,
  DISARM_GUARD_MS,
  endsAfterItsSlots,
  FIRES_PER_PASS,
  INERT_START_SPACING_MS,
  initialState,
  isFixedDelay,
  type PendingFire,
  type ScheduleState,
  type ScheduleWorkflowInput,
  SLOT_BATCH,
  TZ_HORIZON_MS,
  type TzState,
  watchesCompletion,
} from './state.js';
import { changedAttributes, currentDetails, visibilityOf } from './views.js';

/** Why armed jobs are disarmed, and what becomes of their occurrences. */
export type DisarmCause = 'pause' | 'edit' | 'cancel' | 'revoke';

type SlotActivities = { computeSlotBatch(r: SlotBatchRequest): Promise<SlotBatch> };
const slotActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
} satisfies wf.ActivityOptions;
const slotsLocally = wf.proxyLocalActivities<SlotActivities>(slotActivityOptions);
const slotsInTask = wf.proxyActivities<SlotActivities>(slotActivityOptions);

export class ScheduleRun implements HandOffContext {
  readonly state: ScheduleState;
  readonly ledger: Ledger;
  readonly asked: PatchesAskedEachPass;
  readonly commands: Command[] = [];
  readonly inFlight: InFlight = { handoffs: 0, jobStarts: 0, inert: 0 };
  readonly computeSlotBatch: SlotActivities['computeSlotBatch'];
  readonly defaultJobTaskQueue: string;
  /** Set by whatever finished while the loop slept (a hand-off, an awaited job). */
  private wake = false;
  /** The SDK's first batch (recorded in the start event), used instead of the first slot activity. */
  private givenFirstBatch: SlotBatch | undefined;
  private readonly continueAsNewAfter: number;
  /** input.armLeadMs: how long before its slot a JOB is armed (0: never). */
  private readonly armLeadMs: number;
  private shownAttributes = '';
  /** The payload's size, measured once per version of the definition. */
  private payloadOf: { version: number; chars: number } | null = null;

  constructor(
    private readonly input: ScheduleWorkflowInput,
    readonly behaviour: Behaviour,
  ) {
    this.asked = new PatchesAskedEachPass(behaviour);
    this.computeSlotBatch = (behaviour.localActivities ? slotsLocally : slotsInTask).computeSlotBatch;
    this.givenFirstBatch =
      input.state === undefined && !behaviour.localActivities ? input.firstBatch : undefined;
    this.state = input.state ?? initialState(input, input.createdAt ?? workflowNowIso());
    this.ledger = new Ledger(this.state);
    this.continueAsNewAfter = input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER;
    this.defaultJobTaskQueue = input.defaultJobTaskQueue;
    this.armLeadMs = input.armLeadMs ?? 0;
  }

  wakeLoop(): void {
    this.wake = true;
  }

  historyIsFull(): boolean {
    const info = wf.workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > this.continueAsNewAfter ||
      (this.asked.handoffsBounded && info.historySize > CONTINUE_AS_NEW_AFTER_BYTES)
    );
  }

  // ---------------------------------------------------------------- slots

  slotRequest(after: string, extra: Partial<SlotBatchRequest> = {}): SlotBatchRequest {
    const s = this.state;
    return {
      scheduleId: s.identity.schedule_id,
      spec: s.spec,
      createdAt: s.createdAt,
      after,
      count: SLOT_BATCH,
      ...(s.cursor ? { cursor: s.cursor } : {}),
      ...(s.lastCompletedAt ? { lastCompletedAt: s.lastCompletedAt } : {}),
      ...extra,
    };
  }

  /** Keeps at least one future slot buffered (or all due ones), computing batches in an activity. */
  async fillBuffer(now: number): Promise<void> {
    const s = this.state;
    // FIXED_DELAY counts from the previous completion, so its next slot exists only once that is known.
    // One slot at a time: the next is computed only once the buffered one fired and its job finished.
    if (isFixedDelay(s.spec) && (s.buffer.length > 0 || this.ledger.activeCount() > 0 || s.queue.length > 0))
      return;
    // Arming takes the slots within the lead: one beyond it tells when to wake next.
    const ahead = this.armsJobs() ? this.armLeadMs : 0;
    while (!s.exhausted) {
      const last = s.buffer.at(-1);
      if (last && Date.parse(last.fireAt) > now + ahead) return;
      // No cursor yet: the first batch of this calendar (a new schedule, or just edited).
      const first = s.cursor === null && askSmallFirstBatch(this.behaviour);
      const batch =
        this.givenFirstBatch ??
        (await this.computeSlotBatch(
          this.slotRequest(last?.scheduledFor ?? s.watermark, first ? { count: FIRST_SLOT_BATCH } : {}),
        ));
      this.givenFirstBatch = undefined;
      this.append(batch, now);
      if (isFixedDelay(s.spec)) return;
      if (batch.slots.length === 0) return;
    }
  }

  private append(batch: SlotBatch, now: number): void {
    const s = this.state;
    s.buffer.push(...batch.slots);
    s.cursor = batch.cursor;
    s.exhausted = batch.exhausted;
    // Every earlier buffered slot is due by now: the buffer's future is this batch's.
    if (this.asked.tzHorizon) s.computedAt = new Date(now).toISOString();
  }

  private decideDueSlots(now: number): void {
    const s = this.state;
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
      const late = d.action === 'FIRE' && d.late;
      const fire: PendingFire = { slot: d.slot, trigger: 'SCHEDULE', late, reason: d.reason };
      if (d.action === 'FIRE') s.pendingFires.push(fire);
      else this.ledger.skip(fire, d.reason, d.counter);
    }
  }

  /**
   * A revoked owner's schedule keeps its calendar but hands nothing off: each slot is recorded as refused,
   * so the gap is auditable and a takeover resumes from the next slot.
   */
  private firePending(inert: boolean): void {
    const s = this.state;
    for (const fire of s.pendingFires.splice(0, FIRES_PER_PASS)) {
      if (s.ownerRevoked) this.ledger.skip(fire, `refused: ${s.ownerRevoked.reason}`);
      else this.emit(fire, inert);
    }
  }

  async processDueSlots(): Promise<void> {
    // Slots are judged at the instant of the wake (on time or late, by the misfire policy), even when a
    // slot batch had to be fetched first: since 0.3 that fetch is an activity whose result comes with a
    // later workflow task (a local activity's came with the same one, whose time is the wake's).
    const now = workflowNow();
    this.settleArmed(now);
    await this.fillBuffer(now);
    this.decideDueSlots(this.behaviour.localActivities ? workflowNow() : now);
    const refresh = this.horizon(now).now;
    const toArm = refresh ? [] : this.takeSlotsToArm(now);
    const inert = !refresh && this.startsMayBeInert(now);
    this.firePending(inert);
    this.arm(toArm, inert);
    if (refresh) await this.recomputeBuffer(now, 'horizon');
  }

  // ---------------------------------------------------------------- armed hand-offs

  /**
   * Whether this schedule's slots are armed (PATCHES.ARMED_HANDOFFS): a recurring ALLOW JOB, which nothing
   * waits for and whose start the instant alone decides, of an active schedule whose owner has a key.
   */
  private armsJobs(): boolean {
    const s = this.state;
    return (
      this.asked.armedHandoffs &&
      this.armLeadMs > 0 &&
      s.spec.target.type === 'JOB' &&
      !watchesCompletion(s.spec) &&
      s.status === 'ACTIVE' &&
      !s.ownerRevoked
    );
  }

  /**
   * When the next buffered slot needs this schedule: its arming point, or its instant. With half of
   * ARMED_AT_MOST armed or more, not before all but that half began: a frequent schedule then wakes once
   * per several slots and arms them in one task (each still armed before its instant).
   */
  private nextSlotWakeMs(): number | null {
    const s = this.state;
    const next = s.buffer[0];
    if (!next) return null;
    const fireAtMs = Date.parse(next.fireAt);
    if (!this.armsJobs()) return fireAtMs;
    const armAt = armAtMs(fireAtMs, this.armLeadMs, s.identity.schedule_id);
    const half = Math.floor(ARMED_AT_MOST / 2);
    const armed = s.armed ?? [];
    return armed.length < half ? armAt : Math.max(armAt, Date.parse(armed[armed.length - half]!.slot.fireAt));
  }

  /** The buffered slots to arm in this pass, taken out of the buffer (within the bound on hand-offs). */
  private takeSlotsToArm(now: number): Slot[] {
    if (!this.armsJobs()) return [];
    const s = this.state;
    const room = this.asked.handoffsBounded
      ? this.handoffLimit() -
        this.inFlight.handoffs -
        s.pendingFires.length -
        (s.awaitingHandoff?.length ?? 0)
      : FIRES_PER_PASS;
    const slots = slotsToArm({
      buffer: s.buffer,
      nowMs: now,
      leadMs: this.armLeadMs,
      spreadKey: s.identity.schedule_id,
      limit: Math.max(0, Math.min(FIRES_PER_PASS, room, ARMED_AT_MOST - (s.armed?.length ?? 0))),
    });
    s.buffer = s.buffer.slice(slots.length);
    return slots;
  }

  /** Starts each slot's job now, begun by the server at the slot's instant. */
  private arm(slots: readonly Slot[], inert: boolean): void {
    const s = this.state;
    for (const slot of slots) {
      s.watermark = slot.scheduledFor;
      const fire: PendingFire = { slot, trigger: 'SCHEDULE', late: false, reason: null };
      if (this.ledger.emittedBefore(fire)) continue;
      const id = this.ledger.idOf(slot.scheduledFor);
      const occ = this.ledger.newOccurrence(fire);
      occ.status = 'DISPATCHING';
      this.ledger.remember(occ);
      s.armed = [...(s.armed ?? []), { occurrenceId: id, slot }];
      const reuseDisarmed = s.disarmed?.some((d) => d.occurrenceId === id) ?? false;
      if (reuseDisarmed) s.disarmed = s.disarmed!.filter((d) => d.occurrenceId !== id);
      handOffNow(this, occ, false, inert, { beginAt: slot.fireAt, reuseDisarmed });
    }
    if (slots.length > 0)
      wf.log.info('slots armed', { count: slots.length, first: slots[0]!.fireAt, lead_ms: this.armLeadMs });
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
   * becomes of its occurrence depends on `cause`. Returns the slots taken back (a pause puts them back in
   * the buffer; an edit computes its own). An armed job that began (or could not be reached) stays
   * armed, with a note: it runs.
   */
  async disarm(cause: DisarmCause, reason: string): Promise<Slot[]> {
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
        occ.reason = [occ.reason, `not disarmed (${cause}): ${detail}`].filter(Boolean).join('; ');
        return;
      }
      s.armed = (s.armed ?? []).filter((x) => x.occurrenceId !== a.occurrenceId);
      const ended = cause === 'cancel' ? 'CANCELLED' : cause === 'revoke' ? 'SKIPPED' : null;
      this.ledger.recordDisarmed(occ, ended && { status: ended, reason });
      taken.push(a.slot);
    });
    wf.log.info('armed jobs disarmed', { cause, disarmed: taken.length, armed: candidates.length });
    return taken;
  }

  // ---------------------------------------------------------------- the tz horizon

  /** Whether the buffered slots must be computed again now, or when (PATCHES.TZ_HORIZON). */
  private horizon(now: number) {
    const s = this.state;
    // Instants in UTC alone, on no business-day calendar, follow no data a deploy changes: nothing to refresh.
    if (!this.asked.tzHorizon || isFixedDelay(s.spec) || !followsChangingData(s.spec))
      return { now: false, wakeAtMs: null };
    const next = s.buffer[0];
    return horizonRefresh({
      nextFireAtMs: next ? Date.parse(next.fireAt) : null,
      computedAtMs: s.computedAt ? Date.parse(s.computedAt) : null,
      nowMs: now,
      horizonMs: TZ_HORIZON_MS,
    });
  }

  tzState(): TzState {
    this.state.tz ??= { horizonRefreshes: 0, recomputes: 0, last: null, newer: null };
    return this.state.tz;
  }

  /**
   * Drops the buffered slots that are not due yet and computes them again, with the rules of the worker that
   * runs the slot activity: the horizon's refresh, or a recompute someone asked for (`reason`).
   */
  async recomputeBuffer(now: number, reason: 'horizon' | string): Promise<RecomputeRecord | Error> {
    const s = this.state;
    const kept = { buffer: s.buffer, cursor: s.cursor, exhausted: s.exhausted };
    const { due, later: dropped } = splitDue(s.buffer, now);
    s.buffer = due;
    s.cursor = null;
    s.exhausted = false;
    try {
      // As many slots as a batch, not a new calendar's first few: the recomputation covers what it dropped.
      if (!isFixedDelay(s.spec))
        this.append(
          await this.computeSlotBatch(this.slotRequest(due.at(-1)?.scheduledFor ?? s.watermark)),
          now,
        );
      await this.fillBuffer(now);
    } catch (err) {
      // The slots computed before stay, trusted for another horizon: a schedule never dies of a recompute.
      Object.assign(s, kept);
      if (this.asked.tzHorizon) s.computedAt = new Date(now).toISOString();
      const cause = activityCause(err) as Error;
      wf.log.warn('recompute failed: the buffered slots stay', { reason, error: cause.message });
      return new Error(`the slots could not be computed again (they stay as they were): ${cause.message}`);
    }
    const recomputed = splitDue(s.buffer, now).later;
    const record: RecomputeRecord = {
      at: new Date(now).toISOString(),
      reason,
      dropped: dropped.length,
      moved: movedSlots(dropped, recomputed, s.exhausted),
      tz_version: oldestTzVersion(recomputed),
    };
    const tz = this.tzState();
    if (reason === 'horizon') tz.horizonRefreshes += 1;
    else {
      tz.recomputes += 1;
      tz.lastRequestedAt = record.at;
    }
    tz.last = record;
    if (tz.newer && record.tz_version !== null && record.tz_version >= tz.newer.version) tz.newer = null;
    const data = oldestHolidayVersion(recomputed);
    if (s.holidaysNewer && data !== null && !holidayDataOlderThan(data, s.holidaysNewer.version))
      s.holidaysNewer = null;
    if (record.moved > 0)
      wf.log.info('recomputed slots moved', { moved: record.moved, tz_version: record.tz_version, reason });
    return record;
  }

  /** Whether this pass's job starts may be inert: the task ends asleep on a timer (policy.inertEligible). */
  private startsMayBeInert(now: number): boolean {
    const s = this.state;
    return inertEligible({
      enabled: this.behaviour.inertLocalStarts,
      active: s.status === 'ACTIVE',
      commandsWaiting: this.commands.length,
      pendingFires: s.pendingFires.length,
      firesPerPass: FIRES_PER_PASS,
      nextFireAtMs: this.nextSlotWakeMs(),
      nowMs: now,
      spacingMs: INERT_START_SPACING_MS,
      historyFull: this.historyIsFull(),
      bounded: this.asked.handoffsBounded,
      awaitingHandoff: s.awaitingHandoff?.length ?? 0,
      inFlight: this.inFlight.handoffs,
      bound: this.handoffLimit(),
    });
  }

  // ---------------------------------------------------------------- occurrences

  /** Turns a decided slot into an occurrence, through the overlap policy (policy.admit). */
  emit(fire: PendingFire, inert = false): { occurrence: Occurrence; duplicate: boolean } {
    const s = this.state;
    const id = this.ledger.idOf(fire.slot.scheduledFor);
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

  /** The hand-offs this schedule may have under way at once (PATCHES.BOUNDED_HANDOFFS). */
  private handoffLimit(): number {
    const s = this.state;
    if (this.payloadOf?.version !== s.version)
      this.payloadOf = { version: s.version, chars: JSON.stringify(s.spec.target.payload ?? null).length };
    return handoffBound(s.handoffQuota, this.payloadOf.chars);
  }

  learnQuota(told: { inFlightLimit?: number | null }): void {
    if (this.asked.handoffsBounded && told.inFlightLimit !== undefined)
      this.state.handoffQuota = told.inFlightLimit;
  }

  private awaiting() {
    this.state.awaitingHandoff ??= [];
    return this.state.awaitingHandoff;
  }

  /** Marks an occurrence as being handed off; the hand-off starts now, or once there is room for it. */
  private dispatch(occ: Occurrence, late: boolean, inert: boolean): void {
    occ.status = 'DISPATCHING';
    const full = this.inFlight.handoffs >= this.handoffLimit() || this.awaiting().length > 0;
    if (this.asked.handoffsBounded && full) {
      this.awaiting().push({ occurrenceId: occ.occurrence_id, late });
      return;
    }
    handOffNow(this, occ, late, inert);
  }

  /** Hands waiting occurrences off while the bound leaves room (never into a history that is full). */
  private handOffAwaiting(): void {
    const s = this.state;
    const queue = s.awaitingHandoff;
    if (!queue || queue.length === 0) return;
    if (this.historyIsFull()) return;
    while (queue.length > 0 && this.inFlight.handoffs < this.handoffLimit()) {
      const { occurrenceId: id, late } = queue.shift()!;
      const occ = this.ledger.find(id);
      if (occ?.status !== 'DISPATCHING') continue;
      // Decided while the owner still had a key: it is handed off under nobody's permission now.
      if (s.ownerRevoked) this.ledger.markSkipped(occ, `refused: ${s.ownerRevoked.reason}`);
      else handOffNow(this, occ, late, false);
    }
  }

  private drainQueue(): void {
    const s = this.state;
    while (s.queue.length > 0 && this.ledger.activeCount() === 0) {
      const occ = this.ledger.find(s.queue.shift()!);
      if (occ?.status !== 'QUEUED') continue;
      // Queued while the owner still had a key: it is handed off under nobody's permission now.
      if (this.asked.targetsBound && s.ownerRevoked)
        this.ledger.markSkipped(occ, `refused: ${s.ownerRevoked.reason}`);
      else this.dispatch(occ, false, false);
    }
  }

  // ---------------------------------------------------------------- visibility

  refreshVisibility(): void {
    const s = this.state;
    const shown = visibilityOf(s, this.asked.tzHorizon);
    if (shown.key !== this.shownAttributes) {
      this.shownAttributes = shown.key;
      if (this.behaviour.perFireCost) {
        // Only what differs from what the workflow already carries (from its start, the run it continued
        // from, or an earlier upsert): on a fire that is the next run alone.
        const changed = changedAttributes(wf.workflowInfo().typedSearchAttributes, shown.attributes);
        if (changed.length > 0) wf.upsertSearchAttributes(changed);
      } else {
        wf.upsertSearchAttributes(shown.attributes);
      }
    }
    // UI metadata, not a command: changing the details leaves history alone.
    wf.setCurrentDetails(currentDetails(s, shown.next));
  }

  // ---------------------------------------------------------------- the loop

  private async applyCommands(): Promise<void> {
    while (this.commands.length > 0) await applyCommand(this, this.commands.shift()!);
  }

  /**
   * Waits until no hand-off is in flight and every handler finished, or (since the patch) until a command
   * arrived, which only the loop can apply.
   */
  private untilDrainedOrCommanded(): Promise<void> {
    return wf.condition(
      () =>
        (this.behaviour.servesHandlersWhileDraining && this.commands.length > 0) ||
        (this.inFlight.handoffs === 0 && wf.allHandlersFinished()),
    );
  }

  /** An active schedule's pass after its commands: fire, start what queued, end when nothing is left. */
  private async passWhileActive(): Promise<'RUNNING' | 'ENDED'> {
    const s = this.state;
    await this.processDueSlots();
    this.drainQueue();
    const outcome = runOutcome({
      exhausted: s.exhausted,
      // An armed job is the schedule's until its instant: a disarm may still take it back.
      buffered: s.buffer.length + (s.armed?.length ?? 0),
      pendingFires: s.pendingFires.length,
      queued: s.queue.length,
      awaitingHandoff: s.awaitingHandoff?.length ?? 0,
      inFlight: this.inFlight.handoffs,
      running: s.running.length,
      endsAfterItsSlots: endsAfterItsSlots(s.spec),
      failed: s.counters.failed,
    });
    if (outcome === 'RUNNING') return 'RUNNING';
    s.status = outcome;
    s.updatedAt = workflowNowIso();
    return 'ENDED';
  }

  /** Hand-offs in flight finish first, so their results land in this run's state. */
  private async continueAsNewOnceDrained(): Promise<void> {
    await this.untilDrainedOrCommanded();
    if (this.commands.length > 0) return;
    const next = continuedInput(this.input, this.state);
    // The server starts the next run with the first run's memo, not the upserted one: carry it.
    if (askVersionMemo(this.behaviour)) {
      await wf.makeContinueAsNewFunc<(input: ScheduleWorkflowInput) => Promise<unknown>>({
        memo: { ...wf.workflowInfo().memo, [VERSION_MEMO]: this.state.version },
      })(next);
    }
    await wf.continueAsNew<(input: ScheduleWorkflowInput) => Promise<unknown>>(next);
  }

  private async sleep(): Promise<void> {
    const s = this.state;
    const active = s.status === 'ACTIVE';
    const pending = active ? (s.pendingFires[0]?.slot.fireAt ?? null) : null;
    const next = active ? (pending === null ? this.nextSlotWakeMs() : Date.parse(pending)) : null;
    const now = workflowNow();
    // A slot further than the horizon: wake a horizon before it to compute it again.
    const refreshAt = active ? this.horizon(now).wakeAtMs : null;
    // With no slot left to arm, the schedule ends once its armed jobs began: wake at the last instant.
    const lastArmed =
      active && s.buffer.length === 0 && s.exhausted ? s.armed?.at(-1)?.slot.fireAt : undefined;
    const wakeAt = Math.min(
      next ?? Infinity,
      refreshAt ?? Infinity,
      lastArmed ? Date.parse(lastArmed) : Infinity,
    );
    const woken = () => this.wake || this.commands.length > 0;
    if (wakeAt === Infinity) await wf.condition(woken);
    else await wf.condition(woken, Math.max(wakeAt - now, 1));
  }

  /** Runs until the schedule ends (or continues as new, which never returns). */
  async loop(): Promise<void> {
    const s = this.state;
    for (;;) {
      // Whatever woke the loop, inert starts resolve first: live their results may come with the wake's
      // task, on replay before it; after this wait the loop sees the same state either way.
      if (this.behaviour.inertLocalStarts) await wf.condition(() => this.inFlight.inert === 0);
      this.asked.askAtTopOfPass();
      this.wake = false;
      // What was due before a command arrived is handled under the definition it was due under: an edit,
      // pause or cancel that lands on a due slot applies after that slot fired.
      if (s.status === 'ACTIVE') await this.processDueSlots();
      await this.applyCommands();
      if (isTerminal(s.status)) break;
      if (s.status === 'ACTIVE' && (await this.passWhileActive()) === 'ENDED') break;
      // Decided hand-offs go out while paused too: a pause stops new slots, not what was already emitted.
      if (this.asked.handoffsBounded) this.handOffAwaiting();
      this.refreshVisibility();
      // Awaited JOBs report their completion only to the run that started them, so a run that awaits
      // one keeps going until it finished.
      if (this.historyIsFull() && s.running.length === 0) {
        await this.continueAsNewOnceDrained();
        continue;
      }
      if (s.pendingFires.length > 0) continue; // more of a catch-up to hand off
      if (this.inFlight.jobStarts > 0) {
        // Local activities (before v0.3) resolve within this workflow task: live one by one, on replay
        // possibly together; arming the sleep's timer only once all resolved keeps the task's commands (and
        // timer IDs) independent of how their results were batched. A regular activity's start completes
        // with a later task: waiting for it spares a sleep timer cancelled and started again per fire, and
        // a command that arrives meanwhile is applied at once.
        const local = this.behaviour.localActivities;
        await wf.condition(() => this.inFlight.jobStarts === 0 || (!local && this.commands.length > 0));
        continue;
      }
      await this.sleep();
    }
  }

  /** An ended schedule still answers what arrives while its last hand-offs finish (a delete after a cancel). */
  async closeOut(): Promise<void> {
    this.refreshVisibility();
    for (;;) {
      await this.untilDrainedOrCommanded();
      if (this.commands.length === 0) break;
      await this.applyCommands();
      this.refreshVisibility();
    }
  }
}
