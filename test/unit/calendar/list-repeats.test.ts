// Security review 2, N1: a value a BY-list or a cron field repeats (`BYHOUR=2,2,…`) adds no occurrence,
// only work for whatever reads the list as written. A definition entering — created, its timing edited,
// previewed, read from words — is refused naming the part; a stored one is computed as it always was, the
// repeat ignored, so that a schedule created before the check keeps running.
import { describe, expect, it } from 'vitest';
import { previewRuns } from '../../../src/api/client.js';
import { SchedulerError } from '../../../src/api/errors.js';
import { CalendarError, compileCalendar, type Timing } from '../../../src/calendar/index.js';
import { interpret } from '../../../src/model/interpret.js';
import { computeSlots } from '../../../src/model/slots.js';

const AT = '2027-01-01T00:00:00Z';
const rule = (r: string): Timing => ({ kind: 'RECURRENCE', rule: r, timezone: 'Europe/Riga' });
const cron = (expression: string): Timing => ({ kind: 'CRON', expression, timezone: 'Europe/Riga' });
const times = (value: string, n: number) => Array.from({ length: n }, () => value).join(',');

function entering(timing: Timing): CalendarError | undefined {
  try {
    compileCalendar({ scheduleId: 'x', timing, createdAt: AT, refuseRepeats: true });
    return undefined;
  } catch (err) {
    if (err instanceof CalendarError) return err;
    throw err;
  }
}

const slotsOf = (timing: Timing, refuseRepeats?: boolean) =>
  computeSlots({
    scheduleId: 'x',
    spec: { timing },
    createdAt: AT,
    after: AT,
    count: 20,
    ...(refuseRepeats ? { refuseRepeats } : {}),
  }).slots;

describe('a definition entering: a repeated list value is refused, naming the part', () => {
  it.each([
    ['FREQ=DAILY;BYHOUR=2,2;BYMINUTE=5', 'BYHOUR repeats 2'],
    [`FREQ=DAILY;BYHOUR=${times('2', 2000)};BYMINUTE=${times('5', 2000)}`, 'BYHOUR repeats 2'],
    ['FREQ=DAILY;BYHOUR=9;BYMINUTE=0,15,00', 'BYMINUTE repeats 00'],
    ['FREQ=MINUTELY;BYSECOND=10,20,10', 'BYSECOND repeats 10'],
    ['FREQ=WEEKLY;BYDAY=MO,TU,mo', 'BYDAY repeats mo'],
    ['FREQ=MONTHLY;BYDAY=1MO,+1MO', 'BYDAY repeats +1MO'],
    ['FREQ=MONTHLY;BYMONTHDAY=1,15,01', 'BYMONTHDAY repeats 01'],
    ['FREQ=MONTHLY;BYMONTHDAY=-1,-1', 'BYMONTHDAY repeats -1'],
    ['FREQ=YEARLY;BYMONTH=1,4,7,10,4;BYMONTHDAY=1', 'BYMONTH repeats 4'],
    ['FREQ=YEARLY;BYYEARDAY=100,100', 'BYYEARDAY repeats 100'],
    ['FREQ=YEARLY;BYWEEKNO=20,20;BYDAY=MO', 'BYWEEKNO repeats 20'],
    ['FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=1,-1,1', 'BYSETPOS repeats 1'],
    [
      'DTSTART;TZID=Europe/Riga:20270104T090000\nRRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY;BYDAY=SA,SA',
      'RRULE 2 of 2: BYDAY repeats SA',
    ],
    [
      'DTSTART;TZID=Europe/Riga:20270104T090000\nRRULE:FREQ=DAILY\nEXRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=9,9',
      'EXRULE: BYHOUR repeats 9',
    ],
  ])('RECURRENCE %j → timing.rule: %s', (text, reason) => {
    const err = entering(rule(text));
    expect(err?.toJSON()).toEqual({
      field: 'timing.rule',
      reason: `${reason}: name each value once`,
      code: 'INVALID_RRULE',
    });
  });

  it.each([
    ['5,5 * * * *', 'minute repeats 5'],
    [`${times('5', 120)} ${times('3', 120)} * * *`, 'minute repeats 5'],
    ['0 9,10,09 * * *', 'hour repeats 09'],
    ['10,20,10 0 9 * * *', 'seconds repeats 10'],
    ['0 9 1,L,L * *', 'day-of-month repeats L'],
    ['0 9 * JAN,1 *', 'month repeats 1'],
    ['0 9 * * MON,1', 'day-of-week repeats 1'],
    ['0 9 * * FRIL,5L', 'day-of-week repeats 5L'],
    ['*/15,*/15 * * * *', 'minute repeats */15'],
  ])('CRON %j → timing.expression: %s', (expression, reason) => {
    const err = entering(cron(expression));
    expect(err?.toJSON()).toEqual({
      field: 'timing.expression',
      reason: `${reason}: name each value once`,
      code: 'INVALID_CRON',
    });
  });

  it('lists that name each value once are taken, overlapping cron ranges too (a union, as Vixie cron)', () => {
    for (const timing of [
      rule('FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,30'),
      rule('FREQ=MONTHLY;BYDAY=1MO,-1MO,MO'),
      rule('FREQ=MONTHLY;BYMONTHDAY=1,-1'),
      cron('0-30,15-45 9 * * *'),
      cron('0 9 * * 0,7'),
      cron('0 9 * * MON-FRI,SAT'),
    ])
      expect(entering(timing), JSON.stringify(timing)).toBeUndefined();
  });

  it('the SDK (and so the HTTP API) answers VALIDATION naming the field; words are read to each value once', () => {
    const spec = { timing: rule(`FREQ=DAILY;BYHOUR=${times('2', 50)};BYMINUTE=5`) };
    let err: unknown;
    try {
      previewRuns('preview', spec, AT, AT, 3);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchedulerError);
    expect(err).toMatchObject({
      code: 'VALIDATION',
      field: 'timing.rule',
      reason: 'BYHOUR repeats 2: name each value once',
    });

    const now = '2027-03-26T10:00:00Z';
    const read = (text: string) =>
      interpret({ text, timezone: 'Europe/Riga', now, count: 1 }, new Date(now)).timing;
    expect(read('on the 1st and the 1st of every month at 09:00')).toMatchObject({
      rule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    });
    expect(read('on the first Monday and the first Monday of every month at 09:00')).toMatchObject({
      rule: 'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    });
    expect(read(`every day at ${times('03:05', 100)}`)).toMatchObject({
      rule: 'FREQ=DAILY;BYHOUR=3;BYMINUTE=5;BYSECOND=0',
    });
    // a time said twice among others is one rule line, not two
    expect(
      (read('every day at 09:00, 09:00 and 10:30') as { rule: string }).rule.match(/RRULE:/g),
    ).toHaveLength(2);
  });
});

describe('a stored definition: the repeat is ignored, as it always was', () => {
  it.each([
    [
      rule(`FREQ=DAILY;BYHOUR=${times('3', 1000)};BYMINUTE=${times('5', 1000)}`),
      rule('FREQ=DAILY;BYHOUR=3;BYMINUTE=5'),
    ],
    [rule('FREQ=MONTHLY;BYDAY=1MO,+1MO,-1FR,-1FR'), rule('FREQ=MONTHLY;BYDAY=1MO,-1FR')],
    [
      rule('DTSTART;TZID=Europe/Riga:20270104T090000\nRRULE:FREQ=WEEKLY;BYDAY=SA,SA,SU'),
      rule('DTSTART;TZID=Europe/Riga:20270104T090000\nRRULE:FREQ=WEEKLY;BYDAY=SA,SU'),
    ],
    [cron(`${times('5', 120)} ${times('3', 120)} * * *`), cron('5 3 * * *')],
    [cron('0 9 L,L,15 * MON,1'), cron('0 9 L,15 * MON')],
  ])('%j computes the slots of its distinct values', (repeated, distinct) => {
    expect(slotsOf(repeated)).toEqual(slotsOf(distinct));
    expect(slotsOf(distinct, true)).toEqual(slotsOf(distinct));
  });
});
