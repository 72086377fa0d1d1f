// The shard prototype's worker (bench/scheduler/shard/workflow.ts), its own process so that the bench can
// count its CPU as it counts our scheduler worker's:
//
//   TEMPORAL_ADDRESS=… SHARD_QUEUE=shards node --import tsx bench/scheduler/shard/worker.ts
//
// Each start goes through the product's start activity body (`startJobWorkflow`: the tenant policy in
// force, one request ID per emission, a duplicate reported as such), many per activity task. The tuning is
// the scheduler worker's. Prints `ready pid=<pid> polling_at=<epoch ms>` once it polls.
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createHandoffActivities, type JobStartRequest } from '../../../src/activities/handoff.js';
import { TenantPolicy } from '../../../src/model/tenant-policy.js';
import { schedulerWorkerTuning } from '../../../src/worker.js';
import { pool } from '../../../test/integration/support.js';
import type { ShardActivities } from './workflow.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const address = process.env.TEMPORAL_ADDRESS;
if (!address) throw new Error('TEMPORAL_ADDRESS is required');
/** Starts in flight per activity: the bench's own create concurrency. */
const STARTS_IN_FLIGHT = Number(process.env.SHARD_STARTS_IN_FLIGHT ?? 20);

const client = new Client({ connection: await Connection.connect({ address }) });
// As the tests' scheduler worker: every target open (the policy is still asked at every start).
const handoff = createHandoffActivities({ client, tenantPolicy: () => TenantPolicy.openToAll() });
const activities: ShardActivities = {
  startArmedJobs: (requests: JobStartRequest[]) =>
    pool(requests, STARTS_IN_FLIGHT, (request) => handoff.startJobWorkflow(request)),
};
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  taskQueue: process.env.SHARD_QUEUE ?? 'shards',
  workflowsPath: fileURLToPath(new URL('./workflow.ts', import.meta.url)),
  activities,
  ...schedulerWorkerTuning,
});
process.once('SIGTERM', () => worker.shutdown());
const running = worker.run();
process.stdout.write(`ready pid=${process.pid} polling_at=${Date.now()}\n`);
await running;
