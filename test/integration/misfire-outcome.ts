// What a misfire policy did with the slots that fell due during real downtime (a worker outage, a dev
// server restart), read from the schedule's own record and its history. Shared by worker-outage.test.ts
// and dev-server-restart.test.ts, which check that SKIP / FIRE_ONCE / CATCH_UP give 0 / 1 / N.
import { expect } from 'vitest';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { isTransientServerError } from '../helpers/transient.js';
import { groupBy, readRunLines, type Stack } from './support.js';

/** Slots judged this close to the lateness bound could go either way (clock reads differ by a few ms). */
const AMBIGUOUS_MS = 250;

const tsMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

export interface MisfireOutcome {
  description: ScheduleDescription;
  /** The slots that fell due during the downtime, all decided in the first wake after it. */
  missed: Occurrence[];
  late: Occurrence[];
  onTime: Occurrence[];
  ambiguous: Occurrence[];
  firstWake: number;
}

export const fired = (list: Occurrence[]) => list.filter((o) => o.emitted_at !== null);

/**
 * Resolves at an instant mid-way between two slots of the schedules' common grid (within its first quarter
 * slot after the middle) by which every schedule fired at least two slots and decided every slot due before
 * it: an outage begun then leaves no slot before it undecided (in a workflow task the outage would cut off,
 * to be decided late after it) and none near either edge. Waited for, never assumed: on a loaded machine a
 * slot is decided late, or the reads take long, and then the next mid-slot instant is tried. (A query is
 * answered after the workflow task in flight completed: what it shows is recorded.)
 */
export async function twoFiredThenMidSlot(
  stack: Stack,
  scheduleIds: readonly string[],
  anchor: number,
  everyMs: number,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  let why = '';
  while (Date.now() < deadline) {
    const from = Date.now() + 100;
    const mid = anchor + everyMs / 2 + Math.ceil((from - anchor - everyMs / 2) / everyMs) * everyMs;
    await new Promise((r) => setTimeout(r, mid - Date.now()));
    const lastDue = mid - everyMs / 2;
    why = '';
    for (const id of scheduleIds) {
      try {
        const { recent_occurrences } = await stack.sdk.describe(id);
        const latest = Math.max(...recent_occurrences.map((o) => Date.parse(o.fire_at)));
        if (fired(recent_occurrences).length < 2 || latest < lastDue)
          why = `${id}: ${fired(recent_occurrences).length} fired, the slot of ${new Date(lastDue).toISOString()} not decided`;
      } catch (err) {
        if (!isTransientServerError(err)) throw err;
        why = `${id}: ${(err as Error).message}`;
      }
      if (why) break;
    }
    if (!why && Date.now() < mid + everyMs / 4) return;
    why ||= `the reads ended ${Date.now() - mid} ms after the middle of the slot`;
  }
  throw new Error(`no instant mid-way between two slots with every slot so far decided: ${why}`);
}

/**
 * Classifies the slots due in (downAt, first wake after downAt]. No worker task ran during the downtime,
 * so the first workflow task started after `downAt` is the wake that decided every missed slot (the
 * workflow's clock is that task's start).
 */
export async function misfireOutcome(
  stack: Stack,
  scheduleId: string,
  description: ScheduleDescription,
  downAt: number,
  maxLatenessMs: number,
): Promise<MisfireOutcome> {
  const history = await stack.client.workflow
    .getHandle(scheduleWorkflowId('acme', scheduleId))
    .fetchHistory();
  const firstWake = Math.min(
    ...(history.events ?? [])
      .filter((e) => e.workflowTaskStartedEventAttributes && tsMs(e.eventTime) > downAt)
      .map((e) => tsMs(e.eventTime)),
  );
  const missed = description.recent_occurrences.filter((o) => {
    const due = Date.parse(o.fire_at);
    return due > downAt && due <= firstWake;
  });
  const lateness = (o: Occurrence) => firstWake - Date.parse(o.fire_at);
  return {
    description,
    missed,
    late: missed.filter((o) => lateness(o) > maxLatenessMs + AMBIGUOUS_MS),
    onTime: missed.filter((o) => lateness(o) < maxLatenessMs - AMBIGUOUS_MS),
    ambiguous: missed.filter((o) => Math.abs(lateness(o) - maxLatenessMs) <= AMBIGUOUS_MS),
    firstWake,
  };
}

/** One record per slot of the grid, and each fired slot's job ran exactly once (one run). */
export function expectGridAndOneRunEach(outcome: MisfireOutcome, everyMs: number, runLog: string) {
  const { description } = outcome;
  const slots = description.recent_occurrences.map((o) => Date.parse(o.scheduled_for));
  expect(new Set(slots).size).toBe(slots.length);
  for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(everyMs);
  const lines = groupBy(readRunLines(runLog), (l) => l.occurrence_id);
  const id = description.schedule.schedule_id;
  for (const o of fired(description.recent_occurrences)) {
    expect(new Set((lines.get(o.occurrence_id) ?? []).map((r) => r.run_id)).size, o.occurrence_id).toBe(1);
  }
  const ran = [...lines.keys()].filter((x) => x.includes(`/${id}/`)).sort();
  expect(ran).toEqual(
    fired(description.recent_occurrences)
      .map((o) => o.occurrence_id)
      .sort(),
  );
}

/** SKIP: no occurrence for the late slots; on-time ones fire. */
export function expectSkip({ description, late, onTime }: MisfireOutcome) {
  expect(fired(late)).toHaveLength(0);
  for (const o of late) {
    expect(o.status).toBe('SKIPPED');
    expect(o.reason).toMatch(/misfire SKIP/);
  }
  expect(fired(onTime)).toHaveLength(onTime.length);
  expect(description.counters.caught_up).toBe(0);
  expect(description.counters.skipped).toBeGreaterThanOrEqual(late.length);
}

/**
 * Occurrences handed off late (the misfire policy fired them past max_lateness_s). The schedule's
 * `caught_up` counter counts them over its whole life: a slot after the outage, fired late because the
 * worker was still catching up on a loaded machine, is one too (seen in CI), so the counter is checked
 * against the recorded occurrences, the window against `missed`.
 */
const lateFired = (occurrences: readonly Occurrence[]) =>
  occurrences.filter((o) => o.emitted_at !== null && /^late by /.test(o.reason ?? ''));

/** The counter agrees with the record: every late hand-off the schedule remembers, and no other. */
function expectCaughtUpCounted(description: ScheduleDescription) {
  expect(description.counters.caught_up).toBe(lateFired(description.recent_occurrences).length);
}

/** FIRE_ONCE: one occurrence for all the missed slots (the newest late one, if none was on time). */
export function expectFireOnce({ description, missed, late, onTime, ambiguous }: MisfireOutcome) {
  expect(fired(missed)).toHaveLength(1);
  if (onTime.length === 0 && ambiguous.length === 0) {
    const [one] = fired(missed);
    expect(one!.occurrence_id).toBe(late.at(-1)!.occurrence_id);
    expect(one!.reason).toMatch(new RegExp(`FIRE_ONCE: one occurrence for ${late.length} missed slot`));
    expect(lateFired(missed)).toHaveLength(1);
  } else {
    // A slot of the batch was still on time: it fires, and it covers the late ones.
    expect(fired(late)).toHaveLength(0);
  }
  for (const o of missed.filter((x) => x.emitted_at === null)) expect(o.status).toBe('SKIPPED');
  expectCaughtUpCounted(description);
}

/** CATCH_UP: one occurrence for each missed slot. */
export function expectCatchUp({ description, missed, late }: MisfireOutcome) {
  expect(fired(missed)).toHaveLength(missed.length);
  for (const o of late) expect(o.reason).toMatch(/CATCH_UP/);
  expect(lateFired(missed).length).toBeGreaterThanOrEqual(late.length);
  expect(description.counters.skipped + description.counters.expired).toBe(0);
  expectCaughtUpCounted(description);
}
