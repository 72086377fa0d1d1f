// What /readyz and /v1/health report: Temporal answers, and a scheduler worker polls its task queue. One
// check serves every caller within a short interval, so a flood of these public probes costs Temporal one
// check (two RPCs) per interval, not two RPCs per request.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { FastifyBaseLogger } from 'fastify';
import { singleFlight } from './single-flight.js';

/** A poller seen this recently counts as a live worker for /readyz. */
const POLLER_FRESH_MS = 2 * 60_000;
/** How long one readiness check answers /readyz and /v1/health. */
export const DEFAULT_READINESS_CACHE_MS = 2_000;

/** Fixed words only, so no Temporal error text or address reaches an unauthenticated caller. */
export interface Readiness {
  temporal: 'reachable' | 'unreachable';
  worker: 'poller seen' | 'no poller' | 'unknown';
}

/**
 * The readiness of `taskQueue`'s scheduler, each Temporal call under `withDeadline`. Its details (the gRPC
 * error, the poller count) go to the log of the request that ran it; callers see fixed words only.
 */
export function readinessCheck(options: {
  client: Client;
  taskQueue: string;
  withDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  cacheMs: number;
  /**
   * The clock the cache interval is counted on (epoch ms; default Date.now), so that a test can hold the
   * interval open or end it instead of racing it. A poller's freshness is compared with Temporal's time, so
   * it is always judged on this machine's clock.
   */
  now?: () => number;
}): (log: FastifyBaseLogger) => Promise<Readiness> {
  const { client, taskQueue, withDeadline } = options;
  const cache = { ttlMs: options.cacheMs, now: options.now ?? Date.now };
  return singleFlight(cache, async (log: FastifyBaseLogger): Promise<Readiness> => {
    try {
      await withDeadline(() => client.workflowService.getSystemInfo({}));
    } catch (err) {
      log.warn({ err }, 'readiness: Temporal did not answer');
      return { temporal: 'unreachable', worker: 'unknown' };
    }
    try {
      const queue = await withDeadline(() =>
        client.workflowService.describeTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      );
      const fresh = (queue.pollers ?? []).filter(
        (p) => Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < POLLER_FRESH_MS,
      );
      if (fresh.length === 0) log.warn({ taskQueue }, 'readiness: no scheduler worker polls');
      return { temporal: 'reachable', worker: fresh.length > 0 ? 'poller seen' : 'no poller' };
    } catch (err) {
      log.warn({ err, taskQueue }, 'readiness: the task queue could not be described');
      return { temporal: 'reachable', worker: 'unknown' };
    }
  });
}
