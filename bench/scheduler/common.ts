// What every scheduler bench does alike: its log, waits and clocks, the machine's load, and Temporal's side
// of a comparison (a Schedule starting `noopJob` on the job queue, overlap ALLOW_ALL).
import { readFileSync } from 'node:fs';
import { type Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { JOB_QUEUE } from '../../test/integration/support.js';

const t0 = Date.now();
/** A line on stderr, stamped with the seconds since the bench began. */
export const log = (msg: string) =>
  console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
/** A protobuf timestamp (an event's time) in epoch ms. */
export const tsMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Temporal's Schedule `id` on `cron` (UTC): its jobs are `tjob-<id>-<nominal time>`. */
export function createTemporalSchedule(client: Client, id: string, cron: string, jitter?: string) {
  return client.schedule.create({
    scheduleId: id,
    spec: { cronExpressions: [cron], ...(jitter ? { jitter: jitter as '30s' } : {}) },
    action: {
      type: 'startWorkflow',
      workflowType: 'noopJob',
      taskQueue: JOB_QUEUE,
      workflowId: `tjob-${id}`,
      args: [{ occurrence_id: id }],
    },
    policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 hour' },
  });
}
