/**
 * RFC 5545 §3.8.5.3 examples. Expected dates are typed from the RFC text; the UTC offsets come
 * from the US DST rules of the time (first Sunday of April – last Sunday of October, 02:00),
 * written out below by hand, not from the engine.
 */
import { describe, expect, it } from 'vitest';
import { compileCalendar } from '../../../src/calendar/index.js';

const TZ = 'America/New_York';
/** [start, end) dates of EDT (UTC-4) per year, hand-listed */
const EDT: Record<number, [string, string]> = {
  1996: ['1996-04-07', '1996-10-27'],
  1997: ['1997-04-06', '1997-10-26'],
  1998: ['1998-04-05', '1998-10-25'],
  1999: ['1999-04-04', '1999-10-31'],
  2000: ['2000-04-02', '2000-10-29'],
  2001: ['2001-04-01', '2001-10-28'],
  2003: ['2003-04-06', '2003-10-26'],
  2004: ['2004-04-04', '2004-10-31'],
  2006: ['2006-04-02', '2006-10-29'],
  2007: ['2007-03-11', '2007-11-04'],
};
/** local NY time with its offset, for a wall time well after 02:00 */
function ny(date: string, time = '09:00'): string {
  const [s, e] = EDT[Number(date.slice(0, 4))]!;
  const offset = date >= s && date < e ? '-04:00' : '-05:00';
  return `${date}T${time}:00${offset}`;
}
const days = (prefix: string, list: number[], time?: string) =>
  list.map((d) => ny(`${prefix}-${String(d).padStart(2, '0')}`, time));

function expand(dtstart: string, rule: string, count: number, extra = ''): string[] {
  const text = `DTSTART;TZID=${TZ}:${dtstart}\n${rule}${extra ? `\n${extra}` : ''}`;
  const cal = compileCalendar({
    scheduleId: 'rfc',
    timing: { kind: 'RECURRENCE', rule: text, timezone: TZ },
    createdAt: '1990-01-01T00:00:00Z',
  });
  return cal.nextSlots('1990-01-01T00:00:00Z', count).slots.map((s) => s.scheduledFor);
}

describe('RFC 5545 §3.8.5.3 examples', () => {
  it('daily for 10 occurrences', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=DAILY;COUNT=10', 20)).toEqual(
      days('1997-09', [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
    );
  });

  it('daily until December 24, 1997 (113 occurrences, across the October DST change)', () => {
    const r = expand('19970902T090000', 'RRULE:FREQ=DAILY;UNTIL=19971224T000000Z', 500);
    expect(r).toHaveLength(113);
    expect(r[0]).toBe('1997-09-02T09:00:00-04:00');
    expect(r).toContain('1997-10-25T09:00:00-04:00');
    expect(r).toContain('1997-10-26T09:00:00-05:00');
    expect(r.at(-1)).toBe('1997-12-23T09:00:00-05:00');
  });

  it('every other day, every 10 days for 5 occurrences', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=DAILY;INTERVAL=2', 5)).toEqual(
      days('1997-09', [2, 4, 6, 8, 10]),
    );
    expect(expand('19970902T090000', 'RRULE:FREQ=DAILY;INTERVAL=10;COUNT=5', 10)).toEqual([
      ...days('1997-09', [2, 12, 22]),
      ...days('1997-10', [2, 12]),
    ]);
  });

  it('every day in January for 3 years (YEARLY and DAILY forms)', () => {
    const jan = [1998, 1999, 2000].flatMap((y) =>
      days(
        `${y}-01`,
        Array.from({ length: 31 }, (_, i) => i + 1),
      ),
    );
    expect(
      expand(
        '19980101T090000',
        'RRULE:FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA',
        200,
      ),
    ).toEqual(jan);
    expect(expand('19980101T090000', 'RRULE:FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1', 200)).toEqual(jan);
  });

  it('weekly for 10 occurrences; Tuesdays and Thursdays for five weeks', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=WEEKLY;COUNT=10', 20)).toEqual([
      ...days('1997-09', [2, 9, 16, 23, 30]),
      ...days('1997-10', [7, 14, 21, 28]),
      ...days('1997-11', [4]),
    ]);
    const tuth = [...days('1997-09', [2, 4, 9, 11, 16, 18, 23, 25, 30]), ...days('1997-10', [2])];
    expect(expand('19970902T090000', 'RRULE:FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH', 20)).toEqual(tuth);
    expect(
      expand('19970902T090000', 'RRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH', 20),
    ).toEqual(tuth);
  });

  it('every other week on MO,WE,FR until December 24, 1997', () => {
    expect(
      expand(
        '19970901T090000',
        'RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR',
        100,
      ),
    ).toEqual([
      ...days('1997-09', [1, 3, 5, 15, 17, 19, 29]),
      ...days('1997-10', [1, 3, 13, 15, 17, 27, 29, 31]),
      ...days('1997-11', [10, 12, 14, 24, 26, 28]),
      ...days('1997-12', [8, 10, 12, 22]),
    ]);
  });

  it('every other week on TU,TH for 8 occurrences', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH', 20)).toEqual(
      [...days('1997-09', [2, 4, 16, 18, 30]), ...days('1997-10', [2, 14, 16])],
    );
  });

  it('monthly on the first Friday; first and last Sunday every other month; second-to-last Monday', () => {
    expect(expand('19970905T090000', 'RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR', 20)).toEqual([
      ny('1997-09-05'),
      ny('1997-10-03'),
      ny('1997-11-07'),
      ny('1997-12-05'),
      ny('1998-01-02'),
      ny('1998-02-06'),
      ny('1998-03-06'),
      ny('1998-04-03'),
      ny('1998-05-01'),
      ny('1998-06-05'),
    ]);
    expect(expand('19970907T090000', 'RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU', 20)).toEqual([
      ...days('1997-09', [7, 28]),
      ...days('1997-11', [2, 30]),
      ...days('1998-01', [4, 25]),
      ...days('1998-03', [1, 29]),
      ...days('1998-05', [3, 31]),
    ]);
    expect(expand('19970922T090000', 'RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO', 20)).toEqual([
      ny('1997-09-22'),
      ny('1997-10-20'),
      ny('1997-11-17'),
      ny('1997-12-22'),
      ny('1998-01-19'),
      ny('1998-02-16'),
    ]);
  });

  it('third-to-last day of the month; 2nd and 15th; first and last day', () => {
    expect(expand('19970928T090000', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=-3', 6)).toEqual([
      ny('1997-09-28'),
      ny('1997-10-29'),
      ny('1997-11-28'),
      ny('1997-12-29'),
      ny('1998-01-29'),
      ny('1998-02-26'),
    ]);
    expect(expand('19970902T090000', 'RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15', 20)).toEqual([
      ...days('1997-09', [2, 15]),
      ...days('1997-10', [2, 15]),
      ...days('1997-11', [2, 15]),
      ...days('1997-12', [2, 15]),
      ...days('1998-01', [2, 15]),
    ]);
    expect(expand('19970930T090000', 'RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1', 20)).toEqual([
      ny('1997-09-30'),
      ...days('1997-10', [1, 31]),
      ...days('1997-11', [1, 30]),
      ...days('1997-12', [1, 31]),
      ...days('1998-01', [1, 31]),
      ny('1998-02-01'),
    ]);
  });

  it('every 18 months on the 10th to 15th; every Tuesday every other month', () => {
    expect(
      expand('19970910T090000', 'RRULE:FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15', 20),
    ).toEqual([...days('1997-09', [10, 11, 12, 13, 14, 15]), ...days('1999-03', [10, 11, 12, 13])]);
    expect(expand('19970902T090000', 'RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=TU', 18)).toEqual([
      ...days('1997-09', [2, 9, 16, 23, 30]),
      ...days('1997-11', [4, 11, 18, 25]),
      ...days('1998-01', [6, 13, 20, 27]),
      ...days('1998-03', [3, 10, 17, 24, 31]),
    ]);
  });

  it('yearly in June and July; every other year in Jan-Mar; every third year on days 1, 100, 200', () => {
    expect(expand('19970610T090000', 'RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7', 20)).toEqual(
      [1997, 1998, 1999, 2000, 2001].flatMap((y) => [ny(`${y}-06-10`), ny(`${y}-07-10`)]),
    );
    expect(expand('19970310T090000', 'RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3', 20)).toEqual([
      ny('1997-03-10'),
      ...[1999, 2001, 2003].flatMap((y) => [ny(`${y}-01-10`), ny(`${y}-02-10`), ny(`${y}-03-10`)]),
    ]);
    expect(
      expand('19970101T090000', 'RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200', 20),
    ).toEqual([
      ny('1997-01-01'),
      ny('1997-04-10'),
      ny('1997-07-19'),
      ny('2000-01-01'),
      ny('2000-04-09'),
      ny('2000-07-18'),
      ny('2003-01-01'),
      ny('2003-04-10'),
      ny('2003-07-19'),
      ny('2006-01-01'),
    ]);
  });

  it('20th Monday of the year; Monday of ISO week 20; every Thursday in March', () => {
    expect(expand('19970519T090000', 'RRULE:FREQ=YEARLY;BYDAY=20MO', 3)).toEqual([
      ny('1997-05-19'),
      ny('1998-05-18'),
      ny('1999-05-17'),
    ]);
    expect(expand('19970512T090000', 'RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO', 3)).toEqual([
      ny('1997-05-12'),
      ny('1998-05-11'),
      ny('1999-05-17'),
    ]);
    expect(expand('19970313T090000', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH', 11)).toEqual([
      ...days('1997-03', [13, 20, 27]),
      ...days('1998-03', [5, 12, 19, 26]),
      ...days('1999-03', [4, 11, 18, 25]),
    ]);
  });

  it('every Thursday in June-August', () => {
    expect(expand('19970605T090000', 'RRULE:FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8', 17)).toEqual([
      ...days('1997-06', [5, 12, 19, 26]),
      ...days('1997-07', [3, 10, 17, 24, 31]),
      ...days('1997-08', [7, 14, 21, 28]),
      ...days('1998-06', [4, 11, 18, 25]),
    ]);
  });

  it('every Friday the 13th, excluding DTSTART via EXDATE', () => {
    expect(
      expand(
        '19970902T090000',
        'RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
        5,
        `EXDATE;TZID=${TZ}:19970902T090000`,
      ),
    ).toEqual([ny('1998-02-13'), ny('1998-03-13'), ny('1998-11-13'), ny('1999-08-13'), ny('2000-10-13')]);
  });

  it('first Saturday after the first Sunday; US election day', () => {
    expect(expand('19970913T090000', 'RRULE:FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13', 10)).toEqual(
      [
        ny('1997-09-13'),
        ny('1997-10-11'),
        ny('1997-11-08'),
        ny('1997-12-13'),
        ny('1998-01-10'),
        ny('1998-02-07'),
        ny('1998-03-07'),
        ny('1998-04-11'),
        ny('1998-05-09'),
        ny('1998-06-13'),
      ],
    );
    expect(
      expand(
        '19961105T090000',
        'RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8',
        3,
      ),
    ).toEqual([ny('1996-11-05'), ny('2000-11-07'), ny('2004-11-02')]);
  });

  it('BYSETPOS: third TU/WE/TH for 3 months; second-to-last weekday', () => {
    expect(expand('19970904T090000', 'RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3', 10)).toEqual([
      ny('1997-09-04'),
      ny('1997-10-07'),
      ny('1997-11-06'),
    ]);
    expect(expand('19970929T090000', 'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2', 7)).toEqual([
      ny('1997-09-29'),
      ny('1997-10-30'),
      ny('1997-11-27'),
      ny('1997-12-30'),
      ny('1998-01-29'),
      ny('1998-02-26'),
      ny('1998-03-30'),
    ]);
  });

  it('every 3 hours until 17:00Z (the RFC lists 15:00 too, but 15:00 EDT is 19:00Z, after UNTIL)', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z', 10)).toEqual([
      ny('1997-09-02', '09:00'),
      ny('1997-09-02', '12:00'),
    ]);
  });

  it('every 15 minutes for 6; every hour and a half for 4', () => {
    expect(expand('19970902T090000', 'RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6', 10)).toEqual(
      ['09:00', '09:15', '09:30', '09:45', '10:00', '10:15'].map((t) => ny('1997-09-02', t)),
    );
    expect(expand('19970902T090000', 'RRULE:FREQ=MINUTELY;INTERVAL=90;COUNT=4', 10)).toEqual(
      ['09:00', '10:30', '12:00', '13:30'].map((t) => ny('1997-09-02', t)),
    );
  });

  it('every 20 minutes from 9:00 to 16:40 every day (DAILY and MINUTELY forms)', () => {
    const times: string[] = [];
    for (let h = 9; h <= 16; h++)
      for (const m of ['00', '20', '40']) times.push(`${String(h).padStart(2, '0')}:${m}`);
    const expected = [...times.map((t) => ny('1997-09-02', t)), ...times.map((t) => ny('1997-09-03', t))];
    expect(
      expand('19970902T090000', 'RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40', 48),
    ).toEqual(expected);
    expect(
      expand('19970902T090000', 'RRULE:FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16', 48),
    ).toEqual(expected);
  });

  it('WKST changes the result', () => {
    expect(expand('19970805T090000', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO', 10)).toEqual(
      days('1997-08', [5, 10, 19, 24]),
    );
    expect(expand('19970805T090000', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU', 10)).toEqual(
      days('1997-08', [5, 17, 19, 31]),
    );
  });

  it('an invalid date (Feb 30) is skipped, not moved', () => {
    expect(expand('20070115T090000', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5', 10)).toEqual([
      ny('2007-01-15'),
      ny('2007-01-30'),
      ny('2007-02-15'),
      ny('2007-03-15'),
      ny('2007-03-30'),
    ]);
  });
});
