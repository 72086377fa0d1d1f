import { resolve } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../scripts/toolchain.mjs';

const port = z.coerce.number().int().min(1).max(65535);

/** Environment variables the product reads; README "Configuration" documents each. */
export const EnvironmentSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('durable-scheduler'),
  /** Where JOB targets without a task_queue are started: the users' job workers poll it. */
  SCHEDULER_JOB_TASK_QUEUE: z.string().min(1).default('jobs'),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  SCHEDULER_API_PORT: port.default(8080),
  SCHEDULER_API_HOST: z.string().min(1).default('127.0.0.1'),
  SCHEDULER_API_KEYS: z.string().optional(),
  /** Which parts this process runs: both (default), or one, to scale workers and API separately. */
  SCHEDULER_ROLE: z.enum(['all', 'worker', 'api']).default('all'),
  SCHEDULER_DATA_DIR: z.string().min(1).default(resolve(repoRoot, '.data')),
});

export type Environment = z.infer<typeof EnvironmentSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const parsed = EnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
