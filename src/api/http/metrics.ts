// GET /metrics on the API (Prometheus text, prom-client): what the API itself sees (requests, definitions
// it rejected) and what only visibility knows (schedules by tenant, timing kind and status; schedules whose
// next run is far in the past). The worker's metrics (occurrences, lateness, hand-offs, the SDK's own) come
// from the worker runtime's exporter (src/runtime/telemetry.ts); when this process also runs the worker,
// its text is appended so one scrape sees everything.
import type { Client } from '@temporalio/client';
import { Counter, Gauge, Registry } from 'prom-client';
import { DELETED_VISIBLE_STATUS } from '../../model/views.js';
import { SCHEDULE_WORKFLOWS } from '../../workflows/definitions.js';
import {
  NextRunAtKey,
  ScheduleStatusKey,
  TenantIdKey,
  TimingKindKey,
} from '../../workflows/search-attributes.js';
import { singleFlight } from './single-flight.js';

export interface ApiMetricsOptions {
  client: Client;
  /** A schedule whose next run is older than this is overdue. */
  overdueAfterSeconds: number;
  /** Visibility is read at most this often; scrapes in between get the last reading. */
  visibilityCacheMs?: number;
  /** URL of the worker runtime's Prometheus endpoint in this process, if any. */
  workerMetricsUrl?: string | null;
}

export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  invalidDefinitions: Counter<'field'>;
  /** Expected slots an audit found decided with no record: each one a bug to look into. */
  auditUnexplained: Counter<'tenant'>;
  /** The text for one scrape. */
  render(): Promise<string>;
}

/** The gauges only visibility can fill, and the count of reads of it that failed. */
interface VisibilityGauges {
  schedules: Gauge<'tenant' | 'timing_kind' | 'status'>;
  overdue: Gauge;
  visibilityErrors: Counter;
}

function visibilityGauges(registry: Registry, overdueAfterSeconds: number): VisibilityGauges {
  return {
    schedules: new Gauge({
      name: 'scheduler_schedules',
      help: 'schedules by tenant, timing kind and status (from visibility)',
      labelNames: ['tenant', 'timing_kind', 'status'] as const,
      registers: [registry],
    }),
    overdue: new Gauge({
      name: 'scheduler_schedules_overdue',
      help: `active schedules whose next run is more than ${overdueAfterSeconds} s in the past (from visibility)`,
      registers: [registry],
    }),
    visibilityErrors: new Counter({
      name: 'scheduler_metrics_visibility_errors_total',
      help: 'failed visibility reads while collecting schedule gauges',
      registers: [registry],
    }),
  };
}

/**
 * One pass over the schedules' search attributes (no workflow is queried): O(schedules / 1000) list calls,
 * and one count of the overdue ones.
 */
async function readVisibility(client: Client, gauges: VisibilityGauges, overdueAfterSeconds: number) {
  const counts = new Map<string, number>();
  const query = `${SCHEDULE_WORKFLOWS} AND ${ScheduleStatusKey.name} != '${DELETED_VISIBLE_STATUS}'`;
  for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
    const attrs = execution.searchAttributes ?? {};
    const key = JSON.stringify([
      String(attrs[TenantIdKey.name]?.[0] ?? ''),
      String(attrs[TimingKindKey.name]?.[0] ?? ''),
      String(attrs[ScheduleStatusKey.name]?.[0] ?? ''),
    ]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const threshold = new Date(Date.now() - overdueAfterSeconds * 1000).toISOString();
  const late = await client.workflow.count(
    `${SCHEDULE_WORKFLOWS} AND ExecutionStatus = 'Running' AND ${ScheduleStatusKey.name} = 'ACTIVE' AND ${NextRunAtKey.name} < '${threshold}'`,
  );
  gauges.schedules.reset();
  for (const [key, value] of counts) {
    const [tenant, timing_kind, status] = JSON.parse(key) as [string, string, string];
    gauges.schedules.set({ tenant, timing_kind, status }, value);
  }
  gauges.overdue.set(late.count);
}

/**
 * `read` at most once per `cacheMs` (from its last success), concurrent callers sharing one run; a failed
 * run is counted once (`failed`) and read again by the next caller.
 */
function cachedRefresh(read: () => Promise<void>, cacheMs: number, failed: () => void): () => Promise<void> {
  const refresh = singleFlight({ ttlMs: cacheMs }, () =>
    read().catch((err: unknown) => {
      failed();
      throw err;
    }),
  );
  return () => refresh(undefined).catch(() => {});
}

/** The worker runtime's own text, appended so one scrape sees everything. */
async function workerMetricsText(url: string): Promise<string> {
  try {
    return `\n${await (await fetch(url, { signal: AbortSignal.timeout(5000) })).text()}`;
  } catch {
    return '\n# the worker metrics endpoint did not answer\n';
  }
}

export function createApiMetrics(options: ApiMetricsOptions): ApiMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'scheduler_http_requests_total',
    help: 'HTTP API requests by route and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const invalidDefinitions = new Counter({
    name: 'scheduler_invalid_rules_rejected_total',
    help: 'schedule definitions rejected at create, edit or preview, by failing field',
    labelNames: ['field'] as const,
    registers: [registry],
  });
  const auditUnexplained = new Counter({
    name: 'scheduler_audit_unexplained_slots_total',
    help: 'expected slots an audit found decided with no record in the ledger (a bug by definition), by tenant',
    labelNames: ['tenant'] as const,
    registers: [registry],
  });
  const gauges = visibilityGauges(registry, options.overdueAfterSeconds);
  const refresh = cachedRefresh(
    () => readVisibility(options.client, gauges, options.overdueAfterSeconds),
    options.visibilityCacheMs ?? 30_000,
    () => gauges.visibilityErrors.inc(),
  );
  return {
    registry,
    requests,
    invalidDefinitions,
    auditUnexplained,
    render: async () => {
      await refresh();
      const text = await registry.metrics();
      return options.workerMetricsUrl ? text + (await workerMetricsText(options.workerMetricsUrl)) : text;
    },
  };
}
