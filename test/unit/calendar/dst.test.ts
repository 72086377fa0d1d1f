/**
 * DST transitions under each policy. Expected instants are hand-computed from each zone's rules
 * (noted per case), never copied from the engine's output.
 */
import { describe, expect, it } from 'vitest';
import type { CalendarOptions } from '../../../src/calendar/index.js';
import { next, rrule } from './helpers.js';

type Policy = NonNullable<CalendarOptions['dst']>;

/** the slot of a daily rule at `time` on `date` in `zone`, under `dst` */
function daily(zone: string, date: string, time: string, dst: Policy = {}, count = 1) {
  const [h, m] = time.split(':');
  const body = `FREQ=DAILY;BYHOUR=${Number(h)};BYMINUTE=${Number(m)};BYSECOND=0`;
  // after = the previous day's noon UTC-12h: safely before the local date in every zone
  const after = new Date(Date.parse(`${date}T00:00:00Z`) - 36 * 3600_000).toISOString();
  const slots = next(rrule(body, zone), after, count + 2, { dst }, '2020-01-01T00:00:00Z');
  return slots.filter(
    (s) => s.scheduledFor.startsWith(date) || s.adjustments.some((a) => a.note.includes(date)),
  );
}

interface GapCase {
  zone: string;
  date: string;
  time: string; // nonexistent wall time
  shiftForward: [string, string]; // [UTC, local]
  nextValid: [string, string];
}
interface FoldCase {
  zone: string;
  date: string;
  time: string; // ambiguous wall time
  first: [string, string];
  second: [string, string];
}

const GAPS: GapCase[] = [
  // Riga: EET(+2)→EEST(+3) at 01:00Z on the last Sunday of March (03:00→04:00 local)
  {
    zone: 'Europe/Riga',
    date: '2027-03-28',
    time: '03:30',
    shiftForward: ['2027-03-28T01:30:00Z', '2027-03-28T04:30:00+03:00'],
    nextValid: ['2027-03-28T01:00:00Z', '2027-03-28T04:00:00+03:00'],
  },
  // New York: EST(-5)→EDT(-4) at 02:00 local on the second Sunday of March
  {
    zone: 'America/New_York',
    date: '2027-03-14',
    time: '02:30',
    shiftForward: ['2027-03-14T07:30:00Z', '2027-03-14T03:30:00-04:00'],
    nextValid: ['2027-03-14T07:00:00Z', '2027-03-14T03:00:00-04:00'],
  },
  // London: GMT→BST at 01:00Z (01:00→02:00 local)
  {
    zone: 'Europe/London',
    date: '2027-03-28',
    time: '01:30',
    shiftForward: ['2027-03-28T01:30:00Z', '2027-03-28T02:30:00+01:00'],
    nextValid: ['2027-03-28T01:00:00Z', '2027-03-28T02:00:00+01:00'],
  },
  // Lord Howe: +10:30→+11 (a 30-minute gap) at 02:00 local on the first Sunday of October
  {
    zone: 'Australia/Lord_Howe',
    date: '2027-10-03',
    time: '02:15',
    shiftForward: ['2027-10-02T15:45:00Z', '2027-10-03T02:45:00+11:00'],
    nextValid: ['2027-10-02T15:30:00Z', '2027-10-03T02:30:00+11:00'],
  },
  // Chatham: +12:45→+13:45 at 02:45 local on the last Sunday of September
  {
    zone: 'Pacific/Chatham',
    date: '2027-09-26',
    time: '03:00',
    shiftForward: ['2027-09-25T14:15:00Z', '2027-09-26T04:00:00+13:45'],
    nextValid: ['2027-09-25T14:00:00Z', '2027-09-26T03:45:00+13:45'],
  },
  // Troll: +00→+02 (a 2-hour gap) at 01:00Z on the last Sunday of March (01:00→03:00 local)
  {
    zone: 'Antarctica/Troll',
    date: '2027-03-28',
    time: '02:00',
    shiftForward: ['2027-03-28T02:00:00Z', '2027-03-28T04:00:00+02:00'],
    nextValid: ['2027-03-28T01:00:00Z', '2027-03-28T03:00:00+02:00'],
  },
];

const FOLDS: FoldCase[] = [
  // Riga: EEST→EET at 01:00Z on the last Sunday of October (04:00→03:00 local)
  {
    zone: 'Europe/Riga',
    date: '2027-10-31',
    time: '03:30',
    first: ['2027-10-31T00:30:00Z', '2027-10-31T03:30:00+03:00'],
    second: ['2027-10-31T01:30:00Z', '2027-10-31T03:30:00+02:00'],
  },
  // New York: EDT→EST at 02:00 local on the first Sunday of November
  {
    zone: 'America/New_York',
    date: '2027-11-07',
    time: '01:30',
    first: ['2027-11-07T05:30:00Z', '2027-11-07T01:30:00-04:00'],
    second: ['2027-11-07T06:30:00Z', '2027-11-07T01:30:00-05:00'],
  },
  // London: BST→GMT at 01:00Z (02:00→01:00 local)
  {
    zone: 'Europe/London',
    date: '2027-10-31',
    time: '01:30',
    first: ['2027-10-31T00:30:00Z', '2027-10-31T01:30:00+01:00'],
    second: ['2027-10-31T01:30:00Z', '2027-10-31T01:30:00+00:00'],
  },
  // Lord Howe: +11→+10:30 at 02:00 local on the first Sunday of April (30-minute fold)
  {
    zone: 'Australia/Lord_Howe',
    date: '2027-04-04',
    time: '01:45',
    first: ['2027-04-03T14:45:00Z', '2027-04-04T01:45:00+11:00'],
    second: ['2027-04-03T15:15:00Z', '2027-04-04T01:45:00+10:30'],
  },
  // Chatham: +13:45→+12:45 at 03:45 local on the first Sunday of April
  {
    zone: 'Pacific/Chatham',
    date: '2027-04-04',
    time: '03:00',
    first: ['2027-04-03T13:15:00Z', '2027-04-04T03:00:00+13:45'],
    second: ['2027-04-03T14:15:00Z', '2027-04-04T03:00:00+12:45'],
  },
  // Troll: +02→+00 at 01:00Z on the last Sunday of October (03:00→01:00 local, a 2-hour fold)
  {
    zone: 'Antarctica/Troll',
    date: '2027-10-31',
    time: '02:00',
    first: ['2027-10-31T00:00:00Z', '2027-10-31T02:00:00+02:00'],
    second: ['2027-10-31T02:00:00Z', '2027-10-31T02:00:00+00:00'],
  },
];

describe('DST gap (spring forward)', () => {
  for (const c of GAPS) {
    it(`${c.zone} ${c.date} ${c.time}: SHIFT_FORWARD (default), NEXT_VALID, SKIP`, () => {
      const [sf] = daily(c.zone, c.date, c.time);
      expect([sf?.fireAt, sf?.scheduledFor]).toEqual(c.shiftForward);
      expect(sf?.local).toBe(c.shiftForward[1]);
      expect(sf?.adjustments).toEqual([
        {
          kind: 'DST_GAP',
          note: expect.stringContaining(`${c.time} does not exist on ${c.date} in ${c.zone}`),
        },
      ]);
      expect(sf?.adjustments[0]?.note).toContain(`fired at ${c.shiftForward[1].slice(11, 16)}`);

      const [nv] = daily(c.zone, c.date, c.time, { gap: 'NEXT_VALID' });
      expect([nv?.fireAt, nv?.scheduledFor]).toEqual(c.nextValid);
      expect(nv?.adjustments[0]?.kind).toBe('DST_GAP');

      const skipped = daily(c.zone, c.date, c.time, { gap: 'SKIP' });
      expect(skipped).toEqual([]);
      // the day after still fires, unadjusted
      const dayAfter = next(
        rrule(`FREQ=DAILY;BYHOUR=${Number(c.time.slice(0, 2))};BYMINUTE=${Number(c.time.slice(3))}`, c.zone),
        `${c.date}T00:00:00Z`,
        3,
        { dst: { gap: 'SKIP' } },
      );
      expect(dayAfter.every((s) => s.adjustments.length === 0 && !s.scheduledFor.startsWith(c.date))).toBe(
        true,
      );
    });
  }
});

describe('DST fold (fall back)', () => {
  for (const c of FOLDS) {
    it(`${c.zone} ${c.date} ${c.time}: FIRST (default), LAST, BOTH`, () => {
      const first = daily(c.zone, c.date, c.time);
      expect(first.map((s) => [s.fireAt, s.scheduledFor])).toEqual([c.first]);
      expect(first[0]?.adjustments[0]).toEqual({
        kind: 'DST_FOLD',
        note: expect.stringContaining(`${c.time} occurs twice on ${c.date}`),
      });

      const last = daily(c.zone, c.date, c.time, { fold: 'LAST' });
      expect(last.map((s) => [s.fireAt, s.scheduledFor])).toEqual([c.second]);

      const both = daily(c.zone, c.date, c.time, { fold: 'BOTH' }, 2);
      expect(both.map((s) => [s.fireAt, s.scheduledFor])).toEqual([c.first, c.second]);
      // two distinct identities: the offset differs
      expect(new Set(both.map((s) => s.scheduledFor)).size).toBe(2);
    });
  }
});

describe('zones without DST', () => {
  it('Asia/Kolkata (+05:30 all year): no adjustments in March or October', () => {
    const slots = next(rrule('FREQ=DAILY;BYHOUR=2;BYMINUTE=30', 'Asia/Kolkata'), '2027-03-20T00:00:00Z', 400);
    expect(slots).toHaveLength(400);
    expect(slots.every((s) => s.adjustments.length === 0 && s.scheduledFor.endsWith('T02:30:00+05:30'))).toBe(
      true,
    );
    // 02:30 IST is 21:00 UTC the day before
    expect(slots.every((s) => s.fireAt.endsWith('T21:00:00Z'))).toBe(true);
  });
});

describe('sub-daily rules across transitions (wall-clock semantics, as RFC 5545 / dateutil)', () => {
  it('hourly in New York on spring-forward day: 02:00 does not exist, 03:00 fires once', () => {
    const slots = next(
      rrule('FREQ=HOURLY', 'America/New_York'),
      '2027-03-14T05:30:00Z',
      3,
      {},
      '2027-01-01T05:00:00Z',
    );
    // 01:00 EST = 06:00Z; 02:00 → shifted to 03:00 EDT = 07:00Z, same instant as 03:00 EDT: one slot
    expect(slots.map((s) => s.fireAt)).toEqual([
      '2027-03-14T06:00:00Z',
      '2027-03-14T07:00:00Z',
      '2027-03-14T08:00:00Z',
    ]);
  });

  it('hourly in New York on fall-back day: the repeated 01:00 fires once (FIRST) or twice (BOTH)', () => {
    const first = next(
      rrule('FREQ=HOURLY', 'America/New_York'),
      '2027-11-07T04:30:00Z',
      3,
      {},
      '2027-01-01T05:00:00Z',
    );
    expect(first.map((s) => s.fireAt)).toEqual([
      '2027-11-07T05:00:00Z',
      '2027-11-07T07:00:00Z',
      '2027-11-07T08:00:00Z',
    ]);
    const both = next(
      rrule('FREQ=HOURLY', 'America/New_York'),
      '2027-11-07T04:30:00Z',
      3,
      { dst: { fold: 'BOTH' } },
      '2027-01-01T05:00:00Z',
    );
    expect(both.map((s) => s.scheduledFor)).toEqual([
      '2027-11-07T01:00:00-04:00',
      '2027-11-07T01:00:00-05:00',
      '2027-11-07T02:00:00-05:00',
    ]);
  });
});

describe('INTERVAL is absolute time: DST does not change the spacing', () => {
  it('every 30 minutes across the Riga spring-forward', () => {
    const slots = next(
      { kind: 'INTERVAL', every: 'PT30M', anchor: '2027-03-28T00:00:00Z' },
      '2027-03-28T00:10:00Z',
      4,
      { timezone: 'Europe/Riga' },
    );
    expect(slots.map((s) => s.fireAt)).toEqual([
      '2027-03-28T00:30:00Z',
      '2027-03-28T01:00:00Z',
      '2027-03-28T01:30:00Z',
      '2027-03-28T02:00:00Z',
    ]);
    expect(slots.map((s) => s.local)).toEqual([
      '2027-03-28T02:30:00+02:00',
      '2027-03-28T04:00:00+03:00',
      '2027-03-28T04:30:00+03:00',
      '2027-03-28T05:00:00+03:00',
    ]);
  });
});
