// The package's `durable-scheduler/testing` entry: a kit for your own tests on Temporal's time-skipping
// test server. It starts the scheduler's real worker (the production workflows and activities) next to
// your job workers, hands you a SchedulerClient on the test server's clock, skips time and reads what
// fired. Needs the optional peer dependency @temporalio/testing.
import type { Duration } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { findTestServer } from '../../scripts/toolchain.mjs';
import type { Principal } from '../api/auth.js';
import { SchedulerClient } from '../api/client.js';
import type { ScheduleStartOptions } from '../api/sdk/options.js';
import type { Occurrence } from '../model/contracts.js';
import { TenantPolicy } from '../model/tenant-policy.js';
import { registerSearchAttributes } from '../runtime/namespace.js';
import { schedulerWorkerOptions } from '../worker.js';

/**
 * The time-skipping server does not begin a delayed start when it skips time (it began one 2 h late, when a
 * later timer woke it): jobs start at their instant here, as with SCHEDULER_ARM_LEAD_S=0, and each schedule
 * starts awake, its first task at creation.
 */
const TIME_SKIPPING_START: ScheduleStartOptions = { armLeadMs: 0, startAsleep: false };

export interface TimeSkippingServerOptions {
  /**
   * The time-skipping test server executable. Default: TEMPORAL_TEST_SERVER_PATH, else the one
   * durable-scheduler's `npm run servers` cached (built from Maven Central, for machines that cannot
   * reach Temporal's download site), else the Temporal SDK downloads its own.
   */
  testServerPath?: string;
}

/** Where the test server comes from: an explicit or cached executable, or null for the SDK's download. */
export function timeSkippingServerPath(options: TimeSkippingServerOptions = {}): string | null {
  return options.testServerPath ?? findTestServer();
}

/** Starts Temporal's time-skipping test server (see {@link TimeSkippingServerOptions} for which one). */
export async function createTimeSkippingEnv(
  options: TimeSkippingServerOptions = {},
): Promise<TestWorkflowEnvironment> {
  const path = timeSkippingServerPath(options);
  if (path) {
    // The SDK gives the Java server 5 s to answer, a fixed bound a JVM starting on busy cores can miss: a
    // server that did not come up is started again (twice at most); any other error is the caller's.
    for (let attempt = 1; ; attempt++) {
      try {
        return await TestWorkflowEnvironment.createTimeSkipping({
          server: { executable: { type: 'existing-path', path } },
        });
      } catch (err) {
        if (attempt >= 3 || !/did not start within/.test((err as Error).message)) throw err;
      }
    }
  }
  try {
    return await TestWorkflowEnvironment.createTimeSkipping();
  } catch (err) {
    throw new Error(
      `could not start the time-skipping test server that the Temporal SDK downloads (${(err as Error).message}): without internet access, set TEMPORAL_TEST_SERVER_PATH to a test server executable`,
    );
  }
}

export interface SchedulerTestEnvOptions extends TimeSkippingServerOptions {
  /** The scheduler worker's task queue. Default `durable-scheduler`. */
  taskQueue?: string;
  /** Where JOB targets without a `task_queue` start, and where `startWorker` polls by default. Default `jobs`. */
  jobTaskQueue?: string;
  /** Whose schedules `scheduler` manages. Default tenant `test`, owner `test`. */
  principal?: Principal;
  /**
   * The tenant policy the SDK and the worker enforce, to test yours (`TenantPolicy.parse(fileText)`).
   * Default: every tenant reaches every target (`TenantPolicy.openToAll()`).
   */
  tenantPolicy?: TenantPolicy;
}

/** Options of a worker for your own workflows; `taskQueue` defaults to the environment's `jobTaskQueue`. */
export type TestWorkerOptions = Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue'> & {
  taskQueue?: string;
};

/**
 * A time-skipping test server with the scheduler's worker running on it:
 *
 * ```ts
 * const env = await SchedulerTestEnv.start();
 * await env.startWorker({ workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)), activities });
 * await env.scheduler.create({ … });
 * await env.skip('1 day');
 * console.log(await env.occurrences('my-schedule'));
 * await env.teardown();
 * ```
 */
export class SchedulerTestEnv {
  /** A client for `options.principal`'s schedules, on the test server's clock. */
  readonly scheduler: SchedulerClient;
  private readonly workers: Array<{ worker: Worker; done: Promise<void> }> = [];
  private failure: unknown = null;

  private constructor(
    /** The underlying @temporalio/testing environment (its `client`, `nativeConnection`, `sleep`…). */
    readonly env: TestWorkflowEnvironment,
    readonly taskQueue: string,
    readonly jobTaskQueue: string,
    principal: Principal,
    private readonly tenantPolicy: TenantPolicy,
  ) {
    this.scheduler = this.client(principal);
  }

  static async start(options: SchedulerTestEnvOptions = {}): Promise<SchedulerTestEnv> {
    const env = await createTimeSkippingEnv(options);
    const kit = new SchedulerTestEnv(
      env,
      options.taskQueue ?? 'durable-scheduler',
      options.jobTaskQueue ?? 'jobs',
      options.principal ?? { tenant_id: 'test', owner_ref: 'test' },
      options.tenantPolicy ?? TenantPolicy.openToAll(),
    );
    try {
      await registerSearchAttributes(env.connection, env.namespace ?? 'default');
      await kit.startWorker({
        taskQueue: kit.taskQueue,
        ...schedulerWorkerOptions({ client: env.client, tenantPolicy: () => kit.tenantPolicy }),
      });
      return kit;
    } catch (err) {
      await kit.teardown().catch(() => undefined);
      throw err;
    }
  }

  /** A SchedulerClient for another tenant or owner, on the test server's clock. */
  client(principal: Principal): SchedulerClient {
    return new SchedulerClient({
      client: this.env.client,
      taskQueue: this.taskQueue,
      jobTaskQueue: this.jobTaskQueue,
      principal,
      tenantPolicy: () => this.tenantPolicy,
      clock: () => this.nowMs(),
      ...TIME_SKIPPING_START,
    });
  }

  /** Starts a worker for your workflows and activities; it runs until `teardown()`. */
  async startWorker(options: TestWorkerOptions): Promise<Worker> {
    const worker = await Worker.create({
      ...options,
      connection: this.env.nativeConnection,
      namespace: this.env.namespace ?? 'default',
      taskQueue: options.taskQueue ?? this.jobTaskQueue,
    });
    const done = worker.run().catch((err) => {
      this.failure ??= err;
    });
    this.workers.push({ worker, done });
    return worker;
  }

  /** The test server's time, which `skip` moves ahead of this machine's clock. */
  async now(): Promise<Date> {
    return new Date(await this.nowMs());
  }

  /** Moves the test server's time forward (`'1 day'`, `'90 minutes'`, or milliseconds); due schedules fire. */
  async skip(duration: Duration): Promise<void> {
    await this.env.sleep(duration);
  }

  /** The occurrences a schedule of `scheduler`'s principal recorded (its most recent 256), oldest first. */
  async occurrences(scheduleId: string): Promise<Occurrence[]> {
    return await this.scheduler.listOccurrences(scheduleId);
  }

  /** Stops the workers and the test server; rethrows a worker's failure if one stopped on its own. */
  async teardown(): Promise<void> {
    for (const { worker } of this.workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
    await Promise.all(this.workers.map((w) => w.done));
    this.workers.length = 0;
    await this.env.teardown();
    if (this.failure) throw this.failure;
  }

  private async nowMs(): Promise<number> {
    return Number(await this.env.currentTimeMs());
  }
}
