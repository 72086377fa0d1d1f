import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MisfirePolicy } from '../../src/model/contracts.js';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { startTestDevServer, tempDir } from '../helpers/servers.js';
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
import { eventually, type Stack, startStack, startWorker, stopStack } from './support.js';

const fixtures = fileURLToPath(new URL('../fixtures/workflows.ts', import.meta.url));
const taskQueue = 'restart-test';

async function withWorker<T>(address: string, body: () => Promise<T>): Promise<T> {
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await Worker.create({ connection, taskQueue, workflowsPath: fixtures });
    return await worker.runUntil(body());
  } finally {
    await connection.close();
  }
}

describe('dev server (Temporal CLI built from the Go module proxy)', () => {
  let server: DevServer | undefined;
  afterEach(async () => {
    await server?.kill();
  });

  it('keeps a sleeping workflow across a hard kill and restart on the same data file', async () => {
    const dbFile = join(tempDir('restart'), 'temporal.db');
    server = await startTestDevServer(dbFile);
    const port = Number(server.address.split(':')[1]);

    let connection = await Connection.connect({ address: server.address });
    let client = new Client({ connection });
    const handle = await client.workflow.start('durableSleep', {
      taskQueue,
      workflowId: 'survives-restart',
      args: [4000],
    });
    // Let a worker run the first workflow task, so the timer is durably recorded before the crash.
    await withWorker(server.address, async () => {
      for (;;) {
        const { events } = await handle.fetchHistory();
        if (events?.some((e) => e.timerStartedEventAttributes)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    await connection.close();

    await server.kill(); // SIGKILL: nothing flushed beyond what SQLite already committed
    server = await startTestDevServer(dbFile, port);

    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    const result = await withWorker(server.address, () =>
      client.workflow.getHandle('survives-restart').result(),
    );
    expect(result.elapsedMs).toBeGreaterThanOrEqual(4000);
    const { events } = await client.workflow.getHandle('survives-restart').fetchHistory();
    // One run, one timer: the workflow continued where it was, it did not start over.
    expect(events?.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
    expect(events?.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect(events?.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
    await connection.close();
  });
});

// The dev server itself hard-killed while schedules are due, and restarted ~25 s later on the same data
// file; the worker process stays up and reconnects. Slots that fell due while the server was down are
// judged by each schedule's misfire policy (every 5 s, max_lateness_s 2: they are late on the first
// wake): SKIP / FIRE_ONCE / CATCH_UP give 0 / 1 / N, and each fired slot's job runs exactly once.
describe('dev server hard-killed and restarted while schedules are due: misfire policies', () => {
  const EVERY_MS = 5000;
  const MAX_LATENESS_MS = 2000;
  const DOWN_MS = 25_000;
  const POLICIES: MisfirePolicy[] = ['SKIP', 'FIRE_ONCE', 'CATCH_UP'];
  const idOf = (policy: MisfirePolicy) => `restart-${policy.toLowerCase().replace('_', '-')}`;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
  let stack: Stack | undefined;
  const outcomes = new Map<MisfirePolicy, MisfireOutcome>();
  let runLog = '';

  beforeAll(async () => {
    // Jobs started at their instant: the misfire policy judges slots the server's absence delayed. An armed
    // slot was handed off before the outage, and the server begins it when it is back (docs/runtime.md).
    stack = await startStack('restart-misfire', {}, { armLeadMs: 0 });
    const { sdk } = stack;
    runLog = join(stack.dir, 'runs.jsonl');
    const worker = await startWorker(stack, { RUN_LOG: runLog });
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
    // Two slots on time, then the server dies mid-way between two slots.
    const port = Number(stack.server.address.split(':').at(-1));
    await twoFiredThenMidSlot(stack, POLICIES.map(idOf), anchor, EVERY_MS);
    const downAt = Date.now();
    await stack.server.kill();
    // Back ~25 s later, mid-way between two slots, on the same port and data file.
    const midSlot = (t: number) =>
      anchor + EVERY_MS / 2 + Math.round((t - anchor - EVERY_MS / 2) / EVERY_MS) * EVERY_MS;
    await sleep(midSlot(downAt + DOWN_MS) - Date.now());
    stack.server = await startTestDevServer(join(stack.dir, 'temporal.db'), port);
    const upAt = Date.now();

    for (const misfire of POLICIES) {
      const description = await eventually(
        `${misfire}: two on-time slots after the restart`,
        async () => {
          const d = await sdk.describe(idOf(misfire));
          const after = d.recent_occurrences.filter(
            (o) => Date.parse(o.fire_at) > upAt && o.emitted_at !== null,
          );
          return after.length >= 2 ? d : undefined;
        },
        90_000,
      );
      outcomes.set(misfire, await misfireOutcome(stack, idOf(misfire), description, downAt, MAX_LATENESS_MS));
    }
    expect(worker.child.exitCode).toBeNull(); // the worker rode out the server's absence
    await eventually(
      'all target workflows completed',
      async () => {
        for (const { description } of outcomes.values()) {
          for (const o of fired(description.recent_occurrences)) {
            const { status } = await stack!.client.workflow.getHandle(o.occurrence_id).describe();
            if (status.name !== 'COMPLETED') return undefined;
          }
        }
        return true;
      },
      60_000,
    );
    for (const [misfire, o] of outcomes) {
      console.info(
        `[dev-server-restart ${misfire}] down ${Math.round((upAt - downAt) / 100) / 10} s, first wake ${o.firstWake - upAt} ms after the server was up; missed ${o.missed.length} (late ${o.late.length}, on time ${o.onTime.length}, ambiguous ${o.ambiguous.length}); fired ${fired(o.missed).length}`,
      );
    }
  }, 300_000);

  afterAll(async () => {
    await stopStack(stack);
  });

  it('every schedule kept one record per slot of its grid, each fired slot ran its job once', () => {
    for (const misfire of POLICIES) {
      const outcome = outcomes.get(misfire)!;
      expectGridAndOneRunEach(outcome, EVERY_MS, runLog);
      // ~25 s down on a 5 s grid: at least four slots fell due, late by more than max_lateness_s.
      expect(outcome.missed.length).toBeGreaterThanOrEqual(4);
      expect(outcome.late.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('SKIP: no occurrence for the slots missed while the server was down', () => {
    expectSkip(outcomes.get('SKIP')!);
  });

  it('FIRE_ONCE: one occurrence for all the missed slots', () => {
    expectFireOnce(outcomes.get('FIRE_ONCE')!);
  });

  it('CATCH_UP: one occurrence for each missed slot', () => {
    expectCatchUp(outcomes.get('CATCH_UP')!);
  });
});
