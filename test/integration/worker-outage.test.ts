// A real worker outage on the dev server, in real time: every worker process is SIGKILLed for ~31 s
// while three schedules (every 5 s, max_lateness_s 2) keep coming due, then a new worker starts. What
// the misfire policy does with the slots that fell due in the outage is read from the schedules' own
// records and their histories (SKIP / FIRE_ONCE / CATCH_UP: 0 / 1 / N). This is the real-outage
// counterpart of test/workflow/misfire.test.ts: the time-skipping server cannot skip time while no
// worker polls.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MisfirePolicy, Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import {
  eventually,
  groupBy,
  killHard,
  readRunLines,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

const EVERY_MS = 5000;
const MAX_LATENESS_MS = 2000;
const OUTAGE_MS = 31_000;
/** Slots judged this close to the lateness bound could go either way (clock reads differ by a few ms). */
const AMBIGUOUS_MS = 250;
const POLICIES: MisfirePolicy[] = ['SKIP', 'FIRE_ONCE', 'CATCH_UP'];
const idOf = (policy: MisfirePolicy) => `outage-${policy.toLowerCase().replace('_', '-')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
const tsMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

interface Outcome {
  description: ScheduleDescription;
  /** The slots that fell due while no worker ran, all decided in the first wake after it. */
  missed: Occurrence[];
  late: Occurrence[];
  onTime: Occurrence[];
  ambiguous: Occurrence[];
  firstWake: number;
}

describe('worker outage of ~31 s on the dev server: misfire policy on real downtime', () => {
  let stack: Stack | undefined;
  const outcomes = new Map<MisfirePolicy, Outcome>();
  let runLog = '';
  let killedAt = 0;
  let resumedAt = 0;

  beforeAll(async () => {
    stack = await startStack('outage');
    const { sdk, client } = stack;
    runLog = join(stack.dir, 'runs.jsonl');
    const w1 = await startWorker(stack, { RUN_LOG: runLog });
    // One grid for the three schedules, so one restart instant sits mid-way between slots for all.
    const anchor = Math.ceil((Date.now() + 3000) / EVERY_MS) * EVERY_MS;
    for (const misfire of POLICIES) {
      await sdk.create({
        schedule_id: idOf(misfire),
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
        timing: { kind: 'INTERVAL', every: 'PT5S', anchor: new Date(anchor).toISOString() },
        misfire,
        max_lateness_s: MAX_LATENESS_MS / 1000,
      });
    }
    // Two slots on time with the worker up, then the kill, mid-way between two slots.
    await sleep(anchor + EVERY_MS + EVERY_MS / 2 - Date.now());
    for (const misfire of POLICIES) {
      const before = await sdk.describe(idOf(misfire));
      expect(before.recent_occurrences.filter((o) => o.emitted_at !== null).length).toBeGreaterThanOrEqual(2);
    }
    killedAt = await killHard(w1);

    // The new worker is started early (it loads in a few seconds) but polls only from a chosen instant:
    // ~31 s after the kill, mid-way between two slots, so that no missed slot is near the 2 s bound.
    const midSlot = (t: number) =>
      anchor + EVERY_MS / 2 + Math.round((t - anchor - EVERY_MS / 2) / EVERY_MS) * EVERY_MS;
    const startAt = midSlot(killedAt + OUTAGE_MS);
    await sleep(startAt - 20_000 - Date.now());
    const w2 = await startWorker(stack, { RUN_LOG: runLog, START_AT: String(startAt) });
    resumedAt = w2.pollingAt;

    // Let each schedule fire two slots on time after the outage, then read what it recorded.
    for (const misfire of POLICIES) {
      const description = await eventually(
        `${misfire}: two on-time slots after the outage`,
        async () => {
          const d = await sdk.describe(idOf(misfire));
          const after = d.recent_occurrences.filter(
            (o) => Date.parse(o.fire_at) > resumedAt && o.emitted_at !== null,
          );
          return after.length >= 2 ? d : undefined;
        },
        60_000,
      );
      const history = await client.workflow
        .getHandle(scheduleWorkflowId('acme', idOf(misfire)))
        .fetchHistory();
      // No worker polled during the outage, so the first workflow task started after the kill is the wake
      // that decided every missed slot (the workflow's clock is that task's start).
      const firstWake = Math.min(
        ...(history.events ?? [])
          .filter((e) => e.workflowTaskStartedEventAttributes && tsMs(e.eventTime) > killedAt)
          .map((e) => tsMs(e.eventTime)),
      );
      const missed = description.recent_occurrences.filter((o) => {
        const due = Date.parse(o.fire_at);
        return due > killedAt && due <= firstWake;
      });
      const lateness = (o: Occurrence) => firstWake - Date.parse(o.fire_at);
      outcomes.set(misfire, {
        description,
        missed,
        late: missed.filter((o) => lateness(o) > MAX_LATENESS_MS + AMBIGUOUS_MS),
        onTime: missed.filter((o) => lateness(o) < MAX_LATENESS_MS - AMBIGUOUS_MS),
        ambiguous: missed.filter((o) => Math.abs(lateness(o) - MAX_LATENESS_MS) <= AMBIGUOUS_MS),
        firstWake,
      });
    }
    // Every started job finished, so the run log is complete.
    await eventually(
      'all target workflows completed',
      async () => {
        for (const { description } of outcomes.values()) {
          for (const o of description.recent_occurrences.filter((x) => x.emitted_at !== null)) {
            const { status } = await client.workflow.getHandle(o.occurrence_id).describe();
            if (status.name !== 'COMPLETED') return undefined;
          }
        }
        return true;
      },
      60_000,
    );
    for (const [misfire, o] of outcomes) {
      console.info(
        `[worker-outage ${misfire}] outage ${Math.round((resumedAt - killedAt) / 100) / 10} s, first wake ${o.firstWake - resumedAt} ms after polling resumed; missed ${o.missed.length} (late ${o.late.length}, on time ${o.onTime.length}, ambiguous ${o.ambiguous.length}); fired in outage ${o.missed.filter((x) => x.emitted_at !== null).length}`,
      );
    }
  });

  afterAll(async () => {
    await stopStack(stack);
  });

  const firedOf = (list: Occurrence[]) => list.filter((o) => o.emitted_at !== null);

  it('every schedule kept one record per slot of its grid, and each fired slot ran its job exactly once', () => {
    const lines = groupBy(readRunLines(runLog), (l) => l.occurrence_id);
    for (const misfire of POLICIES) {
      const { description, missed, late } = outcomes.get(misfire)!;
      const slots = description.recent_occurrences.map((o) => Date.parse(o.scheduled_for));
      expect(new Set(slots).size).toBe(slots.length);
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(EVERY_MS);
      // ~31 s of downtime on a 5 s grid: at least five slots fell due while no worker ran, and they were
      // late by more than max_lateness_s when the new worker first woke the schedule.
      expect(missed.length).toBeGreaterThanOrEqual(5);
      expect(late.length).toBeGreaterThanOrEqual(5);
      for (const o of firedOf(description.recent_occurrences)) {
        const runs = lines.get(o.occurrence_id) ?? [];
        expect(new Set(runs.map((r) => r.run_id)).size, o.occurrence_id).toBe(1);
      }
      const ran = [...lines.keys()].filter((id) => id.includes(`/${idOf(misfire)}/`)).sort();
      expect(ran).toEqual(
        firedOf(description.recent_occurrences)
          .map((o) => o.occurrence_id)
          .sort(),
      );
    }
  });

  it('SKIP: no occurrence for the slots missed in the outage', () => {
    const { description, late, onTime } = outcomes.get('SKIP')!;
    expect(firedOf(late)).toHaveLength(0);
    for (const o of late) {
      expect(o.status).toBe('SKIPPED');
      expect(o.reason).toMatch(/misfire SKIP/);
    }
    expect(firedOf(onTime)).toHaveLength(onTime.length);
    expect(description.counters.caught_up).toBe(0);
    expect(description.counters.skipped).toBeGreaterThanOrEqual(late.length);
  });

  it('FIRE_ONCE: one occurrence for all the missed slots', () => {
    const { description, missed, late, onTime, ambiguous } = outcomes.get('FIRE_ONCE')!;
    expect(firedOf(missed)).toHaveLength(1);
    if (onTime.length === 0 && ambiguous.length === 0) {
      // All missed slots were late: the newest one stands for them all.
      const [one] = firedOf(missed);
      expect(one!.occurrence_id).toBe(late.at(-1)!.occurrence_id);
      expect(one!.reason).toMatch(new RegExp(`FIRE_ONCE: one occurrence for ${late.length} missed slot`));
      expect(description.counters.caught_up).toBe(1);
    } else {
      // A slot of the batch was still on time: it fires, and it covers the late ones.
      expect(firedOf(late)).toHaveLength(0);
    }
    for (const o of missed.filter((x) => x.emitted_at === null)) expect(o.status).toBe('SKIPPED');
  });

  it('CATCH_UP: one occurrence for each missed slot', () => {
    const { description, missed, late } = outcomes.get('CATCH_UP')!;
    const n = missed.length;
    expect(firedOf(missed)).toHaveLength(n);
    for (const o of late) expect(o.reason).toMatch(/CATCH_UP/);
    expect(description.counters.caught_up).toBeGreaterThanOrEqual(late.length);
    expect(description.counters.caught_up).toBeLessThanOrEqual(n);
    expect(description.counters.skipped + description.counters.expired).toBe(0);
  });
});
