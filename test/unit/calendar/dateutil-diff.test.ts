/**
 * Differential test: our engine vs python-dateutil's rrule (the reference implementation that
 * rrule.js ports), with zoneinfo zones. Hundreds of generated rules × zones; the expected
 * instants come only from Python.
 */
import { describe, expect, it } from 'vitest';
import { CalendarError, compileCalendar, type DstPolicy, type Slot } from '../../../src/calendar/index.js';
import { dstAffected, generateCase, generateSetCase, type SetCase } from './generate.js';
import { block, type OracleCase, prng, pythonAvailable, runOracle } from './helpers.js';

const at = (slots: Slot[]) => slots.map((s) => s.fireAt).join(' ');

const missing = pythonAvailable();

describe('differential: calendar vs python-dateutil rrule + zoneinfo', () => {
  it.skipIf(process.env.CALENDAR_SKIP_PYTHON === '1')('python3 with python-dateutil is available', () => {
    expect(missing).toBeUndefined();
  });

  it.skipIf(missing !== undefined)(
    'agrees on generated rules in DST-heavy zones',
    () => {
      const seed = Number(process.env.CALENDAR_DIFF_SEED ?? 20260905);
      const n = Number(process.env.CALENDAR_DIFF_CASES ?? 400);
      const rnd = prng(seed);
      const cases: OracleCase[] = [];
      const ours: Record<string, string[]> = {};
      const rejected: OracleCase[] = [];
      for (let i = 0; i < n; i++) {
        const c = generateCase(rnd, `c${i}`);
        try {
          const cal = compileCalendar({
            scheduleId: c.id,
            timing: { kind: 'RECURRENCE', rule: block(c.tz, c.dtstart, c.rule), timezone: c.tz },
            createdAt: '2000-01-01T00:00:00Z',
          });
          ours[c.id] = cal.nextSlots(c.after, c.count).slots.map((s) => s.fireAt);
          cases.push(c);
        } catch (e) {
          if (e instanceof CalendarError && e.code === 'NEVER_FIRES') {
            rejected.push({ ...c, id: `never-${c.id}`, after: '1990-01-01T00:00:00Z', count: 1 });
            continue;
          }
          throw new Error(`${JSON.stringify(c)}: ${(e as Error).message}`);
        }
      }
      expect(rejected.length).toBeLessThan(n * 0.1);
      const expected = { ...runOracle(cases, 1), ...runOracle(rejected.slice(0, 6), 1) };
      // every rule we reject as never firing must not fire under dateutil either
      const wronglyRejected = rejected.slice(0, 6).filter((c) => {
        const r = expected[c.id];
        return Array.isArray(r) && r.length > 0;
      });
      expect(wronglyRejected.map((c) => JSON.stringify(c))).toEqual([]);
      const mismatches: string[] = [];
      let inconclusive = 0;
      for (const c of cases) {
        const exp = expected[c.id];
        if (!Array.isArray(exp)) {
          // dateutil itself is too slow (sub-daily with filters) or crashes (IndexError on
          // BYDAY=52TU with BYMONTH): those cases prove nothing either way
          inconclusive++;
          continue;
        }
        if (JSON.stringify(exp) !== JSON.stringify(ours[c.id])) {
          mismatches.push(
            `${JSON.stringify(c)}\n  python: ${exp.join(' ')}\n  ours:   ${ours[c.id]!.join(' ')}`,
          );
        }
      }
      expect(mismatches.slice(0, 5).join('\n'), `${mismatches.length} of ${cases.length} differ`).toBe('');
      expect(inconclusive).toBeLessThan(cases.length * 0.05);
      expect(cases.length - inconclusive).toBeGreaterThan(n * 0.8);
    },
    300_000,
  );
});

/**
 * Recurrence sets: several RRULEs (each its own COUNT), EXRULEs, RDATEs (PERIODs too) and EXDATEs,
 * in the rule's zone, another zone or UTC, on DST days. The expected instants come from dateutil's
 * rruleset. dateutil has no DST policy: the default policy (RFC 5545 §3.3.5) is compared with it,
 * and every other policy with the default where no value sits in a gap or fold.
 */
describe('differential: recurrence sets vs python-dateutil rruleset + zoneinfo', () => {
  const compile = (c: OracleCase & { block: string }, dst?: DstPolicy) =>
    compileCalendar({
      scheduleId: c.id,
      timing: { kind: 'RECURRENCE', rule: c.block, timezone: c.tz },
      ...(dst ? { options: { dst } } : {}),
      createdAt: '2000-01-01T00:00:00Z',
    });
  const POLICIES: DstPolicy[] = [
    { gap: 'NEXT_VALID', fold: 'LAST' },
    { gap: 'SKIP', fold: 'BOTH' },
    { gap: 'SHIFT_FORWARD', fold: 'BOTH' },
    { gap: 'SKIP', fold: 'LAST' },
  ];

  it.skipIf(missing !== undefined)(
    'agrees on generated sets: several RRULEs, EXRULE, RDATE PERIOD, mixed TZIDs, on DST days',
    () => {
      const seed = Number(process.env.CALENDAR_DIFF_SEED ?? 20260905);
      const n = Number(process.env.CALENDAR_DIFF_SET_CASES ?? 240);
      const rnd = prng(seed ^ 0x5e7);
      const firstSlots = (block: string, tz: string, after: string, count: number) =>
        compile({ id: 'probe', tz, dtstart: '', rule: '', block, after, count })
          .nextSlots(after, count)
          .slots.map((s) => Date.parse(s.fireAt));
      const cases: SetCase[] = [];
      const ours: Record<string, Slot[]> = {};
      let rejected = 0;
      const wholeSetRejected: SetCase[] = [];
      let policyCompared = 0;
      const policyMismatches: string[] = [];
      for (let i = 0; i < n; i++) {
        const c = generateSetCase(rnd, `s${i}`, firstSlots);
        let slots: Slot[];
        try {
          slots = compile(c).nextSlots(c.after, c.count).slots;
        } catch (e) {
          // random rules may never fire, an EXRULE never match or remove every member
          const never = /never matches/;
          if (e instanceof CalendarError && (e.code === 'NEVER_FIRES' || never.test(e.reason))) {
            rejected++;
            // the set as a whole (not one of its rules): dateutil must find nothing either
            if (!/^(RRULE|EXRULE)/.test(e.reason))
              wholeSetRejected.push({ ...c, id: `never-${c.id}`, after: '1990-01-01T00:00:00Z', count: 1 });
            continue;
          }
          throw new Error(`${JSON.stringify(c)}: ${(e as Error).message}`);
        }
        ours[c.id] = slots;
        cases.push(c);
        // the policies agree where nothing is in a gap or fold: no slot adjusted, no value there
        const calm =
          slots.every((s) => !s.adjustments.some((a) => a.kind === 'DST_GAP' || a.kind === 'DST_FOLD')) &&
          !c.walls.some((w) => dstAffected(w.zone, w.wall));
        if (calm) {
          const dst = POLICIES[i % POLICIES.length]!;
          const other = compile(c, dst).nextSlots(c.after, c.count).slots;
          policyCompared++;
          if (JSON.stringify(other.map((s) => s.fireAt)) !== JSON.stringify(slots.map((s) => s.fireAt))) {
            policyMismatches.push(`${JSON.stringify({ ...c, dst })}\n  ${at(other)}\n  ${at(slots)}`);
          }
        }
      }
      expect(policyMismatches.slice(0, 3).join('\n')).toBe('');
      // mostly one random RRULE of several that can never fire, refused as a lone one is
      expect(rejected).toBeLessThan(n * 0.15);
      const expected = runOracle([...cases, ...wholeSetRejected.slice(0, 6)], 2);
      const wronglyRejected = wholeSetRejected.slice(0, 6).filter((c) => {
        const r = expected[c.id];
        return Array.isArray(r) && r.length > 0;
      });
      expect(wronglyRejected.map((c) => JSON.stringify(c))).toEqual([]);
      const mismatches: string[] = [];
      const inconclusive: string[] = [];
      let withExrule = 0;
      let withPeriod = 0;
      let withOtherZone = 0;
      for (const c of cases) {
        const exp = expected[c.id];
        if (!Array.isArray(exp)) {
          // dateutil too slow, or judging a pair in a gap/fold otherwise than the engine (PEP 495)
          inconclusive.push(`${c.id}: ${JSON.stringify(exp)}`);
          continue;
        }
        if (c.block.includes('EXRULE')) withExrule++;
        if (c.block.includes('PERIOD')) withPeriod++;
        if (c.walls.some((w) => w.zone !== c.tz)) withOtherZone++;
        const got = ours[c.id]!.map((s) => s.fireAt);
        if (JSON.stringify(exp) !== JSON.stringify(got)) {
          mismatches.push(`${JSON.stringify(c)}\n  python: ${exp.join(' ')}\n  ours:   ${got.join(' ')}`);
        }
      }
      expect(mismatches.slice(0, 5).join('\n'), `${mismatches.length} of ${cases.length} differ`).toBe('');
      expect(inconclusive.length, inconclusive.slice(0, 5).join('\n')).toBeLessThan(cases.length * 0.1);
      // the generator reaches what it is for
      const compared = cases.length - inconclusive.length;
      expect(compared).toBeGreaterThan(n * 0.8);
      expect(withExrule).toBeGreaterThan(compared * 0.3);
      expect(withPeriod).toBeGreaterThan(compared * 0.15);
      expect(withOtherZone).toBeGreaterThan(compared * 0.3);
      expect(policyCompared).toBeGreaterThan(n * 0.3);
    },
    300_000,
  );
});

/** Sets picked by hand for the DST days of five zones; each must be conclusive. */
const HAND_PICKED: Array<Omit<SetCase, 'rule' | 'walls'>> = [
  {
    id: 'riga-spring', // 2027-03-28: 03:00 → 04:00
    tz: 'Europe/Riga',
    dtstart: '2027-03-20T03:30:00',
    block: [
      'DTSTART;TZID=Europe/Riga:20270320T033000',
      'RRULE:FREQ=DAILY',
      'RRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=3;BYMINUTE=0,15;COUNT=4',
      'EXRULE:FREQ=WEEKLY;BYDAY=SA',
      'RDATE;VALUE=PERIOD;TZID=Europe/Riga:20270328T031500/PT1H',
      'EXDATE;TZID=America/New_York:20270328T203000',
    ].join('\n'),
    after: '2027-03-25T00:00:00Z',
    count: 10,
  },
  {
    id: 'new-york-fall', // 2027-11-07: 02:00 → 01:00
    tz: 'America/New_York',
    dtstart: '2027-11-05T01:30:00',
    block: [
      'DTSTART;TZID=America/New_York:20271105T013000',
      'RRULE:FREQ=DAILY;COUNT=5',
      'RRULE:FREQ=HOURLY;INTERVAL=12;COUNT=6',
      'EXRULE:FREQ=DAILY;BYHOUR=13;BYMINUTE=30;COUNT=1',
      'RDATE;TZID=Europe/Riga:20271107T083000',
      'RDATE;VALUE=PERIOD:20271108T120000Z/20271108T130000Z',
    ].join('\n'),
    after: '2027-11-04T00:00:00Z',
    count: 12,
  },
  {
    id: 'lord-howe-spring', // 2027-10-03: 02:00 → 02:30; Sydney 02:00 → 03:00 the same day
    tz: 'Australia/Lord_Howe',
    dtstart: '2027-09-30T02:15:00',
    block: [
      'DTSTART;TZID=Australia/Lord_Howe:20270930T021500',
      'RRULE:FREQ=DAILY;COUNT=6',
      'RRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=1,2;BYMINUTE=45;COUNT=3',
      'EXRULE:FREQ=DAILY;BYDAY=FR',
      'RDATE;TZID=Australia/Sydney:20271003T020000',
      'EXDATE:20271003T151500Z',
    ].join('\n'),
    after: '2027-09-29T00:00:00Z',
    count: 12,
  },
  {
    id: 'lord-howe-autumn', // 2027-04-04: 02:00 → 01:30
    tz: 'Australia/Lord_Howe',
    dtstart: '2027-04-01T01:40:00',
    block: [
      'DTSTART;TZID=Australia/Lord_Howe:20270401T014000',
      'RRULE:FREQ=DAILY;COUNT=6',
      'RRULE:FREQ=MINUTELY;INTERVAL=10;BYHOUR=1;BYDAY=SU;COUNT=9',
      'EXRULE:FREQ=MINUTELY;INTERVAL=20;BYHOUR=1;BYDAY=SU',
      'RDATE;VALUE=PERIOD;TZID=Australia/Lord_Howe:20270404T011000/PT20M',
    ].join('\n'),
    after: '2027-03-31T00:00:00Z',
    count: 14,
  },
  {
    id: 'santiago-spring', // 2027-09-05: 00:00 → 01:00
    tz: 'America/Santiago',
    dtstart: '2027-09-01T00:30:00',
    block: [
      'DTSTART;TZID=America/Santiago:20270901T003000',
      'RRULE:FREQ=DAILY;COUNT=7',
      'RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=23;BYMINUTE=30;COUNT=2',
      'EXRULE:FREQ=MONTHLY;BYMONTHDAY=3',
      'RDATE;VALUE=PERIOD;TZID=America/Santiago:20270905T001500/20270905T011500',
      'EXDATE;TZID=America/New_York:20270905T233000',
    ].join('\n'),
    after: '2027-08-31T00:00:00Z',
    count: 12,
  },
  {
    id: 'santiago-autumn', // 2027-04-04 00:00 → 2027-04-03 23:00
    tz: 'America/Santiago',
    dtstart: '2027-04-01T23:30:00',
    block: [
      'DTSTART;TZID=America/Santiago:20270401T233000',
      'RRULE:FREQ=DAILY;COUNT=4',
      'RRULE:FREQ=DAILY;BYHOUR=22;BYMINUTE=45;COUNT=4',
      'EXRULE:FREQ=DAILY;BYHOUR=22;BYMINUTE=45;COUNT=1',
      'RDATE;TZID=UTC:20270404T030000',
    ].join('\n'),
    after: '2027-03-31T00:00:00Z',
    count: 12,
  },
  {
    id: 'tehran-2021-spring', // 2021-03-22: 00:00 → 01:00 (Iran has had no DST since 2022)
    tz: 'Asia/Tehran',
    dtstart: '2021-03-19T00:30:00',
    block: [
      'DTSTART;TZID=Asia/Tehran:20210319T003000',
      'RRULE:FREQ=DAILY;COUNT=6',
      'RRULE:FREQ=MONTHLY;BYMONTHDAY=21,22;BYHOUR=0,23;BYMINUTE=30;COUNT=8',
      'EXRULE:FREQ=WEEKLY;BYDAY=FR',
      'RDATE;VALUE=PERIOD;TZID=Europe/Riga:20210322T000000/20210322T003000',
      'EXDATE;TZID=Asia/Tehran:20210323T003000',
    ].join('\n'),
    after: '2021-03-18T00:00:00Z',
    count: 12,
  },
  {
    id: 'tehran-2021-autumn', // 2021-09-22 00:00 → 2021-09-21 23:00
    tz: 'Asia/Tehran',
    dtstart: '2021-09-19T23:30:00',
    block: [
      'DTSTART;TZID=Asia/Tehran:20210919T233000',
      'RRULE:FREQ=DAILY;UNTIL=20210923T000000Z',
      'RRULE:FREQ=HOURLY;INTERVAL=6;COUNT=10',
      'EXRULE:FREQ=HOURLY;INTERVAL=12',
      'RDATE;TZID=Asia/Tehran:20210921T231500',
      'RDATE:20210930T120000Z',
    ].join('\n'),
    after: '2021-09-18T00:00:00Z',
    count: 15,
  },
];

describe('differential: hand-picked recurrence sets on DST days', () => {
  it.skipIf(missing !== undefined)('agree with dateutil', () => {
    const cases = HAND_PICKED.map((c) => ({ ...c, rule: '' }));
    const expected = runOracle(cases, 10);
    const rows = cases.map((c) => {
      const slots = compileCalendar({
        scheduleId: c.id,
        timing: { kind: 'RECURRENCE', rule: c.block, timezone: c.tz },
        createdAt: '2000-01-01T00:00:00Z',
      }).nextSlots(c.after, c.count).slots;
      return { id: c.id, python: expected[c.id], ours: slots.map((s) => s.fireAt) };
    });
    for (const row of rows) {
      expect(Array.isArray(row.python), `${row.id}: ${JSON.stringify(row.python)}`).toBe(true);
      expect(row.ours.length, row.id).toBeGreaterThan(3);
      expect({ id: row.id, slots: row.ours }).toEqual({ id: row.id, slots: row.python });
    }
  });
});
