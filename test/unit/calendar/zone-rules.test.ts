import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import {
  amendedZoneRules,
  runtimeZoneRules,
  useRuntimeZoneRules,
  useZoneRules,
  zoneRules,
} from '../../../src/calendar/index.js';
import { computeSlots } from '../../../src/model/slots.js';
import { next } from './helpers.js';

const HOUR = 3_600_000;
// Riga keeps +02:00 in winter and +03:00 in summer; the amendment gives it +05:00 from 1 March 2027, which
// no real rule ever did, so every instant below says which rules computed it.
const CHANGE = Date.parse('2027-03-01T00:00:00Z');
const amended = () =>
  amendedZoneRules(runtimeZoneRules(process.versions.tz ?? 'unknown'), '2099a', [
    { zone: 'Europe/Riga', from: CHANGE, offsetMs: 5 * HOUR },
  ]);
const daily = { kind: 'CRON' as const, expression: '0 9 * * *', timezone: 'Europe/Riga' };

describe('zone rules: one seam for every offset the calendar computes', () => {
  afterEach(() => {
    useRuntimeZoneRules();
  });

  it("the runtime's rules are Node's tz database, named by its release", () => {
    expect(zoneRules().version).toBe(process.versions.tz);
    const [slot] = next(daily, '2027-02-26T12:00:00Z', 1);
    expect(slot).toMatchObject({ scheduledFor: '2027-02-27T09:00:00+02:00', tz: process.versions.tz });
  });

  it('amended rules move the instants after the change, and say which release computed them', () => {
    const before = next(daily, '2027-02-26T12:00:00Z', 4).map((s) => s.scheduledFor);
    useZoneRules(amended());
    const after = next(daily, '2027-02-26T12:00:00Z', 4);
    expect(after.map((s) => s.scheduledFor)).toEqual([
      before[0], // 27 February: before the change, the same instant
      before[1], // 28 February
      '2027-03-01T09:00:00+05:00',
      '2027-03-02T09:00:00+05:00',
    ]);
    expect(after.map((s) => s.fireAt)).toEqual([
      '2027-02-27T07:00:00Z',
      '2027-02-28T07:00:00Z',
      '2027-03-01T04:00:00Z',
      '2027-03-02T04:00:00Z',
    ]);
    expect(new Set(after.map((s) => s.tz))).toEqual(new Set(['2099a']));
  });

  it('zones compiled under older rules are not reused: switching back gives the runtime instants again', () => {
    const runtime = next(daily, '2027-03-05T12:00:00Z', 2);
    useZoneRules(amended());
    expect(next(daily, '2027-03-05T12:00:00Z', 2)).not.toEqual(runtime);
    useRuntimeZoneRules();
    expect(next(daily, '2027-03-05T12:00:00Z', 2)).toEqual(runtime);
  });

  it("a DEADLINE's calendar-aware reminders use the same rules (luxon's arithmetic through the seam)", () => {
    useZoneRules(amended());
    const timing = {
      kind: 'DEADLINE' as const,
      at: '2027-03-02T09:00:00',
      timezone: 'Europe/Riga',
      reminders: ['P1D', 'PT2H'],
    };
    const slots = next(timing, '2027-02-01T00:00:00Z', 3, undefined, '2027-01-01T00:00:00Z');
    expect(slots.map((s) => [s.label, s.fireAt])).toEqual([
      // One day before 09:00 on 2 March is 09:00 on 1 March, already under the new +05:00.
      ['reminder:P1D', '2027-03-01T04:00:00Z'],
      ['reminder:PT2H', '2027-03-02T02:00:00Z'],
      ['deadline', '2027-03-02T04:00:00Z'],
    ]);
    // Across the change a calendar day is not 24 h: 09:00 on 1 March (+05:00) is 21 h after 09:00 on
    // 28 February (+02:00).
    const rules = zoneRules();
    const feb28 = DateTime.fromISO('2027-02-28T09:00:00+02:00').toMillis();
    expect(rules.offsetAt('Europe/Riga', feb28)).toBe(2 * HOUR);
  });

  it('a slot batch records the release that computed it', () => {
    useZoneRules(amended());
    const batch = computeSlots({
      scheduleId: 's',
      spec: { timing: daily },
      createdAt: '2027-01-01T00:00:00Z',
      after: '2027-02-27T12:00:00Z',
      count: 2,
    });
    expect(batch.tz).toBe('2099a');
    expect(batch.slots.map((s) => s.tz)).toEqual(['2099a', '2099a']);
  });
});
