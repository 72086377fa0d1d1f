// Tenant policy files (SCHEDULER_TENANTS_FILE) for tests that run the product's own processes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { TenantTargets } from '../../src/model/tenant-policy.js';

/** Everything, private sinks included: for tests whose subject is not the policy. */
export const OPEN_TARGETS = {
  job_task_queues: ['*'],
  job_types: ['*'],
  signal_workflow_ids: ['*'],
  event_sinks: [{ url: '*', private: true }],
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
