// GET /metrics on the API (Prometheus text, prom-client): what the API itself sees (requests, definitions
// it rejected) and what only visibility knows (schedules by tenant, timing kind and status; schedules whose
// next run is far in the past). The worker's metrics (occurrences, lateness, hand-offs, the SDK's own) come
// from the worker runtime's exporter (src/runtime/telemetry.ts); when this process also runs the worker,
// its text is appended so one scrape sees everything.
import type { Client } from '@temporalio/client';
import { Counter, Gauge, Registry } from 'prom-client';
import { DELETED_VISIBLE_STATUS } from '../../model/views.js';
import { SCHEDULE_WORKFLOW_TYPE } from '../../workflows/definitions.js';
import {
  NextRunAtKey,
  ScheduleStatusKey,
  TenantIdKey,
  TimingKindKey,
} from '../../workflows/search-attributes.js';

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
  /** The text for one scrape. */
  render(): Promise<string>;
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
  const schedules = new Gauge({
    name: 'scheduler_schedules',
    help: 'schedules by tenant, timing kind and status (from visibility)',
    labelNames: ['tenant', 'timing_kind', 'status'] as const,
    registers: [registry],
  });
  const overdue = new Gauge({
    name: 'scheduler_schedules_overdue',
    help: `active schedules whose next run is more than ${options.overdueAfterSeconds} s in the past (from visibility)`,
    registers: [registry],
  });
  const visibilityErrors = new Counter({
    name: 'scheduler_metrics_visibility_errors_total',
    help: 'failed visibility reads while collecting schedule gauges',
    registers: [registry],
  });

  const cacheMs = options.visibilityCacheMs ?? 30_000;
  let readAt = 0;
  let reading: Promise<void> | null = null;

  // One pass over the schedules' search attributes (no workflow is queried): O(schedules / 1000) list
  // calls per refresh, at most once per cache period.
  const readVisibility = async () => {
    const counts = new Map<string, number>();
    const query = `WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}' AND ${ScheduleStatusKey.name} != '${DELETED_VISIBLE_STATUS}'`;
    for await (const execution of options.client.workflow.list({ query, pageSize: 1000 })) {
      const attrs = execution.searchAttributes ?? {};
      const key = JSON.stringify([
        String(attrs[TenantIdKey.name]?.[0] ?? ''),
        String(attrs[TimingKindKey.name]?.[0] ?? ''),
        String(attrs[ScheduleStatusKey.name]?.[0] ?? ''),
      ]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const threshold = new Date(Date.now() - options.overdueAfterSeconds * 1000).toISOString();
    const late = await options.client.workflow.count(
      `WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND ${ScheduleStatusKey.name} = 'ACTIVE' AND ${NextRunAtKey.name} < '${threshold}'`,
    );
    schedules.reset();
    for (const [key, value] of counts) {
      const [tenant, timing_kind, status] = JSON.parse(key) as [string, string, string];
      schedules.set({ tenant, timing_kind, status }, value);
    }
    overdue.set(late.count);
  };

  const refresh = async () => {
    if (Date.now() - readAt < cacheMs) return;
    reading ??= readVisibility()
      .then(() => {
        readAt = Date.now();
      })
      .catch(() => visibilityErrors.inc())
      .finally(() => {
        reading = null;
      });
    await reading;
  };

  return {
    registry,
    requests,
    invalidDefinitions,
    render: async () => {
      await refresh();
      let text = await registry.metrics();
      if (options.workerMetricsUrl) {
        try {
          text += `\n${await (await fetch(options.workerMetricsUrl, { signal: AbortSignal.timeout(5000) })).text()}`;
        } catch {
          text += '\n# the worker metrics endpoint did not answer\n';
        }
      }
      return text;
    },
  };
}
