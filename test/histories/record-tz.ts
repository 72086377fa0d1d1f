// Records the histories of the tz horizon (PATCHES.TZ_HORIZON) for the replay test: a schedule recomputed
// after its zone's rules changed, one left to its horizon, and a sparse one that wakes a horizon before its
// slot to compute it again. Like record.ts (which explains the format):
//   node --import tsx test/histories/record-tz.ts test/histories/v0.6.0
import { DateTime } from 'luxon';
import '../helpers/quiet-sdk.js';
import { amendedZoneRules, useZoneRules, zoneRules } from '../../src/calendar/index.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { newerTzSignal } from '../../src/workflows/definitions.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };
const dailyInRiga = { kind: 'CRON' as const, expression: '0 9 * * *', timezone: 'Europe/Riga' };

const outDir = recordingDirectory('record-tz.ts <output directory>');

const h = await SchedulerHarness.start();
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir);

try {
  const now = DateTime.fromMillis(await h.now(), { zone: 'Europe/Riga' });
  await sdk.create({ schedule_id: 'tz-recompute', target: job, timing: dailyInRiga });
  await sdk.create({ schedule_id: 'tz-horizon', target: job, timing: dailyInRiga });
  // Once, 20 days ahead: further than the horizon, so it wakes 7 days before to compute its instant again.
  const far = now.plus({ days: 20 }).set({ hour: 14, minute: 0, second: 0, millisecond: 0 });
  await sdk.create({
    schedule_id: 'tz-sparse',
    target: job,
    timing: { kind: 'ONE_TIME', at: far.toFormat("yyyy-MM-dd'T'HH:mm:ss"), timezone: 'Europe/Riga' },
  });
  await h.env.sleep(6 * DAY);
  useZoneRules(
    amendedZoneRules(zoneRules(), '2099a', [
      { zone: 'Europe/Riga', from: now.plus({ days: 8 }).toMillis(), offsetMs: 5 * HOUR },
    ]),
  );
  await h.env.client.workflow
    .getHandle(scheduleWorkflowId('acme', 'tz-horizon'))
    .signal(newerTzSignal, { version: '2099a' });
  await sdk.recomputeSchedule('tz-recompute', { zone: 'Europe/Riga', reason: 'tzdata 2099a' });
  // Refused by the validator (once a minute): it never enters the history.
  await sdk.recomputeSchedule('tz-recompute', { reason: 'again' }).then(
    () => Promise.reject(new Error('a second recompute within a minute was accepted')),
    () => {},
  );
  await h.env.sleep(16 * DAY);
  // Accepted, and answered without a change: the slots are computed with 2099a already.
  await sdk.recomputeSchedule('tz-recompute', { if_older_than: '2099a' });
  await sdk.cancel('tz-recompute');
  await sdk.cancel('tz-horizon');
  await h.env.sleep(HOUR);
  await save('tz-recompute', 'tz-recompute');
  await save('tz-horizon', 'tz-horizon');
  await save('tz-sparse', 'tz-sparse');
} finally {
  await h.teardown();
}
