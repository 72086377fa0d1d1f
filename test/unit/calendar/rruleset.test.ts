/**
 * Recurrence sets (RFC 5545 §3.8.5, EXRULE from RFC 2445): several RRULEs, EXRULEs, RDATE PERIODs,
 * values in other zones, the DST policy over all of them, and cursors that resume every COUNT rule.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  type CalendarCursor,
  type CalendarOptions,
  compileCalendar,
  type Slot,
} from '../../../src/calendar/index.js';

/**
 * Occurrences every rule's expander has yielded, summed: the work a set does ("a slot costs one step of
 * each rule"), counted so that the bounds below do not depend on how fast the machine is.
 */
const expansion = vi.hoisted(() => ({ yielded: 0 }));
vi.mock('../../../src/calendar/rrule-expand.js', async (importOriginal) => {
  const { countingExpanders } = await import('./expansion-counter.js');
  return countingExpanders(await importOriginal(), expansion);
});

/** What `fn` returns, and the occurrences the rules' expanders yielded meanwhile. */
function expanded<T>(fn: () => T): { result: T; yielded: number } {
  const before = expansion.yielded;
  const result = fn();
  return { result, yielded: expansion.yielded - before };
}

const at = (slots: Slot[]) => slots.map((s) => s.fireAt);
const sched = (slots: Slot[]) => slots.map((s) => s.scheduledFor);

function set(rule: string, timezone: string, options?: CalendarOptions) {
  return compileCalendar({
    scheduleId: 'set',
    timing: { kind: 'RECURRENCE', rule, timezone },
    ...(options ? { options } : {}),
    createdAt: '2026-01-01T00:00:00Z',
  });
}
const first = (rule: string, timezone: string, after: string, count: number, options?: CalendarOptions) =>
  set(rule, timezone, options).nextSlots(after, count);

/** one slot per call, passing the cursor on (through JSON, as a workflow stores it) */
function stepped(rule: string, timezone: string, after: string, max: number, options?: CalendarOptions) {
  const cal = set(rule, timezone, options);
  const out: string[] = [];
  let cursor: CalendarCursor | undefined;
  let last = after;
  for (let i = 0; i < max; i++) {
    const r = cal.nextSlots(last, 1, cursor);
    if (r.slots.length === 0) return { out, cursor, exhausted: r.exhausted };
    out.push(r.slots[0]!.scheduledFor);
    last = r.slots[0]!.scheduledFor;
    cursor = JSON.parse(JSON.stringify(r.cursor));
  }
  return { out, cursor, exhausted: false };
}

// 2027-01-04 is a Monday
const RIGA = 'DTSTART;TZID=Europe/Riga:20270104T090000';

describe('union of RRULEs and RDATEs', () => {
  it('two RRULEs: one slot where both fire, and each COUNT counts its own occurrences', () => {
    const r = first(
      `${RIGA}\nRRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    // MO×3: 4, 11, 18; MO,WE×4: 4, 6, 11, 13
    expect(sched(r.slots)).toEqual([
      '2027-01-04T09:00:00+02:00',
      '2027-01-06T09:00:00+02:00',
      '2027-01-11T09:00:00+02:00',
      '2027-01-13T09:00:00+02:00',
      '2027-01-18T09:00:00+02:00',
    ]);
    expect(r.exhausted).toBe(true);
  });

  it('an RDATE after a UTC UNTIL still fires: RDATEs are extra to the rules (RFC 5545)', () => {
    const r = first(
      `${RIGA}\nRRULE:FREQ=DAILY;UNTIL=20270105T070000Z\nRDATE;TZID=Europe/Riga:20270110T090000`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(at(r.slots)).toEqual(['2027-01-04T07:00:00Z', '2027-01-05T07:00:00Z', '2027-01-10T07:00:00Z']);
    expect(r.exhausted).toBe(true);
  });

  it('each RRULE keeps its own UNTIL; another rule on the same instant still fires there', () => {
    const r = first(
      `${RIGA}\nRRULE:FREQ=DAILY;UNTIL=20270105T070000Z\nRRULE:FREQ=DAILY;INTERVAL=2;COUNT=3`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(at(r.slots)).toEqual([
      '2027-01-04T07:00:00Z',
      '2027-01-05T07:00:00Z',
      '2027-01-06T07:00:00Z',
      '2027-01-08T07:00:00Z',
    ]);
  });
});

describe('blocks accepted before sets stay accepted (running schedules recompute their slots)', () => {
  it('one RRULE that can never fire next to an RDATE: the RDATE fires', () => {
    // 2027-01-04 is a Monday: every 7th day is a Monday, never a Tuesday
    const r = first(
      `${RIGA}\nRRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU\nRDATE;TZID=Europe/Riga:20270110T090000`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      3,
    );
    expect(sched(r.slots)).toEqual(['2027-01-10T09:00:00+02:00']);
  });
});

describe('RDATE;VALUE=PERIOD', () => {
  it('the start of each period is the occurrence: start/end and start/duration, local, other zone or UTC', () => {
    const r = first(
      [
        RIGA,
        'RRULE:FREQ=WEEKLY;COUNT=1',
        'RDATE;VALUE=PERIOD:20270105T100000/PT1H,20270106T120000/20270106T133000',
        'RDATE;VALUE=PERIOD;TZID=America/New_York:20270107T080000/P1D',
        'RDATE;VALUE=PERIOD:20270108T060000Z/20270108T070000Z',
        'RDATE;VALUE=PERIOD:20270109T060000Z/+PT15M',
      ].join('\n'),
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(sched(r.slots)).toEqual([
      '2027-01-04T09:00:00+02:00',
      '2027-01-05T10:00:00+02:00',
      '2027-01-06T12:00:00+02:00',
      '2027-01-07T15:00:00+02:00', // 08:00 in New York
      '2027-01-08T08:00:00+02:00',
      '2027-01-09T08:00:00+02:00',
    ]);
  });
});

describe('EXRULE', () => {
  it('removes the local times it yields, from RRULEs and RDATEs alike; its own COUNT counts its own', () => {
    const r = first(
      [
        RIGA,
        'RRULE:FREQ=DAILY;COUNT=10',
        'EXRULE:FREQ=WEEKLY;BYDAY=SA,SU', // 9, 10
        'EXRULE:FREQ=DAILY;COUNT=2', // 4, 5
        'RDATE;TZID=Europe/Riga:20270116T090000,20270117T100000', // Saturday 09:00 removed, Sunday 10:00 not
      ].join('\n'),
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      20,
    );
    expect(sched(r.slots).map((s) => s.slice(5, 16))).toEqual([
      '01-06T09:00',
      '01-07T09:00',
      '01-08T09:00',
      '01-11T09:00',
      '01-12T09:00',
      '01-13T09:00',
      '01-17T10:00',
    ]);
    expect(r.exhausted).toBe(true);
  });

  it('an EXRULE with a UTC UNTIL removes nothing after it', () => {
    const r = first(
      `${RIGA}\nRRULE:FREQ=DAILY;COUNT=5\nEXRULE:FREQ=DAILY;UNTIL=20270105T070000Z`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(at(r.slots)).toEqual(['2027-01-06T07:00:00Z', '2027-01-07T07:00:00Z', '2027-01-08T07:00:00Z']);
  });
});

describe('EXDATE and values in other zones', () => {
  it('an RDATE with another TZID is that zone’s instant; an EXDATE removes by instant, in any zone', () => {
    const r = first(
      [
        RIGA,
        'RRULE:FREQ=DAILY;COUNT=5',
        'RDATE;TZID=America/New_York:20270105T120000', // 19:00 in Riga
        'EXDATE;TZID=America/New_York:20270106T020000', // 09:00 in Riga
        'EXDATE:20270107T070000Z', // 09:00 in Riga
        'EXDATE;TZID=Asia/Tokyo:20270108T170000', // 10:00 in Riga: nothing fires then
      ].join('\n'),
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(sched(r.slots)).toEqual([
      '2027-01-04T09:00:00+02:00',
      '2027-01-05T09:00:00+02:00',
      '2027-01-05T19:00:00+02:00',
      '2027-01-08T09:00:00+02:00',
    ]);
  });

  it('a date-only EXDATE removes that local date for every member, an RDATE in another zone too', () => {
    const r = first(
      `${RIGA}\nRRULE:FREQ=DAILY;COUNT=3\nRDATE;TZID=America/New_York:20270105T120000\nEXDATE;VALUE=DATE:20270105`,
      'Europe/Riga',
      '2027-01-01T00:00:00Z',
      10,
    );
    expect(sched(r.slots)).toEqual(['2027-01-04T09:00:00+02:00', '2027-01-06T09:00:00+02:00']);
  });

  it('an EXDATE written at the time a DST-shifted slot fires removes it (instant, not wall, equality)', () => {
    // 2027-03-28 in Riga: 03:00 → 04:00; the 03:30 occurrence fires at 04:30
    const text = 'DTSTART;TZID=Europe/Riga:20270326T033000\nRRULE:FREQ=DAILY;COUNT=4';
    const plain = first(text, 'Europe/Riga', '2027-03-25T00:00:00Z', 5);
    expect(sched(plain.slots)[2]).toBe('2027-03-28T04:30:00+03:00');
    for (const exdate of [
      'EXDATE;TZID=Europe/Riga:20270328T043000',
      'EXDATE;TZID=Europe/Riga:20270328T033000',
    ]) {
      const r = first(`${text}\n${exdate}`, 'Europe/Riga', '2027-03-25T00:00:00Z', 5);
      expect(sched(r.slots)).toEqual([
        '2027-03-26T03:30:00+02:00',
        '2027-03-27T03:30:00+02:00',
        '2027-03-29T03:30:00+03:00',
      ]);
    }
  });
});

describe('the DST policy holds for every member of the set', () => {
  it('fold BOTH: an ambiguous time from either RRULE fires at both instants, once', () => {
    // 2027-11-07 in New York: 02:00 → 01:00
    const text =
      'DTSTART;TZID=America/New_York:20271106T013000\nRRULE:FREQ=DAILY;COUNT=3\nRRULE:FREQ=WEEKLY;BYDAY=SU;COUNT=1';
    const r = first(text, 'America/New_York', '2027-11-06T00:00:00Z', 10, { dst: { fold: 'BOTH' } });
    expect(sched(r.slots)).toEqual([
      '2027-11-06T01:30:00-04:00',
      '2027-11-07T01:30:00-04:00',
      '2027-11-07T01:30:00-05:00',
      '2027-11-08T01:30:00-05:00',
    ]);
  });

  it('an RDATE in another zone’s gap: shifted with a note naming that zone, or dropped under SKIP', () => {
    // 2027-03-14 in New York: 02:00 → 03:00; 02:30 does not exist there
    const text = `${RIGA}\nRRULE:FREQ=WEEKLY;COUNT=1\nRDATE;TZID=America/New_York:20270314T023000`;
    const shifted = first(text, 'Europe/Riga', '2027-03-01T00:00:00Z', 5);
    expect(at(shifted.slots)).toEqual(['2027-03-14T07:30:00Z']); // 03:30 EDT
    expect(shifted.slots[0]!.adjustments).toEqual([
      {
        kind: 'DST_GAP',
        note: '02:30 does not exist on 2027-03-14 in America/New_York; fired at 03:30 (read with the offset before the gap)',
      },
    ]);
    const skipped = first(text, 'Europe/Riga', '2027-03-01T00:00:00Z', 5, { dst: { gap: 'SKIP' } });
    expect(skipped.slots).toEqual([]);
    expect(skipped.exhausted).toBe(true);
  });

  it('Lord Howe (30-minute DST): two rules across the gap and the fold', () => {
    // 2027-04-04: 02:00 → 01:30 (01:30–02:00 twice); 2027-10-03: 02:00 → 02:30 (02:00–02:30 missing)
    const text =
      'DTSTART;TZID=Australia/Lord_Howe:20270403T014500\nRRULE:FREQ=DAILY;COUNT=2\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU;BYHOUR=2;BYMINUTE=15;COUNT=1';
    const r = first(text, 'Australia/Lord_Howe', '2027-01-01T00:00:00Z', 5, {
      dst: { fold: 'LAST', gap: 'NEXT_VALID' },
    });
    expect(sched(r.slots)).toEqual([
      '2027-04-03T01:45:00+11:00',
      '2027-04-04T01:45:00+10:30',
      '2027-10-03T02:30:00+11:00',
    ]);
  });
});

describe('cursor', () => {
  const SETS: Array<[string, string, string, CalendarOptions?]> = [
    [
      'two COUNT RRULEs, a COUNT EXRULE, RDATEs, an EXDATE',
      [
        RIGA,
        'RRULE:FREQ=DAILY;INTERVAL=2;COUNT=12',
        'RRULE:FREQ=WEEKLY;BYDAY=TU,FR;BYHOUR=9,18;COUNT=9',
        'EXRULE:FREQ=DAILY;COUNT=5',
        'RDATE;VALUE=PERIOD;TZID=America/New_York:20270110T020000/PT1H',
        'RDATE;TZID=Europe/Riga:20270112T090000',
        'EXDATE;TZID=Europe/Riga:20270114T090000',
      ].join('\n'),
      'Europe/Riga',
    ],
    [
      'a COUNT RRULE with one without COUNT, and max_count',
      `${RIGA}\nRRULE:FREQ=DAILY;COUNT=4\nRRULE:FREQ=WEEKLY;BYDAY=SA`,
      'Europe/Riga',
      { max_count: 9 },
    ],
    [
      'COUNT rules across a fold with BOTH',
      'DTSTART;TZID=America/New_York:20271105T013000\nRRULE:FREQ=DAILY;COUNT=5\nRRULE:FREQ=HOURLY;INTERVAL=12;COUNT=6',
      'America/New_York',
      { dst: { fold: 'BOTH' } },
    ],
  ];
  it.each(SETS)('%s: stepping one slot at a time equals one big call', (_, text, tz, options) => {
    const all = first(text, tz, '2026-12-01T00:00:00Z', 1000, options);
    expect(all.exhausted).toBe(true);
    expect(all.slots.length).toBeGreaterThan(5);
    const s = stepped(text, tz, '2026-12-01T00:00:00Z', 1000, options);
    expect(s.out).toEqual(sched(all.slots));
    expect(s.exhausted).toBe(true);
  });

  it('several COUNT rules: `rules`, one position each (null before its first occurrence)', () => {
    const cal = set(`${RIGA}\nRRULE:FREQ=DAILY;COUNT=5\nRRULE:FREQ=WEEKLY;BYDAY=FR;COUNT=2`, 'Europe/Riga');
    const r = cal.nextSlots('2027-01-01T00:00:00Z', 2);
    expect(r.cursor).toEqual({
      v: 1,
      last: '2027-01-05T09:00:00+02:00',
      emitted: 2,
      rules: [{ wall: '2027-01-05T09:00:00', n: 2 }, null],
    });
    const rest = cal.nextSlots(r.cursor.last!, 10, r.cursor);
    expect(sched(rest.slots).map((s) => s.slice(5, 10))).toEqual(['01-06', '01-07', '01-08', '01-15']);
    expect(rest.cursor.rules).toEqual([
      { wall: '2027-01-08T09:00:00', n: 5 },
      { wall: '2027-01-15T09:00:00', n: 2 },
    ]);
  });

  it('one COUNT rule keeps the cursor format it always had; a cursor recorded before sets is accepted', () => {
    const text = 'DTSTART;TZID=UTC:20270101T090000\nRRULE:FREQ=DAILY;COUNT=10';
    const cal = set(text, 'UTC');
    const r = cal.nextSlots('2026-12-31T00:00:00Z', 3);
    expect(r.cursor).toEqual({
      v: 1,
      last: '2027-01-03T09:00:00+00:00',
      emitted: 3,
      rule: { wall: '2027-01-03T09:00:00', n: 3 },
    });
    // as a running schedule recorded it (release 0.5.2)
    const recorded: CalendarCursor = {
      v: 1,
      last: '2027-01-03T09:00:00+00:00',
      emitted: 3,
      rule: { wall: '2027-01-03T09:00:00', n: 3 },
    };
    const rest = cal.nextSlots('2027-01-03T09:00:00Z', 100, recorded);
    expect(rest.slots).toHaveLength(7);
    expect(rest.cursor.rule).toEqual({ wall: '2027-01-10T09:00:00', n: 10 });
    expect(rest.cursor.rules).toBeUndefined();
    // with an extra RRULE without COUNT, the one COUNT rule's position is still `rule`
    const mixed = set(`${text}\nRRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=12`, 'UTC').nextSlots(
      '2027-01-03T09:00:00Z',
      2,
      recorded,
    );
    expect(sched(mixed.slots)).toEqual(['2027-01-03T12:00:00+00:00', '2027-01-04T09:00:00+00:00']);
    expect(mixed.cursor.rule).toEqual({ wall: '2027-01-04T09:00:00', n: 4 });
  });
});

describe('lazy and bounded', () => {
  it('a dense EXRULE next to a sparse RRULE jumps to each occurrence instead of walking there', () => {
    const cal = set(
      `${RIGA}\nRRULE:FREQ=MONTHLY\nEXRULE:FREQ=SECONDLY;BYMONTH=1,3;BYHOUR=9;BYMINUTE=0`,
      'Europe/Riga',
    );
    const { result: r, yielded } = expanded(() => cal.nextSlots('2026-01-01T00:00:00Z', 4));
    expect(sched(r.slots)).toEqual([
      '2027-02-04T09:00:00+02:00',
      '2027-04-04T09:00:00+03:00',
      '2027-05-04T09:00:00+03:00',
      '2027-06-04T09:00:00+03:00',
    ]);
    // Each monthly occurrence looked at (January to July 2027) costs a step of the RRULE and at most one jump
    // of the EXRULE. Walking the EXRULE there instead steps through every second of 09:00 on each January and
    // March day in between: thousands.
    expect(yielded).toBeLessThanOrEqual(2 * 7);
    expect(yielded, 'the count counts: the RRULE stepped to each slot').toBeGreaterThanOrEqual(4);
  });

  it('a set started ten years ago answers as fast as a new one', () => {
    const started = (dtstart: string) =>
      set(
        [
          `DTSTART;TZID=Europe/Riga:${dtstart}`,
          'RRULE:FREQ=MINUTELY;INTERVAL=7',
          'RRULE:FREQ=HOURLY;BYMINUTE=30',
          'EXRULE:FREQ=MINUTELY;BYHOUR=13',
        ].join('\n'),
        'Europe/Riga',
      );
    const after = '2027-06-01T09:58:00Z'; // 12:58 in Riga
    const old = expanded(() => started('20170101T000000').nextSlots(after, 4));
    // 12:54 that day is on the old set's 7-minute grid, so the new set has the same slots
    const fresh = expanded(() => started('20270601T125400').nextSlots(after, 4));
    // every 7 minutes from 00:00 and at :30, but nothing in the 13:00 hour
    expect(old.result.slots.map((s) => s.local.slice(11, 16))).toEqual(['14:04', '14:11', '14:18', '14:25']);
    expect(fresh.result.slots).toEqual(old.result.slots);
    // compiling and answering expand exactly as much of the old set as of the new one
    expect(old.yielded).toBe(fresh.yielded);
    expect(fresh.yielded, 'the count counts').toBeGreaterThan(0);
  });
});
