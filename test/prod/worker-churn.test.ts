// On the native production stack: while schedules fire every 2 s, one of the two scheduler worker
// processes at a time is SIGKILLed (as a crash or an OOM kill would) and restarted, round after round.
// Every slot must still fire, and each exactly once: one record per slot in each schedule, one
// workflow execution per occurrence, and one run of its job, counted in a file outside Temporal.
import { afterAll, describe, expect, it } from 'vitest';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import {
  cancelAndSettle,
  describeSchedule,
  expectContiguousGrid,
  expectEachFiredRanOnce,
  firedOf,
  latenessSummary,
  type ProdStack,
  sleep,
  startProdStack,
} from './support.js';

const SCHEDULES = 6;
const EVERY_MS = 2000;
const ROUNDS = Number(process.env.PROD_CHURN_ROUNDS ?? 10);
const ids = Array.from({ length: SCHEDULES }, (_, i) => `churn-${i + 1}`);

describe('worker churn on the production stack (PostgreSQL, Temporal server, 2 workers, API)', () => {
  let stack: ProdStack | undefined;
  afterAll(async () => {
    await stack?.teardown();
  });

  it(`${ROUNDS} SIGKILL-and-restart rounds of one worker at a time: every slot fired exactly once`, async () => {
    stack = await startProdStack('churn');
    for (const id of ids) {
      await stack.call('POST', '/schedules', {
        schedule_id: id,
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
        timing: { kind: 'INTERVAL', every: 'PT2S' },
        // Every slot stays on time however long a recovery takes: all of them must fire.
        max_lateness_s: 600,
      });
    }
    await sleep(3 * EVERY_MS);

    const kills: string[] = [];
    const firedBefore = new Map<string, number>();
    for (const id of ids)
      firedBefore.set(id, firedOf((await describeSchedule(stack, id)).recent_occurrences).length);
    for (let round = 0; round < ROUNDS; round++) {
      const victim = stack.workers[round % stack.workers.length]!;
      const survivor = stack.workers[(round + 1) % stack.workers.length]!;
      expect(survivor.running).toBe(true);
      await victim.kill();
      kills.push(`${victim.name}@${new Date().toISOString()}`);
      // Down for 1 to 5 s (it takes a few more to start), then back.
      await sleep(1000 + (round % 5) * 1000);
      await victim.restart();
      await sleep(EVERY_MS);
    }
    // The schedules kept firing through the churn.
    for (const id of ids) {
      const d = await describeSchedule(stack, id);
      expect(firedOf(d.recent_occurrences).length).toBeGreaterThan(firedBefore.get(id)! + ROUNDS);
    }

    const finals = await cancelAndSettle(stack, ids);
    let slots = 0;
    for (const d of finals.values()) {
      expectContiguousGrid(d.recent_occurrences, EVERY_MS);
      expect(d.recent_occurrences.every((o) => o.status === 'HANDED_OFF')).toBe(true);
      expect(d.counters.fired).toBe(d.recent_occurrences.length);
      slots += d.recent_occurrences.length;
    }
    const lines = await expectEachFiredRanOnce(stack, finals);
    const all = [...finals.values()].flatMap((d: ScheduleDescription) => d.recent_occurrences);
    console.info(
      `[prod worker-churn] ${ROUNDS} kills (${kills.join(', ')}); ${SCHEDULES} schedules, ${slots} slots, ${slots} fired, ${lines} run lines, lost 0, twice 0; lateness ${latenessSummary(all)}`,
    );
  });
});
