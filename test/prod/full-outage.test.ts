// On the native production stack: a full outage of 10 minutes (PROD_OUTAGE_MINUTES), in real time.
// Everything goes down at once: the API, both scheduler workers and the job worker are SIGKILLed, the
// Temporal server is SIGKILLed, and PostgreSQL stops in immediate mode (no checkpoint: it recovers from
// its WAL on restart, as after a crash). Then everything starts again, in order. Four schedules on one
// 30 s grid with max_lateness_s 10 missed ~20 slots each; what each misfire policy promises (SPEC:
// SKIP drops late slots, FIRE_ONCE fires one occurrence for all of them, CATCH_UP fires every one, at
// most catch_up_limit, the newest) is read from the schedules' own records and checked against the run
// log: every fired occurrence ran its job exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { groupBy, readRunLines } from '../integration/support.js';
import {
  cancelAndSettle,
  describeSchedule,
  eventually,
  expectContiguousGrid,
  expectEachFiredRanOnce,
  firedOf,
  type ProdStack,
  sleep,
  startProdStack,
  TENANT,
} from './support.js';

const OUTAGE_MS = Number(process.env.PROD_OUTAGE_MINUTES ?? 10) * 60_000;
const EVERY_MS = 30_000;
const MAX_LATENESS_MS = 10_000;
/** Slots judged this close to the lateness bound could go either way (clock reads differ by a few ms). */
const AMBIGUOUS_MS = 500;
const CATCH_UP_LIMIT = 3;
const SCHEDULES = [
  { id: 'outage-skip', misfire: 'SKIP' },
  { id: 'outage-fire-once', misfire: 'FIRE_ONCE' },
  { id: 'outage-catch-up', misfire: 'CATCH_UP' },
  { id: 'outage-catch-up-3', misfire: 'CATCH_UP', catch_up_limit: CATCH_UP_LIMIT },
] as const;
const tsMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

interface Outcome {
  description: ScheduleDescription;
  /** The slots that fell due while the stack was down, all decided in the first wake after it. */
  missed: Occurrence[];
  late: Occurrence[];
  onTime: Occurrence[];
  ambiguous: Occurrence[];
  firstWake: number;
}

describe(`full outage of ${OUTAGE_MS / 60_000} min on the production stack: the misfire policies`, () => {
  let stack: ProdStack | undefined;
  const outcomes = new Map<string, Outcome>();
  let finals = new Map<string, ScheduleDescription>();
  let downAt = 0;
  let upAt = 0;

  beforeAll(
    async () => {
      stack = await startProdStack('outage');
      const anchor = Math.ceil((Date.now() + 10_000) / EVERY_MS) * EVERY_MS;
      for (const s of SCHEDULES) {
        await stack.call('POST', '/schedules', {
          schedule_id: s.id,
          target: { type: 'JOB', job_type: 'fileRecordedJob' },
          timing: { kind: 'INTERVAL', every: 'PT30S', anchor: new Date(anchor).toISOString() },
          misfire: s.misfire,
          max_lateness_s: MAX_LATENESS_MS / 1000,
          ...('catch_up_limit' in s ? { catch_up_limit: s.catch_up_limit } : {}),
        });
      }
      // Two slots on time, then everything down mid-way between two slots.
      await sleep(anchor + EVERY_MS + EVERY_MS / 2 - Date.now());
      for (const s of SCHEDULES)
        expect(firedOf((await describeSchedule(stack, s.id)).recent_occurrences).length).toBe(2);
      downAt = Date.now();
      await Promise.all([stack.api.kill(), ...stack.workers.map((w) => w.kill()), stack.jobWorker.kill()]);
      await stack.temporal.service.kill();
      await stack.postgres.service.stop('SIGQUIT'); // immediate shutdown: recovery from the WAL on start
      console.info(`[prod full-outage] everything down at ${new Date(downAt).toISOString()}`);

      await sleep(downAt + OUTAGE_MS - Date.now());
      upAt = Date.now();
      await stack.postgres.restart();
      await stack.temporal.restart();
      await Promise.all(stack.workers.map((w) => w.restart()));
      await stack.api.restart();
      await stack.jobWorker.start().waitFor(/ready pid=\d+/, 180_000);
      console.info(
        `[prod full-outage] everything up again ${Math.round((Date.now() - upAt) / 1000)} s after the restart began`,
      );

      // Two on-time slots after the outage, then read what each schedule recorded.
      for (const s of SCHEDULES) {
        const description = await eventually(
          `${s.id}: two on-time slots after the outage`,
          async () => {
            const d = await describeSchedule(stack!, s.id);
            const after = d.recent_occurrences.filter(
              (o) => Date.parse(o.fire_at) > upAt && o.emitted_at !== null,
            );
            return after.length >= 2 ? d : undefined;
          },
          5 * 60_000,
          2000,
        );
        const history = await stack.client.workflow
          .getHandle(scheduleWorkflowId(TENANT, s.id))
          .fetchHistory();
        // Nothing ran during the outage, so the first workflow task started after it is the wake that
        // decided every missed slot (the workflow's clock is that task's start).
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
        outcomes.set(s.id, {
          description,
          missed,
          late: missed.filter((o) => lateness(o) > MAX_LATENESS_MS + AMBIGUOUS_MS),
          onTime: missed.filter((o) => lateness(o) < MAX_LATENESS_MS - AMBIGUOUS_MS),
          ambiguous: missed.filter((o) => Math.abs(lateness(o) - MAX_LATENESS_MS) <= AMBIGUOUS_MS),
          firstWake,
        });
      }
      finals = await cancelAndSettle(
        stack,
        SCHEDULES.map((s) => s.id),
      );
      for (const [id, o] of outcomes) {
        console.info(
          `[prod full-outage ${id}] down ${Math.round((upAt - downAt) / 1000)} s, first wake ${Math.round((o.firstWake - upAt) / 1000)} s after the restart began; missed ${o.missed.length} (late ${o.late.length}, on time ${o.onTime.length}, ambiguous ${o.ambiguous.length}); fired of the missed ${firedOf(o.missed).length}; counters ${JSON.stringify(o.description.counters)}`,
        );
      }
    },
    OUTAGE_MS + 20 * 60_000,
  );

  afterAll(async () => {
    await stack?.teardown();
  });

  it('every schedule kept one record per slot, and each fired slot ran its job exactly once', async () => {
    const expected = Math.floor(OUTAGE_MS / EVERY_MS) - 1;
    for (const s of SCHEDULES) {
      const { description, missed, late } = outcomes.get(s.id)!;
      expectContiguousGrid(description.recent_occurrences, EVERY_MS);
      // ~20 slots fell due in the outage, and all of them were late when the schedule first woke.
      expect(missed.length).toBeGreaterThanOrEqual(expected);
      expect(late.length).toBeGreaterThanOrEqual(expected - 1);
    }
    await expectEachFiredRanOnce(stack!, finals);
    const lines = groupBy(readRunLines(stack!.runLog), (l) => l.occurrence_id);
    for (const o of outcomes.values())
      for (const x of o.missed.filter((m) => m.emitted_at === null))
        expect(lines.has(x.occurrence_id)).toBe(false);
  });

  it('SKIP: no occurrence for the late slots', () => {
    const { description, late, onTime } = outcomes.get('outage-skip')!;
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
    const { description, missed, late, onTime, ambiguous } = outcomes.get('outage-fire-once')!;
    expect(firedOf(missed)).toHaveLength(1);
    if (onTime.length === 0 && ambiguous.length === 0) {
      const [one] = firedOf(missed);
      expect(one!.occurrence_id).toBe(late.at(-1)!.occurrence_id);
      expect(one!.reason).toMatch(new RegExp(`FIRE_ONCE: one occurrence for ${late.length} missed slot`));
      expect(description.counters.caught_up).toBe(1);
    } else {
      expect(firedOf(late)).toHaveLength(0); // an on-time slot fired and covers the late ones
    }
    for (const o of missed.filter((x) => x.emitted_at === null)) expect(o.status).toBe('SKIPPED');
  });

  it('CATCH_UP: one occurrence for each missed slot', () => {
    const { description, missed, late } = outcomes.get('outage-catch-up')!;
    expect(firedOf(missed)).toHaveLength(missed.length);
    for (const o of late) expect(o.reason).toMatch(/CATCH_UP/);
    expect(description.counters.caught_up).toBeGreaterThanOrEqual(late.length);
    expect(description.counters.caught_up).toBeLessThanOrEqual(missed.length);
    expect(description.counters.skipped + description.counters.expired).toBe(0);
  });

  it(`CATCH_UP with catch_up_limit ${CATCH_UP_LIMIT}: the newest ${CATCH_UP_LIMIT} late slots fire, the older ones expire`, () => {
    const { description, late, onTime, ambiguous } = outcomes.get('outage-catch-up-3')!;
    expect(firedOf(onTime)).toHaveLength(onTime.length);
    if (ambiguous.length > 0) {
      // A slot right at the bound may have been judged late: then it takes one of the three places.
      expect(firedOf(late).length).toBeLessThanOrEqual(CATCH_UP_LIMIT);
      expect(description.counters.expired).toBeGreaterThanOrEqual(late.length - CATCH_UP_LIMIT);
      return;
    }
    const fired = firedOf(late).map((o) => o.occurrence_id);
    expect(fired).toEqual(late.slice(-CATCH_UP_LIMIT).map((o) => o.occurrence_id));
    for (const o of late.slice(0, -CATCH_UP_LIMIT)) {
      expect(o.emitted_at).toBeNull();
      expect(o.reason).toMatch(new RegExp(`beyond catch_up_limit=${CATCH_UP_LIMIT}`));
    }
    expect(description.counters.expired).toBe(Math.max(0, late.length - CATCH_UP_LIMIT));
    expect(description.counters.caught_up).toBe(Math.min(late.length, CATCH_UP_LIMIT));
  });
});
