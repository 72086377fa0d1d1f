/** Every timing kind, the calendar options, edge dates, cursors, and the rrule.js bugs we fix. */
import rrulePkg from 'rrule';
import { describe, expect, it } from 'vitest';
import { SEARCH_BUDGET_STRIDE } from '../../../src/calendar/engine.js';
import { type CalendarCursor, compileCalendar, type Slot, type Timing } from '../../../src/calendar/index.js';
import { block, next, rrule } from './helpers.js';

const at = (slots: Slot[]) => slots.map((s) => s.fireAt);
const sched = (slots: Slot[]) => slots.map((s) => s.scheduledFor);

describe('edge dates', () => {
  it('Feb 29 fires only in leap years', () => {
    const s = next(
      rrule(block('Europe/Riga', '2024-02-29T10:00:00', 'FREQ=YEARLY'), 'Europe/Riga'),
      '2024-03-01T00:00:00Z',
      3,
    );
    expect(sched(s)).toEqual([
      '2028-02-29T10:00:00+02:00',
      '2032-02-29T10:00:00+02:00',
      '2036-02-29T10:00:00+02:00',
    ]);
    const cron = next(
      { kind: 'CRON', expression: '0 12 29 2 *', timezone: 'UTC' },
      '2025-01-01T00:00:00Z',
      2,
    );
    expect(at(cron)).toEqual(['2028-02-29T12:00:00Z', '2032-02-29T12:00:00Z']);
  });

  it('the 31st skips short months; BYMONTHDAY=-1 is the last day of every month', () => {
    const s31 = next(
      rrule(block('UTC', '2027-01-31T08:00:00', 'FREQ=MONTHLY'), 'UTC'),
      '2027-01-31T09:00:00Z',
      4,
    );
    expect(at(s31)).toEqual([
      '2027-03-31T08:00:00Z',
      '2027-05-31T08:00:00Z',
      '2027-07-31T08:00:00Z',
      '2027-08-31T08:00:00Z',
    ]);
    const last = next(
      rrule(block('UTC', '2027-01-31T08:00:00', 'FREQ=MONTHLY;BYMONTHDAY=-1'), 'UTC'),
      '2027-01-31T09:00:00Z',
      4,
    );
    expect(at(last)).toEqual([
      '2027-02-28T08:00:00Z',
      '2027-03-31T08:00:00Z',
      '2027-04-30T08:00:00Z',
      '2027-05-31T08:00:00Z',
    ]);
  });

  it('last weekday of the month (RRULE BYSETPOS=-1 and cron LW agree with a hand-made list)', () => {
    // 2027: Jan 29 (Fri; 30/31 weekend), Feb 26 (Fri), Mar 31 (Wed), Apr 30 (Fri), May 31 (Mon), Jul 30 (Fri)
    const expected = [
      '2027-01-29',
      '2027-02-26',
      '2027-03-31',
      '2027-04-30',
      '2027-05-31',
      '2027-06-30',
      '2027-07-30',
    ];
    const r = next(
      rrule(block('UTC', '2027-01-01T17:00:00', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'), 'UTC'),
      '2027-01-01T00:00:00Z',
      7,
    );
    expect(at(r).map((x) => x.slice(0, 10))).toEqual(expected);
    const c = next({ kind: 'CRON', expression: '0 17 LW * *', timezone: 'UTC' }, '2027-01-01T00:00:00Z', 7);
    expect(at(c).map((x) => x.slice(0, 10))).toEqual(expected);
  });
});

describe('CRON', () => {
  const cron = (expression: string, after: string, n: number, timezone = 'UTC') =>
    at(next({ kind: 'CRON', expression, timezone }, after, n));

  it('weekdays at 09:00 in Riga (Friday 2027-03-26 to Tuesday)', () => {
    expect(cron('0 9 * * 1-5', '2027-03-26T00:00:00Z', 3, 'Europe/Riga')).toEqual([
      '2027-03-26T07:00:00Z', // EET +2
      '2027-03-29T06:00:00Z', // EEST +3 after the 28th
      '2027-03-30T06:00:00Z',
    ]);
  });

  it('names, steps, lists, ranges, 6 fields, macros', () => {
    expect(cron('*/20 9-10 * JAN MON', '2027-01-01T00:00:00Z', 7)).toEqual([
      '2027-01-04T09:00:00Z',
      '2027-01-04T09:20:00Z',
      '2027-01-04T09:40:00Z',
      '2027-01-04T10:00:00Z',
      '2027-01-04T10:20:00Z',
      '2027-01-04T10:40:00Z',
      '2027-01-11T09:00:00Z',
    ]);
    expect(cron('30 */15 * * * *', '2027-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-01T00:00:30Z',
      '2027-01-01T00:15:30Z',
      '2027-01-01T00:30:30Z',
    ]);
    expect(cron('@monthly', '2027-01-15T00:00:00Z', 2)).toEqual([
      '2027-02-01T00:00:00Z',
      '2027-03-01T00:00:00Z',
    ]);
    expect(cron('0 0 1,15 * *', '2027-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-15T00:00:00Z',
      '2027-02-01T00:00:00Z',
      '2027-02-15T00:00:00Z',
    ]);
    expect(cron('0 0 * * 7', '2027-01-01T00:00:00Z', 1)).toEqual(['2027-01-03T00:00:00Z']); // 7 = Sunday
  });

  it('L, L-n, nW, n#k, nL', () => {
    expect(cron('0 0 L * *', '2027-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-31T00:00:00Z',
      '2027-02-28T00:00:00Z',
      '2027-03-31T00:00:00Z',
    ]);
    expect(cron('0 0 L-2 * *', '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-29T00:00:00Z',
      '2027-02-26T00:00:00Z',
    ]);
    // 2027-05-15 is a Saturday → Friday 14th; 2027-08-15 is a Sunday → Monday 16th
    expect(cron('0 0 15W 5,8 *', '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-05-14T00:00:00Z',
      '2027-08-16T00:00:00Z',
    ]);
    // 2027-05-01 is a Saturday: 1W → Monday the 3rd (never back into April)
    expect(cron('0 0 1W 5 *', '2027-01-01T00:00:00Z', 1)).toEqual(['2027-05-03T00:00:00Z']);
    // third Friday: 2027-01-15, 2027-02-19
    expect(cron('0 0 * * FRI#3', '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-15T00:00:00Z',
      '2027-02-19T00:00:00Z',
    ]);
    // last Friday: 2027-01-29, 2027-02-26
    expect(cron('0 0 * * 5L', '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-29T00:00:00Z',
      '2027-02-26T00:00:00Z',
    ]);
  });

  it('day-of-month OR day-of-week when both are restricted (Vixie)', () => {
    // the 13th, or any Friday: Jan 1 2027 is a Friday
    expect(cron('0 0 13 * 5', '2026-12-31T12:00:00Z', 4)).toEqual([
      '2027-01-01T00:00:00Z',
      '2027-01-08T00:00:00Z',
      '2027-01-13T00:00:00Z',
      '2027-01-15T00:00:00Z',
    ]);
  });

  it('a cron time in the DST gap follows the policy (02:30 New York, 2027-03-14)', () => {
    const s = next(
      { kind: 'CRON', expression: '30 2 * * *', timezone: 'America/New_York' },
      '2027-03-13T12:00:00Z',
      2,
    );
    expect(sched(s)).toEqual(['2027-03-14T03:30:00-04:00', '2027-03-15T02:30:00-04:00']);
    expect(s[0]!.adjustments[0]!.kind).toBe('DST_GAP');
  });
});

describe('ONE_TIME, DELAY, INTERVAL, DEADLINE', () => {
  it('ONE_TIME local wall clock in a zone, or an absolute instant', () => {
    const local = next(
      { kind: 'ONE_TIME', at: '2026-09-05T14:00:00', timezone: 'Europe/Riga' },
      '2026-01-01T00:00:00Z',
      5,
    );
    expect(local.map((s) => [s.fireAt, s.scheduledFor])).toEqual([
      ['2026-09-05T11:00:00Z', '2026-09-05T14:00:00+03:00'],
    ]);
    const abs = next({ kind: 'ONE_TIME', at: '2026-09-05T14:00:00+02:00' }, '2026-01-01T00:00:00Z', 5);
    expect(at(abs)).toEqual(['2026-09-05T12:00:00Z']);
    const r = compileCalendar({
      scheduleId: 'x',
      timing: { kind: 'ONE_TIME', at: '2026-09-05T14:00:00Z' },
      createdAt: '2026-01-01T00:00:00Z',
    }).nextSlots('2026-09-05T14:00:00Z', 1);
    expect(r).toMatchObject({ slots: [], exhausted: true });
  });

  it('DELAY after an anchor or after creation', () => {
    expect(
      at(
        next({ kind: 'DELAY', delay: 'PT20M' }, '2026-01-01T00:00:00Z', 2, undefined, '2026-05-01T10:00:00Z'),
      ),
    ).toEqual(['2026-05-01T10:20:00Z']);
    expect(
      at(next({ kind: 'DELAY', delay: 'P2DT1H', anchor: '2026-05-01T10:00:00Z' }, '2026-01-01T00:00:00Z', 2)),
    ).toEqual(['2026-05-03T11:00:00Z']);
  });

  it('INTERVAL FIXED_RATE keeps its grid; FIXED_DELAY counts from the last completion', () => {
    const rate = next(
      { kind: 'INTERVAL', every: 'PT10M', anchor: '2026-05-01T10:03:00Z' },
      '2026-05-01T12:00:00Z',
      3,
    );
    expect(at(rate)).toEqual(['2026-05-01T12:03:00Z', '2026-05-01T12:13:00Z', '2026-05-01T12:23:00Z']);
    const cal = compileCalendar({
      scheduleId: 'x',
      timing: { kind: 'INTERVAL', every: 'PT10M', mode: 'FIXED_DELAY' },
      createdAt: '2026-05-01T10:00:00Z',
    });
    expect(at(cal.nextSlots('2026-05-01T10:00:00Z', 5).slots)).toEqual(['2026-05-01T10:10:00Z']);
    const afterRun = cal.nextSlots('2026-05-01T10:10:00Z', 5, undefined, {
      lastCompletedAt: '2026-05-01T10:13:27Z',
    });
    expect(at(afterRun.slots)).toEqual(['2026-05-01T10:23:27Z']);
    expect(afterRun.exhausted).toBe(false);
  });

  it('INTERVAL from creation with max_count fires max_count times (the creation instant is no slot)', () => {
    // Before 0.7 the grid point at creation (never fired: slots are strictly after it) used up one count.
    const cal = compileCalendar({
      scheduleId: 'x',
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      options: { max_count: 5 },
      createdAt: '2026-05-01T10:00:00Z',
    });
    const batch = cal.nextSlots('2026-05-01T10:00:00Z', 10);
    expect(at(batch.slots)).toEqual([
      '2026-05-01T10:10:00Z',
      '2026-05-01T10:20:00Z',
      '2026-05-01T10:30:00Z',
      '2026-05-01T10:40:00Z',
      '2026-05-01T10:50:00Z',
    ]);
    expect(batch.exhausted).toBe(true);
  });

  it('DEADLINE emits each reminder and the deadline, labelled, in order; P1D is the same wall time the day before', () => {
    // 2027-03-29 09:00 Riga is +03:00; one calendar day before (2027-03-28 09:00) is +03:00 too
    // (the change is at 03:00 that day). P1DT8H: the day part is calendar (→ 03-28 09:00+03:00 =
    // 06:00Z), the hours are elapsed time: 06:00Z − 8 h = 03-27 22:00Z = 03-28 00:00+02:00
    const s = next(
      {
        kind: 'DEADLINE',
        at: '2027-03-29T09:00:00',
        timezone: 'Europe/Riga',
        reminders: ['PT1H', 'P1D', 'P1DT8H'],
      },
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(s.map((x) => [x.label, x.scheduledFor])).toEqual([
      ['reminder:P1DT8H', '2027-03-28T00:00:00+02:00'],
      ['reminder:P1D', '2027-03-28T09:00:00+03:00'],
      ['reminder:PT1H', '2027-03-29T08:00:00+03:00'],
      ['deadline', '2027-03-29T09:00:00+03:00'],
    ]);
  });
});

describe('options', () => {
  const hourly: Timing = { kind: 'CRON', expression: '0 * * * *', timezone: 'Europe/Riga' };

  it('window DEFER moves slots outside Mon–Fri 09:00–18:00 to the next opening; identity unchanged', () => {
    // Friday 2027-01-29 17:00 Riga (+02:00) fires; 18:00 … Monday 08:00 defer to Monday 09:00
    const s = next(hourly, '2027-01-29T14:30:00Z', 4, {
      window: { days: ['MO', 'TU', 'WE', 'TH', 'FR'], from: '09:00', to: '18:00' },
    });
    expect(s.map((x) => [x.scheduledFor, x.fireAt])).toEqual([
      ['2027-01-29T17:00:00+02:00', '2027-01-29T15:00:00Z'],
      ['2027-01-29T18:00:00+02:00', '2027-02-01T07:00:00Z'],
      ['2027-01-29T19:00:00+02:00', '2027-02-01T07:00:00Z'],
      ['2027-01-29T20:00:00+02:00', '2027-02-01T07:00:00Z'],
    ]);
    expect(s[1]!.adjustments[0]!.kind).toBe('WINDOW_DEFER');
  });

  it('window SKIP drops them; overnight windows work', () => {
    const s = next(hourly, '2027-01-29T14:30:00Z', 3, {
      window: { days: ['MO', 'TU', 'WE', 'TH', 'FR'], from: '09:00', to: '18:00', outside: 'SKIP' },
    });
    expect(sched(s)).toEqual([
      '2027-01-29T17:00:00+02:00',
      '2027-02-01T09:00:00+02:00',
      '2027-02-01T10:00:00+02:00',
    ]);
    const night = next(hourly, '2027-01-29T12:00:00Z', 3, {
      window: { from: '22:00', to: '02:00', outside: 'SKIP' },
    });
    expect(sched(night)).toEqual([
      '2027-01-29T22:00:00+02:00',
      '2027-01-29T23:00:00+02:00',
      '2027-01-30T00:00:00+02:00',
    ]);
  });

  it('exclusion dates are local to the zone', () => {
    const daily: Timing = { kind: 'CRON', expression: '30 0 * * *', timezone: 'Europe/Riga' };
    // 00:30 Riga on Jan 2 is Jan 1 22:30 UTC: excluding 2027-01-02 must drop it
    const s = next(daily, '2027-01-01T00:00:00Z', 2, { exclusions: ['2027-01-02', '2027-01-04'] });
    expect(sched(s)).toEqual(['2027-01-03T00:30:00+02:00', '2027-01-05T00:30:00+02:00']);
  });

  it('starts_at, ends_at, max_count', () => {
    const daily: Timing = { kind: 'CRON', expression: '0 9 * * *', timezone: 'UTC' };
    expect(at(next(daily, '2027-01-01T00:00:00Z', 2, { starts_at: '2027-01-05T00:00:00Z' }))).toEqual([
      '2027-01-05T09:00:00Z',
      '2027-01-06T09:00:00Z',
    ]);
    const ended = compileCalendar({
      scheduleId: 'x',
      timing: daily,
      options: { ends_at: '2027-01-02T09:00:00Z' },
      createdAt: '2027-01-01T00:00:00Z',
    }).nextSlots('2027-01-01T00:00:00Z', 5);
    expect(ended).toMatchObject({ exhausted: true });
    expect(at(ended.slots)).toEqual(['2027-01-01T09:00:00Z', '2027-01-02T09:00:00Z']);
    const cal = compileCalendar({
      scheduleId: 'x',
      timing: daily,
      options: { max_count: 3 },
      createdAt: '2027-01-01T00:00:00Z',
    });
    const all = cal.nextSlots('2027-01-01T00:00:00Z', 10);
    expect(at(all.slots)).toEqual(['2027-01-01T09:00:00Z', '2027-01-02T09:00:00Z', '2027-01-03T09:00:00Z']);
    expect(all.exhausted).toBe(true);
    // max_count counts from the schedule's start, not from `after`
    expect(at(cal.nextSlots('2027-01-02T12:00:00Z', 10).slots)).toEqual(['2027-01-03T09:00:00Z']);
  });

  it('jitter is deterministic, bounded and keyed by schedule id and slot', () => {
    const t: Timing = { kind: 'INTERVAL', every: 'PT1M', anchor: '2027-01-01T00:00:00Z' };
    const mk = (id: string) =>
      compileCalendar({
        scheduleId: id,
        timing: t,
        options: { jitter: 'PT30S' },
        createdAt: '2027-01-01T00:00:00Z',
      }).nextSlots('2027-01-01T00:00:00Z', 200).slots;
    const a = mk('a');
    expect(mk('a')).toEqual(a);
    const offsets = a.map((s) => Date.parse(s.fireAt) - Date.parse(s.scheduledFor));
    expect(offsets.every((o) => o >= 0 && o < 30_000 && o % 1000 === 0)).toBe(true);
    expect(new Set(offsets).size).toBeGreaterThan(10); // spread, not constant
    const b = mk('b').map((s) => Date.parse(s.fireAt) - Date.parse(s.scheduledFor));
    expect(b).not.toEqual(offsets);
    expect(a.every((s) => s.adjustments.some((x) => x.kind === 'JITTER'))).toBe(true);
  });
});

describe('cursor: COUNT and max_count without recounting', () => {
  it('stepping one slot at a time with the cursor equals one big call', () => {
    const t = rrule(
      block('Europe/London', '2027-01-01T09:00:00', 'FREQ=DAILY;INTERVAL=3;COUNT=40'),
      'Europe/London',
    );
    const cal = compileCalendar({
      scheduleId: 'x',
      timing: t,
      options: { exclusions: ['2027-01-04'] },
      createdAt: '2027-01-01T00:00:00Z',
    });
    const batch = cal.nextSlots('2026-12-01T00:00:00Z', 100);
    expect(batch.slots).toHaveLength(39); // 40 minus the excluded one
    expect(batch.exhausted).toBe(true);
    let cursor: CalendarCursor | undefined;
    let after = '2026-12-01T00:00:00Z';
    const stepped: string[] = [];
    for (let i = 0; i < 60; i++) {
      const r = cal.nextSlots(after, 1, JSON.parse(JSON.stringify(cursor ?? null)) ?? undefined);
      if (r.slots.length === 0) {
        expect(r.exhausted).toBe(true);
        break;
      }
      stepped.push(r.slots[0]!.scheduledFor);
      after = r.slots[0]!.scheduledFor;
      cursor = r.cursor;
    }
    expect(stepped).toEqual(sched(batch.slots));
    expect(cursor?.rule?.n).toBe(40);
    expect(cursor?.emitted).toBe(39);
  });

  it('ctx.until bounds the batch and the cursor belongs to the last returned slot', () => {
    const t = rrule(block('UTC', '2027-01-01T09:00:00', 'FREQ=DAILY;COUNT=10'), 'UTC');
    const cal = compileCalendar({ scheduleId: 'x', timing: t, createdAt: '2027-01-01T00:00:00Z' });
    const r = cal.nextSlots('2026-12-31T00:00:00Z', 100, undefined, { until: '2027-01-03T09:00:00Z' });
    expect(at(r.slots)).toEqual(['2027-01-01T09:00:00Z', '2027-01-02T09:00:00Z', '2027-01-03T09:00:00Z']);
    expect(r.exhausted).toBe(false);
    expect(r.cursor).toMatchObject({ last: '2027-01-03T09:00:00+00:00', emitted: 3, rule: { n: 3 } });
    const rest = cal.nextSlots(r.cursor.last!, 100, r.cursor);
    expect(rest.slots).toHaveLength(7);
    expect(rest.exhausted).toBe(true);
  });

  it('a cursor that does not match the rule is rejected', () => {
    const t = rrule(block('UTC', '2027-01-01T09:00:00', 'FREQ=DAILY;COUNT=5'), 'UTC');
    const cal = compileCalendar({ scheduleId: 'x', timing: t, createdAt: '2027-01-01T00:00:00Z' });
    expect(() =>
      cal.nextSlots('2027-01-02T10:00:00Z', 1, {
        v: 1,
        last: '2027-01-02T09:00:00Z',
        emitted: 2,
        rule: { wall: '2027-01-02T09:30:00', n: 2 },
      }),
    ).toThrow(/cursor/);
  });
});

describe('rrule.js 2.8.1 bugs, fixed in our code (each shown against rrule.js itself)', () => {
  const { RRule } = (rrulePkg as unknown as { RRule?: typeof rrulePkg.RRule }).RRule
    ? (rrulePkg as never as { RRule: typeof rrulePkg.RRule })
    : (rrulePkg as never as { default: { RRule: typeof rrulePkg.RRule } }).default;

  it('MINUTELY;INTERVAL=90;BYHOUR leaves the 90-minute grid in rrule.js', () => {
    const r = new RRule({
      freq: RRule.MINUTELY,
      interval: 90,
      byhour: [9, 10, 11],
      dtstart: new Date(Date.UTC(2027, 0, 1, 9)),
    });
    const buggy = r.all((_, i) => i < 3).map((d) => d.toISOString());
    expect(buggy[2]).toBe('2027-01-02T10:00:00.000Z'); // rrule.js: wrong, off the grid
    // the grid from 09:00 every 90 min hits 09:00 the next day (16 steps = 24 h)
    const ours = next(
      rrule(block('UTC', '2027-01-01T09:00:00', 'FREQ=MINUTELY;INTERVAL=90;BYHOUR=9,10,11'), 'UTC'),
      '2027-01-01T00:00:00Z',
      3,
    );
    expect(at(ours)).toEqual(['2027-01-01T09:00:00Z', '2027-01-01T10:30:00Z', '2027-01-02T09:00:00Z']);
  });

  it('BYSETPOS beyond the set size: rrule.js picks (and duplicates) an element', () => {
    // WEEKLY on Monday only: the set per week has one element, so BYSETPOS=-2 selects nothing
    const r = new RRule({
      freq: RRule.WEEKLY,
      byweekday: [0],
      byhour: [9],
      byminute: [0],
      bysecond: [0],
      bysetpos: [-1, -2],
      dtstart: new Date(Date.UTC(2027, 0, 4, 9)),
    });
    const buggy = r.all((_, i) => i < 4).map((d) => d.toISOString());
    expect(buggy[0]).toBe(buggy[1]); // rrule.js: the same Monday twice
    const ours = next(
      rrule(block('UTC', '2027-01-04T09:00:00', 'FREQ=WEEKLY;BYDAY=MO;BYSETPOS=-1,-2;COUNT=3'), 'UTC'),
      '2027-01-01T00:00:00Z',
      5,
    );
    expect(at(ours)).toEqual(['2027-01-04T09:00:00Z', '2027-01-11T09:00:00Z', '2027-01-18T09:00:00Z']);
  });

  it('BYHOUR written out of order: rrule.js emits times of a day unsorted', () => {
    const r = new RRule({
      freq: RRule.DAILY,
      byhour: [19, 6],
      byminute: [0],
      bysecond: [0],
      dtstart: new Date(Date.UTC(2027, 0, 1, 0)),
    });
    const buggy = r.all((_, i) => i < 2).map((d) => d.toISOString());
    expect(buggy).toEqual(['2027-01-01T19:00:00.000Z', '2027-01-01T06:00:00.000Z']);
    const ours = next(
      rrule(block('UTC', '2027-01-01T00:00:00', 'FREQ=DAILY;BYHOUR=19,6;BYSETPOS=1'), 'UTC'),
      '2026-12-31T00:00:00Z',
      2,
    );
    expect(at(ours)).toEqual(['2027-01-01T06:00:00Z', '2027-01-02T06:00:00Z']);
  });

  it('an unreachable BYHOUR is rejected instead of hanging (rrule.js loops forever on it)', () => {
    expect(() =>
      next(
        rrule(block('UTC', '2027-01-01T06:00:00', 'FREQ=HOURLY;INTERVAL=24;BYHOUR=5'), 'UTC'),
        '2027-01-01T00:00:00Z',
        1,
      ),
    ).toThrow(expect.objectContaining({ code: 'NEVER_FIRES', field: 'timing.rule' }));
  });
});

describe('DTSTART handling', () => {
  it('a bare body takes DTSTART from starts_at (else createdAt) in the zone; DTSTART counts only if it matches', () => {
    // createdAt 2027-01-01T07:00Z is 09:00 Riga, a Friday; BYDAY=MO → first is Monday 2027-01-04 09:00
    const s = next(
      rrule('FREQ=WEEKLY;BYDAY=MO', 'Europe/Riga'),
      '2027-01-01T00:00:00Z',
      2,
      undefined,
      '2027-01-01T07:00:00Z',
    );
    expect(sched(s)).toEqual(['2027-01-04T09:00:00+02:00', '2027-01-11T09:00:00+02:00']);
    const fromStart = next(
      rrule('FREQ=DAILY', 'Europe/Riga'),
      '2027-01-01T00:00:00Z',
      1,
      { starts_at: '2027-02-01T10:15:00Z' },
      '2027-01-01T07:00:00Z',
    );
    expect(sched(fromStart)).toEqual(['2027-02-01T12:15:00+02:00']);
  });

  it("a block's DTSTART;TZID wins over createdAt; RDATE adds, EXDATE removes", () => {
    const text = block(
      'Europe/Riga',
      '2027-01-04T09:00:00',
      'FREQ=WEEKLY;COUNT=3',
      'RDATE;TZID=Europe/Riga:20270106T150000\nEXDATE;TZID=Europe/Riga:20270111T090000',
    );
    const s = next(rrule(text, 'Europe/Riga'), '2026-01-01T00:00:00Z', 10, undefined, '2030-01-01T00:00:00Z');
    expect(sched(s)).toEqual([
      '2027-01-04T09:00:00+02:00',
      '2027-01-06T15:00:00+02:00',
      '2027-01-18T09:00:00+02:00',
    ]);
  });
});

describe('age does not matter', () => {
  it('a minutely rule started 10 years ago answers as fast as a new one (bounded work)', () => {
    const old = compileCalendar({
      scheduleId: 'x',
      timing: rrule(block('Europe/Riga', '2017-01-01T00:00:00', 'FREQ=MINUTELY'), 'Europe/Riga'),
      createdAt: '2017-01-01T00:00:00Z',
    });
    // Work is counted, not timed: the engine asks a budget once per SEARCH_BUDGET_STRIDE candidates it
    // examines, so no question means fewer than 1,024 (a walk from 2017 would examine 5 million minutes).
    // The rule's own grid walk is bounded by its fuel: one from 2017 would run out before 2027, and find no slot.
    let questions = 0;
    const counting = {
      exceeded: () => {
        questions++;
        return false;
      },
      reason: 'never given: this budget only counts',
    };
    const r = old.nextSlots('2027-06-01T12:00:30Z', 3, undefined, { budget: counting });
    expect(at(r.slots)).toEqual(['2027-06-01T12:01:00Z', '2027-06-01T12:02:00Z', '2027-06-01T12:03:00Z']);
    expect(questions, `more than ${questions * SEARCH_BUDGET_STRIDE} candidates examined`).toBe(0);
  });
});
