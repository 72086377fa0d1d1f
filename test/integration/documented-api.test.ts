// What docs/getting-started.md (the HTTP API, step by step) and examples/ promise, through the product as
// a user runs it: `src/main.ts` (API and worker in one process, as `npm start` with TEMPORAL_ADDRESS) on a
// dev server, reached over HTTP, and the examples run as their READMEs say (`node --import tsx examples/…`) against it.
//   - `cancel` with {"running": "CANCEL"}: the running job is cancelled;
//   - 431 for a request line and headers over Node's limit;
//   - examples/source-sync and examples/contract-deadline, with their documented output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { freePort } from '../../src/runtime/ports.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import {
  type ApiProcess,
  eventually,
  type Stack,
  startApiProcess,
  startStack,
  stopStack,
} from './support.js';

// The examples' tenant is `dev` (their README's occurrence IDs say so); with a key, as SCHEDULER_API_KEY.
const KEY = 'documented-api-dev-0123456789abcdef';
/** The queue of the jobs `cancel` is tested on: a worker in this process runs test/fixtures/jobs.ts there. */
const LONG_JOBS = 'long-jobs';

let stack: Stack;
let api: ApiProcess;
let jobWorker: { worker: Worker; done: Promise<void>; connection: NativeConnection };
const jobOutcomes = new Map<string, string>();

beforeAll(async () => {
  stack = await startStack('documented-api');
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const worker = await Worker.create({
    connection,
    taskQueue: LONG_JOBS,
    workflowsPath: fileURLToPath(new URL('../fixtures/jobs.ts', import.meta.url)),
    activities: {
      jobStarted: async (occurrenceId: string) => void jobOutcomes.set(occurrenceId, 'STARTED'),
      jobFinished: async (occurrenceId: string, _at: number, outcome: string) =>
        void jobOutcomes.set(occurrenceId, outcome),
    },
  });
  jobWorker = { worker, done: worker.run(), connection };
  api = await startApiProcess(stack, `${KEY}=dev:ops`, { SCHEDULER_ROLE: 'all' });
});
afterAll(async () => {
  jobWorker?.worker.shutdown();
  await jobWorker?.done.catch(() => {});
  await jobWorker?.connection.close();
  await stopStack(stack);
});

const call = (method: string, path: string, body?: unknown) =>
  api.call(method, path, { key: KEY, ...(body === undefined ? {} : { body }) });

describe('the HTTP API as the documentation walks it', () => {
  it('cancel with {"running": "CANCEL"} cancels the jobs still running; without it they run on', async () => {
    // Overlap SKIP: the schedule follows its job to completion; ALLOW: it starts it and does not.
    const schedules = [
      { id: 'export-skip', overlap: 'SKIP', running: 'CANCEL' },
      { id: 'export-allow', overlap: 'ALLOW', running: 'CANCEL' },
      { id: 'export-keep', overlap: 'SKIP', running: undefined },
    ] as const;
    const jobs = new Map<string, string>();
    for (const { id, overlap } of schedules) {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: id,
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        target: {
          type: 'JOB',
          job_type: 'recordedJob',
          task_queue: LONG_JOBS,
          payload: { sleep_ms: 600_000 },
        },
        overlap,
      });
      expect(created.status).toBe(201);
      const triggered = await call('POST', `/v1/schedules/${id}/trigger`, { reason: 'run it now' });
      expect(triggered.status).toBe(200);
      jobs.set(id, triggered.body.occurrence_id);
    }
    const jobOf = (id: string) => jobs.get(id)!;
    const jobStatus = async (id: string) =>
      (await stack.client.workflow.getHandle(jobOf(id)).describe()).status.name;
    await eventually(
      'every job running, as a listing of the namespace shows it',
      async () => {
        if (![...jobs.values()].every((job) => jobOutcomes.get(job) === 'STARTED')) return undefined;
        const listed = await stack.client.workflow.count(
          `SchedulerOccurrenceId IS NOT NULL AND ExecutionStatus = 'Running'`,
        );
        return listed.count === jobs.size ? true : undefined;
      },
      30_000,
    );
    expect((await call('GET', '/v1/schedules/export-skip/occurrences')).body.items[0]).toMatchObject({
      occurrence_id: jobOf('export-skip'),
      status: 'RUNNING',
    });

    for (const { id, running } of schedules) {
      const cancelled = await call('POST', `/v1/schedules/${id}/cancel`, {
        note: 'export retired',
        ...(running ? { running } : {}),
      });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'CANCELLED', next_run_at: null });
    }
    // Each cancelled job saw the cancellation (its cleanup ran) and ended CANCELLED, ten minutes early.
    for (const id of ['export-skip', 'export-allow']) {
      await eventually(
        `${id}'s job cancelled`,
        async () => (jobOutcomes.get(jobOf(id)) === 'CANCELLED' ? true : undefined),
        20_000,
      );
      await eventually(
        `${id}'s job closed`,
        async () => ((await jobStatus(id)) === 'CANCELLED' ? true : undefined),
        20_000,
      );
    }
    expect(jobOutcomes.get(jobOf('export-keep'))).toBe('STARTED');
    expect(await jobStatus('export-keep')).toBe('RUNNING');
  });

  it('431 with a problem for a request line or headers over 16 KiB', async () => {
    const huge = 'x'.repeat(20 * 1024);
    for (const [what, init] of [
      ['query', { url: `/v1/schedules?timing_kind=${huge}`, headers: {} }],
      ['header', { url: '/v1/schedules', headers: { 'x-trace': huge } }],
    ] as const) {
      const response = await fetch(`${api.base}${init.url}`, {
        headers: { authorization: `Bearer ${KEY}`, ...init.headers },
      });
      expect(response.status, what).toBe(431);
      expect(response.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
      expect(await response.json(), what).toMatchObject({
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        type: expect.stringMatching(/\/problems\/headers-too-large$/),
        detail: expect.stringMatching(/shorten the query or the headers/),
      });
    }
    // The problem type describes itself, and the API still answers.
    expect((await fetch(`${api.base}/problems/headers-too-large`)).status).toBe(200);
    expect((await call('GET', '/v1/schedules')).status).toBe(200);
  });
});

describe('examples/ run as their READMEs say', () => {
  const exampleEnv = (extra: Record<string, string> = {}) => ({
    ...process.env,
    TEMPORAL_ADDRESS: stack.server.address,
    SCHEDULER_URL: api.base,
    SCHEDULER_API_KEY: KEY,
    ...extra,
  });
  const example = (file: string, args: string[], env: NodeJS.ProcessEnv): Spawned => {
    const spawned = spawnProcess(
      process.execPath,
      ['--import', 'tsx', join('examples', file), ...args],
      env,
      repoRoot,
    );
    stack.processes.push(spawned);
    return spawned;
  };
  /** Runs a one-shot example to its end; its output, after checking it exited 0. */
  const runExample = async (file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> => {
    const spawned = example(file, args, env);
    const { code } = await spawned.exit;
    expect(code, spawned.output()).toBe(0);
    return spawned.output();
  };

  it.concurrent('source-sync: the schedule is created, its triggered run completes, the job records it once', async () => {
    const ledger = join(stack.dir, 'source-sync-ledger.json');
    const worker = example('source-sync/worker.ts', [], exampleEnv({ SOURCE_SYNC_LEDGER: ledger }));
    await worker.waitFor(/\[source-sync\] worker polling task queue 'jobs'/, 120_000);

    const first = await runExample('source-sync/create-schedule.ts', [], exampleEnv());
    expect(first).toMatch(/^schedule source-sync-crm: ACTIVE, version 1, next run \S+Z$/m);
    const occurrence =
      /^occurrence (occurrence\/dev\/source-sync-crm\/\S+): COMPLETED \(first run from examples\/source-sync\)$/m.exec(
        first,
      )?.[1];
    expect(occurrence, first).toBeDefined();
    expect(worker.output()).toMatch(
      /\[source-sync\] recorded state:\/\/sources\/crm for \S+ \(MANUAL\) key=schedule:source-sync-crm:/,
    );
    // The schedule is every quarter-hour: a slot that comes due while the test runs records a SCHEDULED run
    // too, so the manual runs are counted apart.
    const records = () =>
      (Object.values(JSON.parse(readFileSync(ledger, 'utf8'))) as Array<Record<string, string>>).filter(
        (r) => r.trigger === 'MANUAL',
      );
    expect(records()).toEqual([
      expect.objectContaining({
        occurrence_id: occurrence,
        schedule_id: 'source-sync-crm',
        trigger: 'MANUAL',
        source: 'state://sources/crm',
      }),
    ]);

    // "Running it again is safe": the same schedule (200), another manual run.
    const again = await runExample('source-sync/create-schedule.ts', [], exampleEnv());
    expect(again).toMatch(/^schedule source-sync-crm: ACTIVE, version 1,/m);
    expect(again).toMatch(/^occurrence occurrence\/dev\/source-sync-crm\/\S+: COMPLETED/m);
    expect(records()).toHaveLength(2);
    expect(new Set(records().map((r) => r.idempotency_key)).size).toBe(2);
    const { body } = await call('GET', '/v1/schedules/source-sync-crm');
    expect(body).toMatchObject({
      status: 'ACTIVE',
      timing: { kind: 'CRON', expression: '*/15 * * * *', timezone: 'Europe/Riga' },
      overlap: 'SKIP',
      misfire: 'FIRE_ONCE',
    });
  });

  it.concurrent('contract-deadline: two reminders and the deadline reach the sink once each, a lost answer deduplicated, then COMPLETED', async () => {
    const port = await freePort();
    const sink = example('contract-deadline/sink.ts', ['--lose-first-ack'], {
      ...process.env,
      SINK_PORT: String(port),
    });
    await sink.waitFor(
      new RegExp(`CloudEvents sink on http://127\\.0\\.0\\.1:${port}/events \\(--lose-first-ack\\)`),
    );

    // The README's "+3m --reminders PT2M,PT1M", in seconds: an instant the script takes as given.
    const deadline = new Date(Math.ceil(Date.now() / 1000) * 1000 + 20_000)
      .toISOString()
      .replace('.000Z', 'Z');
    const out = await runExample(
      'contract-deadline/create.ts',
      [deadline, '--reminders', 'PT12S,PT6S', '--sink', `http://127.0.0.1:${port}/events`],
      exampleEnv(),
    );
    const id = `contract-C-2026-042-deadline-${deadline.replace(/[-:]/g, '')}`;
    expect(out).toMatch(
      new RegExp(`^schedule ${id}: ACTIVE, deadline ${deadline} = \\S+\\+0[23]:00 Europe/Riga$`, 'm'),
    );
    expect(out.split('next runs:')[1]?.match(/(reminder:PT12S|reminder:PT6S|deadline)/g)).toEqual([
      'reminder:PT12S',
      'reminder:PT6S',
      'deadline',
    ]);

    const ended = await eventually(
      'the schedule COMPLETED',
      async () => {
        const { body } = await call('GET', `/v1/schedules/${id}/describe`);
        return body.schedule.status === 'COMPLETED' ? body : undefined;
      },
      Date.parse(deadline) - Date.now() + 30_000,
      1_000,
    );
    const occurrences = ended.recent_occurrences;
    expect(occurrences).toHaveLength(3);
    for (const o of occurrences)
      expect(o, o.occurrence_id).toMatchObject({
        status: 'HANDED_OFF',
        attempt: 2,
        duplicate_prevented: true,
      });
    expect(ended.counters).toMatchObject({ fired: 3, duplicates_prevented: 3, failed: 0 });

    // The sink printed each event once, in order, and ignored each retry.
    const printed = sink.output();
    expect(printed.match(/contract\.deadline {2}(reminder, .*|DEADLINE)$/gm)).toEqual([
      expect.stringMatching(/reminder/),
      expect.stringMatching(/reminder/),
      'contract.deadline  DEADLINE',
    ]);
    const ids = [...printed.matchAll(/^ {2}id: +(\S+)$/gm)].map((m) => m[1]);
    expect(new Set(ids)).toEqual(new Set(occurrences.map((o: { occurrence_id: string }) => o.occurrence_id)));
    expect(ids).toHaveLength(3);
    const ignored = [...printed.matchAll(/duplicate ignored: (\S+)$/gm)].map((m) => m[1]);
    expect(ignored.sort()).toEqual([...ids].sort());
    expect(printed).toContain(`payload:       {"contract_id":"C-2026-042","deadline":"`);
  });
});
