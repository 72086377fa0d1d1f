// The Grafana dashboard queries only metrics the product exports (a renamed metric breaks this test, not
// an operator's dashboard in production).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LATENESS_HISTOGRAM, OCCURRENCE_COUNTERS } from '../../src/workflows/metrics.js';

const dashboard = JSON.parse(
  readFileSync(new URL('../../deploy/grafana/durable-scheduler.json', import.meta.url), 'utf8'),
) as { panels: Array<{ targets: Array<{ expr: string }> }> };

const exported = new Set([
  ...Object.values(OCCURRENCE_COUNTERS).map((c) => `${c.name}_total`),
  `${LATENESS_HISTOGRAM}_bucket`,
  'scheduler_handoffs_in_flight',
  'scheduler_schedules',
  'scheduler_schedules_overdue',
  'scheduler_invalid_rules_rejected_total',
  'scheduler_http_requests_total',
  'workflow_task_schedule_to_start_latency_bucket', // the SDK's, exported without a prefix
]);

describe('Grafana dashboard', () => {
  it('uses only exported metric names', () => {
    const used = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) =>
        [...t.expr.matchAll(/\b((?:scheduler|workflow)_[a-z_]+)\b/g)].map((m) => m[1]!),
      ),
    );
    expect(used.length).toBeGreaterThan(8);
    expect(used.filter((name) => !exported.has(name))).toEqual([]);
  });
});
