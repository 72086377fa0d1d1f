// Creates (idempotently) the `source-sync-crm` schedule through the HTTP API — every 15 minutes in
// Riga, starting a `source.sync` workflow on the `jobs` task queue — then runs it once now and follows
// that occurrence until the worker has finished it.
import type { Occurrence, Schedule } from '../../src/model/contracts.js';
import { ApiError, api, run, schedulerUrl } from '../shared.js';

const SCHEDULE_ID = process.env.SCHEDULE_ID || 'source-sync-crm';

const definition = {
  schedule_id: SCHEDULE_ID,
  timing: { kind: 'CRON', expression: '*/15 * * * *', timezone: 'Europe/Riga' },
  target: { type: 'JOB', job_type: 'source.sync', payload_ref: 'state://sources/crm' },
  overlap: 'SKIP', // a sync still running at the next quarter hour: that slot is skipped (and recorded)
  misfire: 'FIRE_ONCE', // after downtime: one catch-up run, not one per missed quarter hour
};

run(async () => {
  let schedule: Schedule;
  try {
    // 201 when created, 200 when this exact definition already exists (create is idempotent on the ID).
    schedule = await api<Schedule>('POST', '/v1/schedules', definition);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      throw new Error(
        `${err.message}\n  schedule ${SCHEDULE_ID} exists with another definition: delete it (curl -X DELETE ${schedulerUrl}/v1/schedules/${SCHEDULE_ID} …) or set SCHEDULE_ID`,
      );
    }
    throw err;
  }
  console.log(
    `schedule ${schedule.schedule_id}: ${schedule.status}, version ${schedule.version}, next run ${schedule.next_run_at}`,
  );

  // Run one now: a MANUAL occurrence for this instant (the quarter-hour slots are unaffected).
  const triggered = await api<Occurrence>('POST', `/v1/schedules/${SCHEDULE_ID}/trigger`, {
    reason: 'first run from examples/source-sync',
  });
  console.log('triggered occurrence:');
  console.log(JSON.stringify(triggered, null, 2));

  // Follow it: the scheduler records the job's outcome on the occurrence when the workflow finishes.
  const deadline = Date.now() + 20_000;
  let latest = triggered;
  while (Date.now() < deadline && !['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(latest.status)) {
    await new Promise((r) => setTimeout(r, 1000));
    const { items } = await api<{ items: Occurrence[] }>(
      'GET',
      `/v1/schedules/${SCHEDULE_ID}/occurrences?limit=10`,
    );
    latest = items.find((o) => o.occurrence_id === triggered.occurrence_id) ?? latest;
  }
  console.log(
    `occurrence ${latest.occurrence_id}: ${latest.status}${latest.reason ? ` (${latest.reason})` : ''}`,
  );
  if (latest.status === 'RUNNING') {
    console.log(
      "still RUNNING: is the worker running? (node --import tsx examples/source-sync/worker.ts); it polls task queue 'jobs'",
    );
  }
});
