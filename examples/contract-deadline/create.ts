// Creates a DEADLINE schedule for a contract through the HTTP API: a CloudEvent to the sink one day and
// one hour before the deadline, and at the deadline. Then prints the schedule's next runs.
//
//   node --import tsx examples/contract-deadline/create.ts [deadline] [options]
//
//   deadline            an instant (2026-12-03T12:00:00Z, 2026-12-03T14:00:00+02:00), a local date-time in
//                       --timezone (2026-12-03T14:00), or from now: +3m, +2h, +2d. Default: +2d.
//   --reminders LIST    comma-separated ISO 8601 durations before the deadline (default: P1D,PT1H)
//   --timezone ZONE     IANA zone for a local deadline and for calendar-aware reminders (default: Europe/Riga)
//   --sink URL          where the CloudEvents go (default: $SINK_URL or http://127.0.0.1:9999/events)
//   --contract ID       the contract, carried in the payload (default: C-2026-042)
//   --id SCHEDULE_ID    default: contract-<contract>-deadline-<deadline in UTC>
import { parseArgs } from 'node:util';
import type { NextRun, Schedule, ScheduleDescription } from '../../src/model/contracts.js';
import { ApiError, api, run } from '../shared.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    reminders: { type: 'string', default: 'P1D,PT1H' },
    timezone: { type: 'string', default: 'Europe/Riga' },
    sink: { type: 'string', default: process.env.SINK_URL || 'http://127.0.0.1:9999/events' },
    contract: { type: 'string', default: 'C-2026-042' },
    id: { type: 'string' },
  },
});

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `+3m` → an instant that far from now, on a whole second; anything else is passed through. */
function deadlineFrom(arg: string | undefined): string {
  const relative = /^\+(\d+)([mhd])$/.exec(arg ?? '+2d');
  if (!relative) return arg!;
  const ms = Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `1d 23h 59m` from now to `instant`. */
function fromNow(instant: string): string {
  let minutes = Math.max(0, Math.round((Date.parse(instant) - Date.now()) / 60_000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 1440],
    ['h', 60],
  ] as const) {
    if (minutes >= size) parts.push(`${Math.floor(minutes / size)}${unit}`);
    minutes %= size;
  }
  if (minutes > 0 || parts.length === 0) parts.push(`${minutes}m`);
  return parts.join(' ');
}

run(async () => {
  const at = deadlineFrom(positionals[0]);
  const reminders = values.reminders
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const contract = values.contract;
  const absolute = /(Z|[+-]\d\d:?\d\d)$/i.test(at) && !Number.isNaN(Date.parse(at));
  const compact = absolute
    ? new Date(at).toISOString().replace(/[-:]|\.\d+/g, '') // in UTC
    : at.replace(/[^0-9T]/g, ''); // a local date-time: its digits
  const scheduleId = values.id ?? `contract-${contract}-deadline-${compact}`;

  const timing = { kind: 'DEADLINE', at, timezone: values.timezone, reminders };

  let schedule: Schedule;
  try {
    // The deadline as an instant with its offset (a local date-time resolved in the zone), for the payload:
    // POST /v1/preview computes runs without creating anything.
    const { runs } = await api<{ runs: NextRun[] }>('POST', '/v1/preview', {
      timing,
      count: reminders.length + 1,
    });
    const deadline = runs.find((run) => run.label === 'deadline')?.scheduled_for ?? at;
    schedule = await api<Schedule>('POST', '/v1/schedules', {
      schedule_id: scheduleId,
      timing,
      target: {
        type: 'EVENT',
        event_type: 'contract.deadline',
        sink_url: values.sink,
        payload_ref: `state://contracts/${contract}`,
        payload: { contract_id: contract, deadline },
      },
    });
  } catch (err) {
    if (err instanceof ApiError && err.problem?.field === 'timing') {
      throw new Error(
        `${err.message}\n  (is the deadline in the future? a past one-time schedule is refused)`,
      );
    }
    throw err;
  }
  const described = await api<ScheduleDescription>('GET', `/v1/schedules/${scheduleId}/describe`);
  const local = described.next_runs.find((n) => n.label === 'deadline')?.local;
  console.log(
    `schedule ${schedule.schedule_id}: ${schedule.status}, deadline ${at}${local ? ` = ${local} ${values.timezone}` : ''}`,
  );
  console.log(`events go to ${values.sink} (examples/contract-deadline/sink.ts prints them)`);
  console.log('next runs:');
  for (const next of described.next_runs) {
    console.log(`  ${next.local}  ${(next.label ?? '').padEnd(15)}  in ${fromNow(next.fire_at)}`);
  }
  if (described.next_runs.length === 0) console.log('  none: every run is already behind us');
  if (described.recent_occurrences.length > 0) {
    console.log('already emitted:');
    for (const o of described.recent_occurrences) console.log(`  ${o.scheduled_for}  ${o.status}`);
  }
});
