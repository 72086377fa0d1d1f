// The calendar's side of a schedule: the buffer of computed slots, the cursor the next batch continues
// from, the watermark below which every slot is decided, and the tz horizon that bounds how long computed
// instants are trusted. The only writer of those fields (state.ts, STATE_OWNERS); slots leave it through
// `takeDue` and `takeFirst` and come back through `putBack`.
import * as wf from '@temporalio/workflow';
import type { Slot } from '../../calendar/index.js';
import type { RecomputeRecord, ScheduleSpec } from '../../model/contracts.js';
import type { SlotBatch, SlotBatchRequest } from '../../model/slots.js';
import { withoutPayload } from '../../model/views.js';
import {
  followsChangingData,
  holidayDataOlderThan,
  oldestHolidayVersion,
  oldestTzVersion,
} from '../../model/zones.js';
import { workflowNowIso } from '../clock.js';
import { FIRST_SLOT_BATCH } from '../definitions.js';
import { PATCHES, type RunVersion, usesLocalActivities } from '../patches.js';
import { horizonRefresh, movedSlots, splitDue } from '../policy.js';
import { activityCause } from './hand-off.js';
import { localActivities } from './legacy.js';
import {
  IN_FORCE_KEPT,
  isFixedDelay,
  type ScheduleState,
  SLOT_BATCH,
  TZ_HORIZON_MS,
  type TzState,
} from './state.js';

type SlotActivities = { computeSlotBatch(r: SlotBatchRequest): Promise<SlotBatch> };
const slotActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
} satisfies wf.ActivityOptions;
const slotsInTask = wf.proxyActivities<SlotActivities>(slotActivityOptions);
const slotsLocally = localActivities.slots(slotActivityOptions);

/** What the generator asks of the rest of the run before it computes more slots. */
export interface SlotDemand {
  /** How far past now the buffer must reach (the arming lead, when slots are armed). */
  aheadMs(): number;
  /** FIXED_DELAY: an occurrence is still active, so the next slot cannot be known yet. */
  awaitingCompletion(): boolean;
}

export class SlotGenerator {
  readonly computeSlotBatch: SlotActivities['computeSlotBatch'];

  constructor(
    private readonly s: ScheduleState,
    private readonly version: RunVersion,
    private readonly demand: SlotDemand,
    /** The SDK's first batch (recorded in the start event), used instead of the first slot activity. */
    private givenFirstBatch: SlotBatch | undefined,
  ) {
    this.computeSlotBatch = (usesLocalActivities(version) ? slotsLocally : slotsInTask).computeSlotBatch;
  }

  get buffered(): readonly Slot[] {
    return this.s.buffer;
  }

  request(after: string, extra: Partial<SlotBatchRequest> = {}): SlotBatchRequest {
    const s = this.s;
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
  async fill(now: number): Promise<void> {
    const s = this.s;
    // FIXED_DELAY counts from the previous completion, so its next slot exists only once that is known.
    // One slot at a time: the next is computed only once the buffered one fired and its job finished.
    if (isFixedDelay(s.spec) && (s.buffer.length > 0 || this.demand.awaitingCompletion())) return;
    // Arming takes the slots within the lead: one beyond it tells when to wake next.
    const ahead = this.demand.aheadMs();
    while (!s.exhausted) {
      const last = s.buffer.at(-1);
      if (last && Date.parse(last.fireAt) > now + ahead) return;
      // No cursor yet: the first batch of this calendar (a new schedule, or just edited).
      const first = s.cursor === null && this.version.ask(PATCHES.SMALL_FIRST_BATCH);
      const batch =
        this.givenFirstBatch ??
        (await this.computeSlotBatch(
          this.request(last?.scheduledFor ?? s.watermark, first ? { count: FIRST_SLOT_BATCH } : {}),
        ));
      this.givenFirstBatch = undefined;
      this.append(batch, now);
      if (isFixedDelay(s.spec)) return;
      if (batch.slots.length === 0) return;
    }
  }

  private append(batch: SlotBatch, now: number): void {
    const s = this.s;
    s.buffer.push(...batch.slots);
    s.cursor = batch.cursor;
    s.exhausted = batch.exhausted;
    // Every earlier buffered slot is due by now: the buffer's future is this batch's.
    if (this.version.has(PATCHES.TZ_HORIZON)) s.computedAt = new Date(now).toISOString();
  }

  /** The slots due at `now`, taken out of the buffer; the watermark moves past them. */
  takeDue(now: number): Slot[] {
    const s = this.s;
    const { due, later } = splitDue(s.buffer, now);
    if (due.length === 0) return [];
    s.buffer = later;
    s.watermark = due.at(-1)!.scheduledFor;
    return due;
  }

  /** The first `count` buffered slots, taken out to be armed; the watermark moves past them. */
  takeFirst(count: number): Slot[] {
    const s = this.s;
    const taken = s.buffer.slice(0, count);
    if (taken.length === 0) return taken;
    s.buffer = s.buffer.slice(taken.length);
    s.watermark = taken.at(-1)!.scheduledFor;
    return taken;
  }

  /** Slots taken back (disarmed by a pause): buffered again, the watermark before them. */
  putBack(slots: readonly Slot[]): void {
    const s = this.s;
    if (slots.length === 0) return;
    s.buffer = [...slots, ...s.buffer];
    const before = new Date(Date.parse(slots[0]!.scheduledFor) - 1).toISOString();
    if (Date.parse(before) < Date.parse(s.watermark)) s.watermark = before;
  }

  /**
   * A new definition: nothing buffered, the next batch its first. The watermark moves to `watermarkMs`, or
   * (`atLeast`) only forward to it: what is decided stays decided.
   */
  startOver(watermarkMs: number, atLeast: boolean): void {
    const s = this.s;
    if (!atLeast || Date.parse(s.watermark) < watermarkMs) s.watermark = new Date(watermarkMs).toISOString();
    s.buffer = [];
    s.cursor = null;
    s.exhausted = false;
  }

  /**
   * An edit took effect (after startOver): its definition decides the slots after the watermark. The first
   * edit also records the definition it replaced when that was the first (in force since creation).
   */
  recordInForce(previous: { version: number; spec: ScheduleSpec }): void {
    const s = this.s;
    const log =
      s.inForce ??
      (previous.version === 1
        ? [{ version: 1, from: s.createdAt, spec: withoutPayload(previous.spec) }]
        : []);
    s.inForce = [...log, { version: s.version, from: s.watermark, spec: withoutPayload(s.spec) }].slice(
      -IN_FORCE_KEPT,
    );
  }

  /** A cancelled schedule computes nothing more. */
  clear(): void {
    this.s.buffer = [];
  }

  /** Whether the buffered slots must be computed again now, or when (PATCHES.TZ_HORIZON). */
  horizon(now: number) {
    const s = this.s;
    // Instants in UTC alone, on no business-day calendar, follow no data a deploy changes: nothing to refresh.
    if (!this.version.has(PATCHES.TZ_HORIZON) || isFixedDelay(s.spec) || !followsChangingData(s.spec))
      return { now: false, wakeAtMs: null };
    const next = s.buffer[0];
    return horizonRefresh({
      nextFireAtMs: next ? Date.parse(next.fireAt) : null,
      computedAtMs: s.computedAt ? Date.parse(s.computedAt) : null,
      nowMs: now,
      horizonMs: TZ_HORIZON_MS,
    });
  }

  private tzState(): TzState {
    this.s.tz ??= { horizonRefreshes: 0, recomputes: 0, last: null, newer: null };
    return this.s.tz;
  }

  /**
   * Drops the buffered slots that are not due yet and computes them again, with the rules of the worker that
   * runs the slot activity: the horizon's refresh, or a recompute someone asked for (`reason`).
   */
  async recompute(now: number, reason: 'horizon' | string): Promise<RecomputeRecord | Error> {
    const s = this.s;
    const kept = { buffer: s.buffer, cursor: s.cursor, exhausted: s.exhausted };
    const { due, later: dropped } = splitDue(s.buffer, now);
    s.buffer = due;
    s.cursor = null;
    s.exhausted = false;
    try {
      // As many slots as a batch, not a new calendar's first few: the recomputation covers what it dropped.
      if (!isFixedDelay(s.spec))
        this.append(await this.computeSlotBatch(this.request(due.at(-1)?.scheduledFor ?? s.watermark)), now);
      await this.fill(now);
    } catch (err) {
      // The slots computed before stay, trusted for another horizon: a schedule never dies of a recompute.
      s.buffer = kept.buffer;
      s.cursor = kept.cursor;
      s.exhausted = kept.exhausted;
      if (this.version.has(PATCHES.TZ_HORIZON)) s.computedAt = new Date(now).toISOString();
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

  /** A newer worker's tz release, kept for describe until a recompute with it (or newer) happened. */
  noteNewerTz(version: string): void {
    const tz = this.tzState();
    if (tz.newer && tz.newer.version >= version) return;
    tz.newer = { version, seen_at: workflowNowIso() };
  }

  /** Newer holiday data a worker has, kept for describe until a recompute with it (or newer). */
  noteNewerHolidays(version: string): void {
    const s = this.s;
    if (s.holidaysNewer && !holidayDataOlderThan(s.holidaysNewer.version, version)) return;
    s.holidaysNewer = { version, seen_at: workflowNowIso() };
  }
}
