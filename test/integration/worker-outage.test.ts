// A real worker outage on the dev server, in real time: every worker process is SIGKILLed for ~31 s
// while three schedules (every 5 s, max_lateness_s 2) keep coming due, then a new worker starts. What
// the misfire policy does with the slots that fell due in the outage is read from the schedules' own
// records and their histories (SKIP / FIRE_ONCE / CATCH_UP: 0 / 1 / N). This is the real-outage
// counterpart of test/workflow/misfire.test.ts: the time-skipping server cannot skip time while no
// worker polls.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MisfirePolicy } from '../../src/model/contracts.js';
import {
  expectCatchUp,
  expectFireOnce,
  expectGridAndOneRunEach,
  expectSkip,
  fired,
  type MisfireOutcome,
  misfireOutcome,
  twoFiredThenMidSlot,
} from './misfire-outcome.js';
import { eventually, killHard, type Stack, startStack, startWorker, stopStack } from './support.js';

const EVERY_MS = 5000;
const MAX_LATENESS_MS = 2000;
const OUTAGE_MS = 31_000;
const POLICIES: MisfirePolicy[] = ['SKIP', 'FIRE_ONCE', 'CATCH_UP'];
const idOf = (policy: MisfirePolicy) => `outage-${policy.toLowerCase().replace('_', '-')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));

describe('worker outage of ~31 s on the dev server: misfire policy on real downtime', () => {
  let stack: Stack | undefined;
  const outcomes = new Map<MisfirePolicy, MisfireOutcome>();
  let runLog = '';
  let killedAt = 0;
  let resumedAt = 0;

  beforeAll(async () => {
    // Jobs started at their instant: the misfire policy judges the slots the outage delayed. Armed slots
    // begin on time without a worker (test/integration/armed.test.ts).
    stack = await startStack('outage', {}, { armLeadMs: 0 });
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
    await twoFiredThenMidSlot(stack, POLICIES.map(idOf), anchor, EVERY_MS);
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
      outcomes.set(
        misfire,
        await misfireOutcome(stack, idOf(misfire), description, killedAt, MAX_LATENESS_MS),
      );
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
        `[worker-outage ${misfire}] outage ${Math.round((resumedAt - killedAt) / 100) / 10} s, first wake ${o.firstWake - resumedAt} ms after polling resumed; missed ${o.missed.length} (late ${o.late.length}, on time ${o.onTime.length}, ambiguous ${o.ambiguous.length}); fired in outage ${fired(o.missed).length}`,
      );
    }
  });

  afterAll(async () => {
    await stopStack(stack);
  });

  it('every schedule kept one record per slot of its grid, and each fired slot ran its job exactly once', () => {
    for (const misfire of POLICIES) {
      const outcome = outcomes.get(misfire)!;
      expectGridAndOneRunEach(outcome, EVERY_MS, runLog);
      // ~31 s of downtime on a 5 s grid: at least five slots fell due while no worker ran, and they were
      // late by more than max_lateness_s when the new worker first woke the schedule.
      expect(outcome.missed.length).toBeGreaterThanOrEqual(5);
      expect(outcome.late.length).toBeGreaterThanOrEqual(5);
    }
  });

  it("the audit explains every slot of the outage (MISSED, LATE), none unexplained; the tenant's report sums the three", async () => {
    const range = {
      from: new Date(killedAt - 20_000).toISOString(),
      to: new Date(resumedAt + 10_000).toISOString(),
      late_after_s: MAX_LATENESS_MS / 1000,
    };
    const expected: Record<MisfirePolicy, string[]> = {
      SKIP: ['MISSED'],
      FIRE_ONCE: ['MISSED', 'LATE'],
      CATCH_UP: ['LATE'],
    };
    const summed: Record<string, number> = {};
    for (const misfire of POLICIES) {
      const audit = await stack!.sdk.audit(idOf(misfire), range);
      expect(audit.counts.UNEXPLAINED ?? 0).toBe(0);
      // The slots found later than max_lateness_s when the new worker woke them (the misfire policy's).
      const outcome = outcomes.get(misfire)!;
      const late = new Set(outcome.late.map((o) => o.scheduled_for));
      const inOutage = audit.slots.filter((s) => late.has(s.scheduled_for));
      expect(inOutage).toHaveLength(late.size);
      for (const s of inOutage) expect(expected[misfire]).toContain(s.outcome);
      if (misfire === 'FIRE_ONCE')
        expect(inOutage.filter((s) => s.outcome === 'LATE')).toHaveLength(
          outcome.onTime.length === 0 ? 1 : 0,
        );
      for (const s of inOutage.filter((x) => x.outcome === 'MISSED')) expect(s.reason).toMatch(/^late by /);
      for (const [outcome, n] of Object.entries(audit.counts)) summed[outcome] = (summed[outcome] ?? 0) + n;
    }
    const report = await stack!.sdk.auditTenant(range);
    expect(report).toMatchObject({ schedules_read: 3, unread: [], counts: summed });
    expect(report.schedules.map((s) => s.schedule_id).sort()).toEqual(POLICIES.map(idOf).sort());
  });

  it('SKIP: no occurrence for the slots missed in the outage', () => {
    expectSkip(outcomes.get('SKIP')!);
  });

  it('FIRE_ONCE: one occurrence for all the missed slots', () => {
    expectFireOnce(outcomes.get('FIRE_ONCE')!);
  });

  it('CATCH_UP: one occurrence for each missed slot', () => {
    expectCatchUp(outcomes.get('CATCH_UP')!);
  });
});
