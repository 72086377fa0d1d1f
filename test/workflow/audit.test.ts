// The audit (issue 42): a schedule run through a window that skips, a pause, a revoked owner, failures and
// an edit of its timing, then asked what became of every slot its definitions called for. Every slot is
// explained (0 UNEXPLAINED), each definition version for its own time. A real HTTP sink on the
// time-skipping server; the expected instants are counted here by plain arithmetic, not by our calendar.
// (A worker outage cannot pass on the time-skipping server, which has no visibility for the tenant-wide
// report either: test/integration/http-audit.test.ts audits an outage over HTTP, tenant-wide too.)
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScheduleAudit } from '../../src/model/audit.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { ownerRevokedSignal } from '../../src/workflows/definitions.js';
import { startSink } from '../helpers/http-sink.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Every multiple of `stepMs` in (after, until]. */
function gridIn(after: number, until: number, stepMs: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(after / stepMs) * stepMs + stepMs; t <= until; t += stepMs) out.push(t);
  return out;
}

describe('audit: every expected slot explained (time-skipping server)', () => {
  let h: SchedulerHarness | undefined;
  let sink: Server | undefined;
  afterEach(async () => {
    sink?.close();
    await h?.teardown();
  });

  it('a window, a pause, a revocation, failures and an edit: each slot with its outcome and reason, none unexplained', async () => {
    h = await SchedulerHarness.start();
    // The sink fails the 3rd and 4th deliveries for good (410), then accepts.
    const events = await startSink([200, 200, 410, 410]);
    sink = events.server;
    const sdk = h.sdk();
    // The same day on every run, whatever the clock: created at 07:30 UTC (the server's clock is skipped there).
    const clock = await h.now();
    const day = Math.floor(clock / (24 * HOUR)) * 24 * HOUR;
    const at0730 = day + 7.5 * HOUR > clock ? day + 7.5 * HOUR : day + 31.5 * HOUR;
    await h.env.sleep(at0730 - clock);
    const window = { from: '06:00', to: '22:00', outside: 'SKIP' as const };
    const target = { type: 'EVENT' as const, event_type: 'report.due', sink_url: events.url };
    const created = await sdk.create({
      schedule_id: 'audited',
      target,
      timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
      window,
    });
    const createdAt = Date.parse(created.schedule.created_at);
    // 08:00 and 09:00 delivered, 10:00 and 11:00 refused by the sink (410), then a night outside the window.
    await h.env.sleep(26 * HOUR); // to 09:30 the next day

    await sdk.pause('audited', 'maintenance');
    await h.env.sleep(5 * HOUR); // 10:00 … 14:00 come due while paused
    await sdk.resume('audited'); // 14:30, FIRE_ONCE: 14:00 runs late, 10:00 … 13:00 are misfires
    await h.env.sleep(2 * HOUR);

    await h.env.client.workflow
      .getHandle(scheduleWorkflowId('acme', 'audited'))
      .signal(ownerRevokedSignal, { reason: 'owner acme/ops has no API key any more (test)' });
    await h.env.sleep(3 * HOUR); // 17:00 … 19:00 refused
    await sdk.resume('audited'); // 19:30, taken over

    const before = await sdk.describe('audited');
    const edited = await sdk.update('audited', {
      expected_version: before.schedule.version,
      spec: { target, timing: { kind: 'CRON', expression: '*/30 * * * *', timezone: 'UTC' }, window },
    });
    // The edit's instant, as the schedule recorded it: version 2 decides the slots after it.
    const editedAt = Date.parse((await sdk.get('audited')).updated_at);
    await h.env.sleep(4 * HOUR); // every half hour: 20:00 … 21:30 run, 22:00 … 23:30 outside the window
    await sdk.triggerNow('audited', { reason: 'one more' });
    await h.env.sleep(MINUTE);
    const now = await h.now();

    const audit: ScheduleAudit = await sdk.audit('audited', {
      from: new Date(createdAt - HOUR).toISOString(),
      to: new Date(now + 10 * HOUR).toISOString(),
    });
    expect(audit.counts.UNEXPLAINED ?? 0).toBe(0);
    expect(audit.reach).toEqual({ ledger_since: null, definitions_since: created.schedule.created_at });
    // The range starts at creation and ends now.
    expect(Date.parse(audit.from)).toBe(createdAt);
    expect(Date.parse(audit.to)).toBeLessThanOrEqual(now + 1000);

    // Every hour of version 1's time and every half hour of version 2's is there, and nothing else.
    const v1 = audit.slots.filter((s) => s.version === 1).map((s) => Date.parse(s.scheduled_for));
    const v2 = audit.slots
      .filter((s) => s.version === edited.version)
      .map((s) => Date.parse(s.scheduled_for));
    expect(v1).toEqual(gridIn(createdAt, editedAt, HOUR));
    expect(v2).toEqual(gridIn(editedAt, Date.parse(audit.to), 30 * MINUTE));
    expect(audit.slots).toHaveLength(v1.length + v2.length);

    // Outside 06:00–22:00 UTC: removed by the window, saying so; inside, something was decided.
    for (const s of audit.slots) {
      const hour = new Date(s.scheduled_for).getUTCHours();
      const outside = hour < 6 || hour >= 22;
      if (outside)
        expect(s).toMatchObject({ outcome: 'REMOVED', reason: 'outside the window (window.outside SKIP)' });
      else expect(s.outcome).not.toBe('REMOVED');
      if (s.outcome !== 'ON_TIME' && s.outcome !== 'REMOVED') expect(s.reason).toBeTruthy();
    }
    const by = (outcome: string) => audit.slots.filter((s) => s.outcome === outcome);
    expect(by('FAILED')).toHaveLength(2);
    expect(by('FAILED')[0]!.reason).toMatch(/answered 410/);
    expect(by('MISSED')).toHaveLength(4);
    for (const s of by('MISSED'))
      expect(s.reason).toMatch(/^late by .*FIRE_ONCE: covered by a newer occurrence/);
    expect(by('LATE')).toHaveLength(1);
    expect(by('LATE')[0]!.lateness_s).toBeGreaterThanOrEqual(1800);
    expect(by('REFUSED')).toHaveLength(3);
    for (const s of by('REFUSED')) expect(s.reason).toMatch(/^refused: owner acme\/ops has no API key/);
    expect(by('ON_TIME')).toHaveLength(12 + 4 + 2 + 4); // day one 08–21 but the two failed; 06–09; 15–16; v2's 20:00–21:30
    for (const s of by('ON_TIME')) expect(s.lateness_s).toBeLessThanOrEqual(60);
    // The manual run is not a slot any definition called for: listed apart.
    expect(audit.other_runs).toEqual([expect.objectContaining({ trigger: 'MANUAL', status: 'HANDED_OFF' })]);
  });

  it('a paused schedule: the slots since the pause are PENDING, decided on resume', async () => {
    h = await SchedulerHarness.start();
    const events = await startSink();
    sink = events.server;
    const sdk = h.sdk();
    const created = await sdk.create({
      schedule_id: 'paused',
      target: { type: 'EVENT', event_type: 'tick', sink_url: events.url },
      timing: { kind: 'INTERVAL', every: 'PT10M' },
    });
    await h.env.sleep(35 * MINUTE);
    await sdk.pause('paused');
    await h.env.sleep(30 * MINUTE);
    const audit = await sdk.audit('paused', {
      from: created.schedule.created_at,
      to: new Date(await h.now()).toISOString(),
    });
    expect(audit.slots.map((s) => s.outcome)).toEqual([
      'ON_TIME',
      'ON_TIME',
      'ON_TIME',
      'PENDING',
      'PENDING',
      'PENDING',
    ]);
    expect(audit.slots.at(-1)!.reason).toMatch(/paused: the misfire policy decides it on resume/);
  });
});
