import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import type { SlotActivityOptions } from '../../src/activities/slots.js';
import { SchedulerClient, type SchedulerClientOptions } from '../../src/api/client.js';
import { TenantPolicy, UNLIMITED_QUOTAS } from '../../src/model/tenant-policy.js';
import { registerSearchAttributes } from '../../src/runtime/namespace.js';
import { schedulerReplayOptions } from '../../src/worker.js';
import type { JobRecorder } from '../fixtures/jobs.js';
import { JOB_QUEUE, SCHEDULER_QUEUE } from './schedule-workflow.js';
import { createTimeSkippingEnv } from './servers.js';

export { JOB_QUEUE, SCHEDULER_QUEUE };

const jobWorkflows = fileURLToPath(new URL('../fixtures/jobs.ts', import.meta.url));

export interface JobRun {
  occurrenceId: string;
  startedAt: number;
  finishedAt?: number;
  outcome?: 'COMPLETED' | 'CANCELLED';
}

/**
 * The real scheduler worker (production workflows and activities) and a worker for test job targets,
 * on one time-skipping test server. `runs` is what the targets saw, in the order they started.
 */
/**
 * An SDK policy that tells new schedules `maxHandoffsInFlight` as their bound and checks nothing else (the
 * time-skipping server cannot count schedules for `max_schedules`).
 */
export function policyTellingHandoffBound(maxHandoffsInFlight = Number.POSITIVE_INFINITY): TenantPolicy {
  return Object.assign(Object.create(TenantPolicy.openToAll()), {
    quotas: () => ({ ...UNLIMITED_QUOTAS, max_handoffs_in_flight: maxHandoffsInFlight }),
  });
}

/**
 * Past a slot, the time by which its timer has surely fired: it fires late by the workflow task that
 * started it, which the server times out after 10 s.
 */
const SLOT_SETTLE_MS = 30_000;

export class SchedulerHarness {
  readonly runs: JobRun[] = [];
  private workers: Worker[] = [];
  private running: Promise<void>[] = [];

  private constructor(
    readonly env: TestWorkflowEnvironment,
    private readonly tenantPolicy: () => TenantPolicy,
    private readonly slots: SlotActivityOptions | undefined,
  ) {}

  /**
   * `tenantPolicy`: what the worker enforces at hand-off (default: every target allowed); `slots`: the slot
   * activity's time budget and clock (default: the worker's).
   */
  static async start(
    options: { tenantPolicy?: () => TenantPolicy; slots?: SlotActivityOptions } = {},
  ): Promise<SchedulerHarness> {
    const harness = new SchedulerHarness(
      await createTimeSkippingEnv(),
      options.tenantPolicy ?? (() => TenantPolicy.openToAll()),
      options.slots,
    );
    await registerSearchAttributes(harness.env.connection, harness.env.namespace ?? 'default');
    await harness.startWorkers();
    return harness;
  }

  async startWorkers(): Promise<void> {
    const recorder: JobRecorder = {
      jobStarted: async (occurrenceId, at) => {
        this.runs.push({ occurrenceId, startedAt: at });
      },
      jobFinished: async (occurrenceId, at, outcome) => {
        const run = this.runs.find((r) => r.occurrenceId === occurrenceId && r.finishedAt === undefined);
        if (run) Object.assign(run, { finishedAt: at, outcome });
      },
    };
    this.workers = [
      await Worker.create({
        connection: this.env.nativeConnection,
        taskQueue: SCHEDULER_QUEUE,
        ...schedulerReplayOptions,
        activities: createActivities({
          client: this.env.client,
          tenantPolicy: this.tenantPolicy,
          ...(this.slots ? { slots: this.slots } : {}),
        }),
      }),
      await Worker.create({
        connection: this.env.nativeConnection,
        taskQueue: JOB_QUEUE,
        workflowsPath: jobWorkflows,
        activities: recorder,
      }),
    ];
    this.running = this.workers.map((w) => w.run());
  }

  /** Stops both workers, as a deploy or an outage would. */
  async stopWorkers(): Promise<void> {
    for (const w of this.workers) w.shutdown();
    await Promise.all(this.running);
    this.workers = [];
    this.running = [];
  }

  /** `tenantPolicy`: what the SDK checks at create (default none, as an SDK embedded with credentials). */
  sdk(
    tenant = 'acme',
    owner = 'ops',
    options: Partial<
      Pick<SchedulerClientOptions, 'tenantPolicy' | 'armLeadMs' | 'armAheadMs' | 'calendar'>
    > = {},
  ): SchedulerClient {
    return new SchedulerClient({
      client: this.env.client,
      taskQueue: SCHEDULER_QUEUE,
      jobTaskQueue: JOB_QUEUE,
      principal: { tenant_id: tenant, owner_ref: owner },
      // Jobs start at their instant: the time-skipping server does not begin a delayed start when it skips
      // time (src/testing/index.ts); armed hand-offs are tested on the dev server (test/integration/armed).
      armLeadMs: 0,
      // Nor a workflow's own start delay: schedules start awake (created asleep: test/integration/asleep).
      startAsleep: false,
      ...options,
      // The test server's clock, which time skipping moves ahead of this machine's.
      clock: () => this.now(),
    });
  }

  /**
   * Moves the clock `SLOT_SETTLE_MS` past `slotAt`, so that the schedule's timer for that slot has fired
   * before the test sends its next signal or update. A command sent "on" the slot in real time races the
   * timer into the command's task (a timer fires late by the task that started it), and when the workflow
   * then cancels that timer the Java test server refuses the CancelTimer and never redelivers the task:
   * the run is wedged (sdk-java #2606, #3088; the real server accepts it). Seen at CI as an edit that never
   * answered. Edits racing due slots are tested on the dev server (test/integration/api-races.test.ts).
   */
  async passSlot(slotAt: string): Promise<void> {
    await this.env.sleep(Date.parse(slotAt) + SLOT_SETTLE_MS - (await this.now()));
  }

  async now(): Promise<number> {
    return Number(await this.env.currentTimeMs());
  }

  async teardown(): Promise<void> {
    await this.stopWorkers();
    await this.env.teardown();
  }
}
