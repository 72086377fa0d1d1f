// On the native production stack: 20 schedules share one 5 s grid, so every 5 s a burst of 20
// occurrences is handed off at once. The Temporal server is stopped in the middle of a burst (after its
// first job ran, before the last), first by SIGKILL (a crash: nothing flushed) and later by SIGTERM (a
// rolling restart), and started again on the same PostgreSQL database a few seconds later. Nothing may be lost: every slot of every schedule,
// including those of the interrupted bursts and those that fell due while the server was down, fires
// exactly once.
import { afterAll, describe, expect, it } from 'vitest';
import { readRunLines } from '../integration/support.js';
import {
  cancelAndSettle,
  describeSchedule,
  eventually,
  expectContiguousGrid,
  expectEachFiredRanOnce,
  firedOf,
  latenessSummary,
  type ProdStack,
  sleep,
  startProdStack,
} from './support.js';

const SCHEDULES = 20;
const EVERY_MS = 5000;
const DOWN_MS = 6000;
const ids = Array.from({ length: SCHEDULES }, (_, i) => `burst-${i + 1}`);

describe('Temporal server restart mid-burst on the production stack', () => {
  let stack: ProdStack | undefined;
  afterAll(async () => {
    await stack?.teardown();
  });

  it('SIGKILL and SIGTERM of the server during a burst of 20 hand-offs: nothing lost, nothing twice', async () => {
    stack = await startProdStack('restart');
    const anchor = Math.ceil((Date.now() + 10_000) / EVERY_MS) * EVERY_MS;
    for (const id of ids) {
      await stack.call('POST', '/schedules', {
        schedule_id: id,
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
        timing: { kind: 'INTERVAL', every: 'PT5S', anchor: new Date(anchor).toISOString() },
        max_lateness_s: 600, // every slot must fire, however long the server was away
      });
    }
    // Two bursts on time first.
    await sleep(anchor + 2 * EVERY_MS - Date.now());
    const restarts: string[] = [];
    let slot = anchor + 2 * EVERY_MS;
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      // Into the burst: the slot's timers fire at `slot`; the server goes down as soon as the first job
      // of the burst has run (counted in the run log), while the others are still being handed off.
      const ranOfBurst = () =>
        readRunLines(stack!.runLog).filter((l) => Date.parse(l.scheduled_for) === slot).length;
      // A burst that completed before the first of its runs was seen does not count: take the next one.
      let ranBefore = SCHEDULES;
      for (let tries = 0; tries < 5 && ranBefore === SCHEDULES; tries++) {
        slot += (tries === 0 ? 3 : 1) * EVERY_MS;
        await sleep(slot - Date.now());
        while (ranOfBurst() === 0 && Date.now() < slot + 30_000) await sleep(10);
        ranBefore = ranOfBurst();
      }
      await stack.temporal.service.stop(signal);
      const ranAtStop = ranOfBurst();
      expect(ranBefore).toBeGreaterThan(0);
      expect(ranBefore).toBeLessThan(SCHEDULES); // the server went down mid-burst
      await sleep(DOWN_MS);
      const restartAt = Date.now();
      await stack.temporal.restart();
      restarts.push(
        `${signal} at ${new Date(slot).toISOString()}: ${ranBefore}/${SCHEDULES} jobs of the burst had run (${ranAtStop} when it was down), back after ${Math.round((Date.now() - restartAt + DOWN_MS) / 100) / 10} s`,
      );
      // The whole interrupted burst, and the ones due while the server was away, ran.
      await eventually(
        `the burst of ${new Date(slot).toISOString()} and those after it`,
        async () => {
          const ran = new Set(
            readRunLines(stack!.runLog)
              .filter((l) => Date.parse(l.scheduled_for) >= slot && Date.parse(l.scheduled_for) <= restartAt)
              .map((l) => l.occurrence_id),
          );
          return ran.size >= SCHEDULES * Math.floor((restartAt - slot) / EVERY_MS + 1) ? true : undefined;
        },
        180_000,
        1000,
      );
    }
    // Two more bursts after the last restart.
    const lastSlot = slot;
    await eventually(
      'two more bursts',
      async () => {
        const d = await describeSchedule(stack!, ids[0]!);
        const after = firedOf(d.recent_occurrences).filter(
          (o) => Date.parse(o.scheduled_for) > lastSlot + DOWN_MS,
        );
        return after.length >= 2 ? true : undefined;
      },
      120_000,
      1000,
    );

    const finals = await cancelAndSettle(stack, ids);
    let slots = 0;
    for (const d of finals.values()) {
      expectContiguousGrid(d.recent_occurrences, EVERY_MS);
      expect(Math.min(...d.recent_occurrences.map((o) => Date.parse(o.scheduled_for)))).toBe(anchor);
      expect(d.recent_occurrences.every((o) => o.status === 'HANDED_OFF')).toBe(true);
      expect(d.counters.fired).toBe(d.recent_occurrences.length);
      slots += d.recent_occurrences.length;
    }
    // Same number of slots in every schedule: they share the grid and were cancelled within a slot.
    const perSchedule = [...finals.values()].map((d) => d.recent_occurrences.length);
    expect(Math.max(...perSchedule) - Math.min(...perSchedule)).toBeLessThanOrEqual(1);
    const lines = await expectEachFiredRanOnce(stack, finals);
    const all = [...finals.values()].flatMap((d) => d.recent_occurrences);
    console.info(
      `[prod server-restart] ${restarts.join('; ')}. ${SCHEDULES} schedules, ${slots} slots, ${slots} fired, ${lines} run lines, lost 0, twice 0; lateness ${latenessSummary(all)}`,
    );
  });
});
