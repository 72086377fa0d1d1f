// Tenant policy files (SCHEDULER_TENANTS_FILE) for tests that run the product's own processes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { TenantTargets } from '../../src/model/tenant-policy.js';

/** Quotas no test whose subject is not the quotas reaches (the suite's quickest interval is PT1S). */
export const OPEN_QUOTAS = {
  max_schedules: 1_000_000,
  min_interval_s: 0,
  max_backfill_slots: 1000,
  max_backfill_slots_per_hour: 1_000_000,
} as const;

/** Everything, private sinks included: for tests whose subject is not the policy. */
export const OPEN_TARGETS = {
  job_task_queues: ['*'],
  job_types: ['*'],
  signal_workflow_ids: ['*'],
  event_sinks: [{ url: '*', private: true }],
  // The tests create schedules firing every second or two and backfill freely: no quota in the way.
  quotas: OPEN_QUOTAS,
} satisfies z.input<typeof TenantTargets>;

/** Writes (or rewrites, as an operator's edit) the policy file and returns its path. */
export function writeTenantsFile(
  dir: string,
  tenants: Record<string, z.input<typeof TenantTargets>>,
  name = 'tenants.json',
): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ tenants }, null, 2));
  return file;
}
