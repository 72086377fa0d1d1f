// SchedulerClient.patch and pause/resume `{ wait: true }` on a real dev server and the real scheduler worker,
// without the HTTP layer: the SDK itself merges a partial edit, answers a stale version with the version to
// base on (also when the conflict is only seen by the workflow), answers the version its own edit made when
// another edit lands right after it, and waits for a signal to show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient, type SchedulerClientOptions } from '../../src/api/client.js';
import { VersionConflictError } from '../../src/api/patch.js';
import type { Schedule } from '../../src/model/contracts.js';
import { JOB_QUEUE, SCHEDULER_QUEUE, type Stack, startStack, startWorker, stopStack } from './support.js';

const spec = {
  target: { type: 'JOB' as const, job_type: 'recordedJob' },
  timing: { kind: 'INTERVAL' as const, every: 'PT1H' },
  ends_at: '2099-01-01T00:00:00Z',
};

/**
 * A client before whose `nth` read of a schedule another edit lands: the interleaving a concurrent editor
 * makes, placed where the test wants it. A patch reads the schedule (1), `update` reads it again (2), then
 * the edit is sent, then the patch reads it back (3).
 */
class InterleavedClient extends SchedulerClient {
  private reads = 0;
  constructor(
    options: SchedulerClientOptions,
    private readonly nth: number,
    private readonly otherEdit: (scheduleId: string) => Promise<unknown>,
  ) {
    super(options);
  }

  override async get(scheduleId: string): Promise<Schedule> {
    if (++this.reads === this.nth) await this.otherEdit(scheduleId);
    return await super.get(scheduleId);
  }
}

describe('SDK patch and settle (dev server)', () => {
  let stack: Stack;
  const options = (): SchedulerClientOptions => ({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    principal: { tenant_id: 'acme', owner_ref: 'ops' },
  });

  beforeAll(async () => {
    stack = await startStack('sdk-patch-settle');
    await startWorker(stack, { ROLES: 'scheduler' });
  });
  afterAll(async () => {
    await stopStack(stack);
  });

  /** Another editor's change: a new max_lateness_s on the version it reads. */
  const otherEdit = async (scheduleId: string, lateness: number) => {
    const current = await stack.sdk.get(scheduleId);
    await stack.sdk.patch(scheduleId, { expected_version: current.version, max_lateness_s: lateness });
  };

  it('merges the fields given over the current definition; null clears an optional one', async () => {
    await stack.sdk.create({ schedule_id: 'merge', ...spec, overlap: 'SKIP' });
    const patched = await stack.sdk.patch('merge', {
      expected_version: 1,
      max_lateness_s: 120,
      ends_at: null,
    });
    expect(patched).toMatchObject({ version: 2, max_lateness_s: 120, overlap: 'SKIP', timing: spec.timing });
    expect(patched.ends_at).toBeUndefined();
    expect(await stack.sdk.get('merge')).toEqual(patched);
  });

  it('answers a stale expected_version with the current version, before anything is sent', async () => {
    await stack.sdk.create({ schedule_id: 'stale', ...spec });
    await stack.sdk.patch('stale', { expected_version: 1, max_lateness_s: 30 });
    const refused = await stack.sdk
      .patch('stale', { expected_version: 1, max_lateness_s: 90 })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(VersionConflictError);
    expect(refused).toMatchObject({
      code: 'VERSION_CONFLICT',
      field: 'expected_version',
      expectedVersion: 1,
      currentVersion: 2,
    });
    expect((await stack.sdk.get('stale')).max_lateness_s).toBe(30);
  });

  it('a conflict only the workflow sees (an edit landed after the first read) names the version it is at', async () => {
    await stack.sdk.create({ schedule_id: 'raced', ...spec });
    const racing = new InterleavedClient(options(), 2, (id) => otherEdit(id, 45));
    const refused = await racing.patch('raced', { expected_version: 1, max_lateness_s: 90 }).catch((e) => e);
    expect(refused).toBeInstanceOf(VersionConflictError);
    expect(refused).toMatchObject({ expectedVersion: 1, currentVersion: 2 });
    expect(await stack.sdk.get('raced')).toMatchObject({ version: 2, max_lateness_s: 45 });
  });

  it('answers the version its own edit made when another edit landed before the read-back', async () => {
    await stack.sdk.create({ schedule_id: 'overtaken', ...spec });
    const overtaken = new InterleavedClient(options(), 3, (id) => otherEdit(id, 45));
    const mine = await overtaken.patch('overtaken', { expected_version: 1, max_lateness_s: 90 });
    const now = await stack.sdk.get('overtaken');
    expect(now).toMatchObject({ version: 3, max_lateness_s: 45 });
    expect(mine).toMatchObject({
      version: 2,
      max_lateness_s: 90,
      status: 'ACTIVE',
      updated_at: now.updated_at,
    });
    expect(mine.next_run_at).toEqual(expect.any(String));
  });

  it('pause and resume with { wait: true } answer the schedule once the signal shows', async () => {
    await stack.sdk.create({ schedule_id: 'settle', ...spec });
    expect(await stack.sdk.pause('settle', 'maintenance')).toBeUndefined();
    const resumed = await stack.sdk.resume('settle', { wait: true });
    expect(resumed).toMatchObject({ status: 'ACTIVE', owner_revoked_at: null });

    const paused = await stack.sdk.pause('settle', 'incident 7', { wait: true });
    expect(paused).toMatchObject({ status: 'PAUSED', pause_note: 'incident 7' });
    expect((await stack.sdk.resume('settle', { wait: true })).status).toBe('ACTIVE');
  });
});
