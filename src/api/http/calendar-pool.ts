// The HTTP API's calendar off its event loop (issue 20). A definition's searches (validation, the first slot
// batch, previews: up to 200,000 candidates each) run on a pool of worker threads (piscina), each request's
// under a wall-time budget: past it, the request is refused with the calendar's typed SEARCH_LIMIT (422,
// field and reason), and a search that ends within it answers exactly what the calendar answers on the event
// loop (the same function, with a budget it did not reach). In front of the pool, a fair queue: a tenant has
// at most `threads - 1` searches running (one tenant never holds every thread) and `tenantQueue` waiting;
// beyond, 429 with Retry-After. Waiting tenants are served in turn (round robin), so another tenant's
// create waits behind at most one search per thread, never behind a flooding tenant's whole queue; past
// `maxQueued` waiting in all, 503 with Retry-After.
import { Piscina } from 'piscina';
import {
  DEFAULT_CALENDAR_BUDGET_MS,
  DEFAULT_CALENDAR_TENANT_QUEUE,
  DEFAULT_CALENDAR_THREADS,
} from '../../model/defaults.js';
import type { SlotBatch, SlotBatchRequest } from '../../model/slots.js';
import {
  batchesOf,
  budgetReason,
  IN_PROCESS_SLOTS,
  type InterpretTask,
  type InterpretTaskOutcome,
  type SlotRunner,
  type SlotTask,
  type SlotTaskOutcome,
} from '../slot-runner.js';
import { HttpProblem } from './problems.js';

/** Waiting searches of all tenants together before 503. */
export const DEFAULT_CALENDAR_MAX_QUEUED = 256;

export interface CalendarPoolOptions {
  /** Worker threads (SCHEDULER_CALENDAR_THREADS); 0: the calendar runs on the event loop, unbounded (as up to 0.5). */
  threads: number;
  /** Wall time one request's searches may take in a thread (SCHEDULER_CALENDAR_BUDGET_MS). */
  budgetMs: number;
  /** Searches of one tenant waiting for a thread before 429 (SCHEDULER_CALENDAR_TENANT_QUEUE). */
  tenantQueue: number;
  /** Searches of all tenants waiting before 503. */
  maxQueued?: number;
}

export const DEFAULT_CALENDAR_POOL: CalendarPoolOptions = {
  threads: DEFAULT_CALENDAR_THREADS,
  budgetMs: DEFAULT_CALENDAR_BUDGET_MS,
  tenantQueue: DEFAULT_CALENDAR_TENANT_QUEUE,
};

/** Why a search was not admitted: the tenant's own queue is full, or everyone's is. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  constructor(
    readonly scope: 'tenant' | 'pool',
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}

interface TenantLane {
  running: number;
  waiting: Array<() => void>;
}

/**
 * At most `slots` jobs at once, at most `perTenant` of them one tenant's; each tenant's waiting jobs in order,
 * tenants served in turn. `estimateMs` (a job's longest run) only says how long to wait in a refusal.
 */
export class FairQueue {
  private running = 0;
  private queued = 0;
  private readonly lanes = new Map<string, TenantLane>();
  /** Tenants with waiting jobs, in the order they are next served (served ones go to the back). */
  private readonly turn = new Set<string>();

  constructor(
    readonly limits: {
      slots: number;
      perTenant: number;
      perTenantQueue: number;
      maxQueued: number;
      estimateMs: number;
    },
  ) {}

  /** Jobs running and waiting now, in all and for one tenant. */
  stats(tenant?: string): { running: number; queued: number; tenantRunning: number; tenantQueued: number } {
    const lane = tenant === undefined ? undefined : this.lanes.get(tenant);
    return {
      running: this.running,
      queued: this.queued,
      tenantRunning: lane?.running ?? 0,
      tenantQueued: lane?.waiting.length ?? 0,
    };
  }

  /** Runs `job` once admitted; rejects with QueueFullError, without running it, when its tenant's or every queue is full. */
  async run<T>(tenant: string, job: () => Promise<T>): Promise<T> {
    await this.admit(tenant);
    try {
      return await job();
    } finally {
      this.release(tenant);
    }
  }

  private admit(tenant: string): Promise<void> {
    let lane = this.lanes.get(tenant);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(tenant, lane);
    }
    const { slots, perTenant, perTenantQueue, maxQueued, estimateMs } = this.limits;
    if (lane.waiting.length === 0 && lane.running < perTenant && this.running < slots) {
      lane.running++;
      this.running++;
      return Promise.resolve();
    }
    if (lane.waiting.length >= perTenantQueue) {
      const ahead = lane.running + lane.waiting.length;
      throw new QueueFullError(
        'tenant',
        Math.max(1, Math.ceil((ahead * estimateMs) / perTenant / 1000)),
        `this tenant has ${lane.running} calendar searches running and ${lane.waiting.length} waiting, its limit (SCHEDULER_CALENDAR_TENANT_QUEUE)`,
      );
    }
    if (this.queued >= maxQueued) {
      throw new QueueFullError(
        'pool',
        Math.max(1, Math.ceil((this.queued * estimateMs) / slots / 1000)),
        `${this.queued} calendar searches are waiting for a thread, the API's limit`,
      );
    }
    this.queued++;
    this.turn.add(tenant);
    return new Promise<void>((resolve) => lane.waiting.push(resolve));
  }

  private release(tenant: string): void {
    const lane = this.lanes.get(tenant)!;
    lane.running--;
    this.running--;
    this.dispatch();
    if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(tenant);
  }

  private dispatch(): void {
    while (this.running < this.limits.slots) {
      let next: string | undefined;
      for (const tenant of this.turn) {
        if (this.lanes.get(tenant)!.running < this.limits.perTenant) {
          next = tenant;
          break;
        }
      }
      if (next === undefined) return;
      const lane = this.lanes.get(next)!;
      const start = lane.waiting.shift()!;
      this.turn.delete(next);
      if (lane.waiting.length > 0) this.turn.add(next); // to the back of the turn
      this.queued--;
      lane.running++;
      this.running++;
      start();
    }
  }
}

/** The worker module next to this one, as this module is loaded: TypeScript under tsx, JavaScript from dist. */
function workerFile(): { filename: string; execArgv: string[] } {
  const typescript = import.meta.url.endsWith('.ts');
  const filename = new URL(`./calendar-worker.${typescript ? 'ts' : 'js'}`, import.meta.url).href;
  // A thread inherits this process's flags; one started without tsx (vitest) gets it for the .ts module.
  const hasTsx = process.execArgv.some((arg) => /tsx/.test(arg));
  return {
    filename,
    execArgv: typescript && !hasTsx ? [...process.execArgv, '--import', 'tsx'] : process.execArgv,
  };
}

export class CalendarPool implements SlotRunner {
  private readonly piscina: Piscina<SlotTask | InterpretTask, SlotTaskOutcome | InterpretTaskOutcome>;
  private readonly queue: FairQueue;
  /** Every thread has loaded the calendar (and the holiday data): a request's budget starts after it. */
  private readonly started: Promise<unknown>;

  constructor(readonly options: CalendarPoolOptions) {
    if (!(options.threads >= 1)) throw new Error('a calendar pool needs at least one thread');
    const { filename, execArgv } = workerFile();
    this.piscina = new Piscina<SlotTask | InterpretTask, SlotTaskOutcome | InterpretTaskOutcome>({
      filename,
      execArgv,
      minThreads: options.threads,
      maxThreads: options.threads,
      // The fair queue admits at most `threads` tasks: piscina's own queue stays empty.
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
    this.queue = new FairQueue({
      slots: options.threads,
      perTenant: Math.max(1, options.threads - 1),
      perTenantQueue: options.tenantQueue,
      maxQueued: options.maxQueued ?? DEFAULT_CALENDAR_MAX_QUEUED,
      estimateMs: options.budgetMs,
    });
    // Load the calendar in every thread now, not in the first requests; a request's time budget counts from
    // then: a loaded machine that takes seconds to start the threads is not a rule that searches too long.
    this.started = Promise.allSettled(
      Array.from({ length: options.threads }, () => this.piscina.run({ requests: [], budgetMs: null })),
    );
  }

  stats(tenant?: string) {
    return this.queue.stats(tenant);
  }

  async slots(tenant: string, requests: SlotBatchRequest[]): Promise<SlotBatch[]> {
    const outcome = await this.admitted(tenant, () =>
      this.runTask({ requests, budgetMs: this.options.budgetMs }, 'timing'),
    );
    return batchesOf(outcome as SlotTaskOutcome);
  }

  /**
   * One reading of a text on a thread, queued with the tenant's calendar searches: the reading computes
   * its next runs with the calendar (without a budget of its own), so a reading that does not end within
   * twice the budget and a second is stopped like a search (SEARCH_LIMIT, naming `text`).
   */
  async interpret(tenant: string, task: InterpretTask): Promise<InterpretTaskOutcome> {
    return (await this.admitted(tenant, () => this.runTask(task, 'text'))) as InterpretTaskOutcome;
  }

  /** `job` once the fair queue admits it; a full queue is a 429 (the tenant's) or a 503 (everyone's). */
  private async admitted<T>(tenant: string, job: () => Promise<T>): Promise<T> {
    try {
      return await this.queue.run(tenant, job);
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      throw err.scope === 'tenant'
        ? new HttpProblem(
            'rate-limited',
            `${err.message}: wait for them, and retry in ${err.retryAfterSeconds} s`,
            { code: 'RATE_LIMITED' },
            { 'retry-after': String(err.retryAfterSeconds) },
          )
        : new HttpProblem(
            'unavailable',
            `${err.message}: retry in ${err.retryAfterSeconds} s`,
            { code: 'UNAVAILABLE' },
            { 'retry-after': String(err.retryAfterSeconds) },
          );
    }
  }

  /**
   * One task on a thread. The thread stops its own search at the budget; a thread that does not (a loop
   * between two budget checks) is stopped from here at twice the budget and a second (piscina replaces it),
   * and the request gets the same answer.
   */
  private async runTask(
    task: SlotTask | InterpretTask,
    field: string,
  ): Promise<SlotTaskOutcome | InterpretTaskOutcome> {
    await this.started;
    const signal = AbortSignal.timeout(2 * this.options.budgetMs + 1000);
    try {
      return await this.piscina.run(task, { signal });
    } catch (err) {
      if (!signal.aborted) throw err;
      return {
        ok: false,
        error: { field, reason: budgetReason(this.options.budgetMs), code: 'SEARCH_LIMIT' },
      };
    }
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

/** The runner for these options: a pool, or the event loop itself for 0 threads. */
export function calendarRunner(options: CalendarPoolOptions): SlotRunner & { close(): Promise<void> } {
  if (options.threads === 0) return { ...IN_PROCESS_SLOTS, close: async () => {} };
  return new CalendarPool(options);
}
