// A changed tenant policy reaches jobs already armed (src/runtime/armed-policy-watch.ts): an armed job was
// checked when it was armed, up to SCHEDULER_ARM_AHEAD_S before the server begins it, so the product's worker
// process, when its tenants file changes, takes back every armed job whose target the new policy refuses,
// and leaves the rest. Driven as an operator drives it: the worker is `src/main.ts`, the policy its
// SCHEDULER_TENANTS_FILE rewritten on disk. Real time on the dev server (armed jobs begin on its clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence } from '../../src/model/contracts.js';
import { startProductWorker } from '../helpers/product.js';
import { OPEN_QUOTAS, writeTenantsFile } from '../helpers/tenants.js';
import { eventually, JOB_QUEUE, type Stack, startStack, stopStack } from './support.js';

const GRACE_S = 10;
const acmeMayStart = (jobTypes: string[]) => ({
  acme: { job_task_queues: [JOB_QUEUE], job_types: jobTypes, quotas: OPEN_QUOTAS },
});

describe('a changed tenant policy takes back the armed jobs it refuses (dev server, real time)', () => {
  let stack: Stack;
  let policyFile: string;
  beforeAll(async () => {
    // Armed 90 s ahead, a slot every 15 s: several armed per schedule at any time.
    stack = await startStack('armed-policy', {}, { armLeadMs: 20_000, armAheadMs: 90_000 });
    policyFile = writeTenantsFile(stack.dir, acmeMayStart(['keptJob', 'droppedJob', 'orphanJob']));
    // Nobody polls the job queue: a job that begins waits there, and one taken back is TERMINATED.
    await startProductWorker(stack, {
      SCHEDULER_TENANTS_FILE: policyFile,
      SCHEDULER_MISSING_TENANT_GRACE_S: String(GRACE_S),
    });
  }, 240_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  const create = (scheduleId: string, jobType: string) =>
    stack.sdk.create({
      schedule_id: scheduleId,
      target: { type: 'JOB', job_type: jobType, task_queue: JOB_QUEUE },
      timing: { kind: 'INTERVAL', every: 'PT15S' },
    });
  const occurrences = async (scheduleId: string) =>
    (await stack.sdk.describe(scheduleId)).recent_occurrences as Occurrence[];
  const armedAtLeast = (scheduleId: string, n: number) =>
    eventually(
      `${scheduleId}: ${n} jobs armed`,
      async () => {
        const armed = (await occurrences(scheduleId)).filter((o) => o.status === 'ARMED');
        return armed.length >= n ? armed : undefined;
      },
      120_000,
      500,
    );
  const jobStatus = async (o: Occurrence) =>
    (await stack.client.workflow.getHandle(o.target_ref!).describe()).status.name;

  it('a job type withdrawn from the file: its armed jobs are terminated before they begin, SKIPPED with the reason; other targets stay armed', async () => {
    await Promise.all([create('policy-kept', 'keptJob'), create('policy-dropped', 'droppedJob')]);
    const [kept, dropped] = await Promise.all([
      armedAtLeast('policy-kept', 3),
      armedAtLeast('policy-dropped', 3),
    ]);

    const changedAt = Date.now();
    writeTenantsFile(stack.dir, acmeMayStart(['keptJob', 'orphanJob']));
    // Far enough from its instant when the file changed to be taken back (the guard leaves the last 5 s).
    const toTakeBack = dropped.filter((o) => Date.parse(o.fire_at) - changedAt > 15_000);
    expect(toTakeBack.length).toBeGreaterThanOrEqual(2);
    const after = await eventually(
      'the withdrawn type’s armed jobs taken back',
      async () => {
        const now = await occurrences('policy-dropped');
        const mine = toTakeBack.map((o) => now.find((x) => x.occurrence_id === o.occurrence_id));
        return mine.every((o) => o?.status === 'SKIPPED') ? (mine as Occurrence[]) : undefined;
      },
      30_000,
      500,
    );
    for (const o of after) {
      expect(o.reason).toMatch(/tenant policy in force .*job_type/);
      expect(await jobStatus(o)).toBe('TERMINATED');
    }
    // Nothing of the withdrawn type is armed again: its next slots are refused at hand-off.
    await new Promise((r) => setTimeout(r, 5_000));
    const later = await occurrences('policy-dropped');
    expect(
      later.filter((o) => o.status === 'ARMED' && Date.parse(o.emitted_at ?? '') > changedAt + 5_000),
    ).toEqual([]);

    // The allowed type's jobs were not touched: still armed (or begun at their instant), none terminated.
    for (const o of kept) expect(await jobStatus(o)).toBe('RUNNING');
    const keptNow = await occurrences('policy-kept');
    for (const o of kept)
      expect(keptNow.find((x) => x.occurrence_id === o.occurrence_id)?.status).toMatch(/ARMED|HANDED_OFF/);
    await Promise.all([stack.sdk.cancel('policy-kept'), stack.sdk.cancel('policy-dropped')]);
  }, 300_000);

  it(`a tenant gone from the file is acted on only after ${GRACE_S} s: back in time, its armed jobs stay; gone longer, they are taken back`, async () => {
    writeTenantsFile(stack.dir, acmeMayStart(['orphanJob']));
    await create('policy-orphan', 'orphanJob');
    const armed = await armedAtLeast('policy-orphan', 4);

    // Missing for a moment (a file mid-edit), then back: nothing is taken back.
    writeTenantsFile(stack.dir, {});
    await new Promise((r) => setTimeout(r, 4_000));
    writeTenantsFile(stack.dir, acmeMayStart(['orphanJob']));
    await new Promise((r) => setTimeout(r, (GRACE_S + 5) * 1000));
    const stayed = await occurrences('policy-orphan');
    for (const o of armed) {
      const now = stayed.find((x) => x.occurrence_id === o.occurrence_id);
      expect(now?.status).toMatch(/ARMED|HANDED_OFF/);
    }

    // Missing for longer than the grace: what is still armed then is taken back.
    const goneAt = Date.now();
    writeTenantsFile(stack.dir, {});
    const stillArmed = (await occurrences('policy-orphan')).filter(
      (o) => o.status === 'ARMED' && Date.parse(o.fire_at) - goneAt > (GRACE_S + 20) * 1000,
    );
    expect(stillArmed.length).toBeGreaterThanOrEqual(1);
    await eventually(
      'armed jobs of the missing tenant taken back after the grace',
      async () => {
        const now = await occurrences('policy-orphan');
        return stillArmed.every(
          (o) => now.find((x) => x.occurrence_id === o.occurrence_id)?.status === 'SKIPPED',
        )
          ? now
          : undefined;
      },
      (GRACE_S + 30) * 1000,
      500,
    );
    expect(Date.now() - goneAt).toBeGreaterThanOrEqual(GRACE_S * 1000);
    for (const o of stillArmed) expect(await jobStatus(o)).toBe('TERMINATED');
  }, 300_000);
});
