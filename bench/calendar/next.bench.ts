/**
 * Calendar engine throughput: `nextSlots(after, 1)` per second.
 *
 *   node --import tsx bench/calendar/next.bench.ts
 *
 * Prints a markdown table. "next()" walks forward as a schedule workflow does (after = the
 * previous slot, with its cursor) on a compiled calendar, restarting from 2027-06-01 every 240
 * slots; "compile+next" compiles every call (what a stateless
 * local activity pays); the naive baseline calls rrule.js `after()` on a rule whose DTSTART is the
 * schedule's real start, which iterates from DTSTART on every call.
 */
import * as rruleNs from 'rrule';
import { type CalendarInput, compileCalendar } from '../../src/calendar/index.js';

const rr: typeof rruleNs = (rruleNs as unknown as { default?: typeof rruleNs }).default?.RRule
  ? (rruleNs as unknown as { default: typeof rruleNs }).default
  : rruleNs;
const { RRule } = rr;

const NOW = Date.UTC(2027, 5, 1, 12, 0, 30);
const iso = (ms: number) => new Date(ms).toISOString();

function measure(budgetMs: number, maxCalls: number, fn: () => void): { perSec: number; calls: number } {
  // warm-up (time-bounded: the naive baseline can take seconds per call)
  const w0 = performance.now();
  for (let i = 0; i < 50 && performance.now() - w0 < budgetMs / 5; i++) fn();
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (calls < maxCalls && t - t0 < budgetMs) {
    fn();
    calls++;
    if ((calls & 7) === 0 || maxCalls < 100) t = performance.now();
  }
  t = performance.now();
  return { perSec: (calls / (t - t0)) * 1000, calls };
}

/** walks forward from `start` slot by slot, restarting every WALK slots (a schedule lives around the present) */
const WALK = 240;

function walk(input: CalendarInput, start: number): () => void {
  const cal = compileCalendar(input);
  // the first call (which may count COUNT from DTSTART) happens once, as it would in a workflow
  const first = cal.nextSlots(iso(start), 1);
  const origin = { after: first.slots[0]!.scheduledFor, cursor: first.cursor };
  let { after, cursor } = origin;
  let n = 0;
  return () => {
    const r = cal.nextSlots(after, 1, cursor);
    const s = r.slots[0];
    if (!s || ++n % WALK === 0) {
      ({ after, cursor } = origin);
      return;
    }
    after = s.scheduledFor;
    cursor = r.cursor;
  };
}

function compileEach(input: CalendarInput, start: number): () => void {
  let after = start;
  let n = 0;
  return () => {
    const s = compileCalendar(input).nextSlots(iso(after), 1).slots[0];
    after = s && ++n % WALK !== 0 ? Date.parse(s.scheduledFor) : start;
  };
}

function naive(freq: number, dtstart: number, extra: Record<string, unknown>, start: number): () => void {
  const rule = new RRule({ freq, dtstart: new Date(dtstart), ...extra } as never, true);
  let after = start;
  return () => {
    const d = rule.after(new Date(after));
    after = d ? d.getTime() : start;
  };
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));

interface Row {
  name: string;
  input: CalendarInput;
  naive?: () => () => void;
}
const block = (tz: string, dt: number, body: string) =>
  `DTSTART;TZID=${tz}:${iso(dt).slice(0, 19).replace(/[-:]/g, '')}\nRRULE:${body}`;
const created = iso(Date.UTC(2026, 0, 1));
const rows: Row[] = [
  {
    name: 'daily 09:00 Europe/Riga (RRULE)',
    input: {
      scheduleId: 'b',
      createdAt: created,
      timing: {
        kind: 'RECURRENCE',
        rule: block('Europe/Riga', Date.UTC(2026, 0, 1, 9), 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0'),
        timezone: 'Europe/Riga',
      },
    },
    naive: () => naive(RRule.DAILY, Date.UTC(2026, 0, 1, 9), {}, NOW),
  },
  {
    name: 'weekdays 09:00 cron Europe/Riga',
    input: {
      scheduleId: 'b',
      createdAt: created,
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
    },
  },
  {
    name: 'every 10 min (INTERVAL)',
    input: { scheduleId: 'b', createdAt: created, timing: { kind: 'INTERVAL', every: 'PT10M' } },
  },
  {
    name: 'monthly last weekday (BYSETPOS=-1) America/New_York',
    input: {
      scheduleId: 'b',
      createdAt: created,
      timing: {
        kind: 'RECURRENCE',
        rule: block(
          'America/New_York',
          Date.UTC(2026, 0, 1, 17),
          'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
        ),
        timezone: 'America/New_York',
      },
    },
    naive: () =>
      naive(RRule.MONTHLY, Date.UTC(2026, 0, 1, 17), { byweekday: [0, 1, 2, 3, 4], bysetpos: [-1] }, NOW),
  },
];
for (const [label, ageMs] of [
  ['1 day', 86_400_000],
  ['1 year', 365 * 86_400_000],
  ['10 years', 3652 * 86_400_000],
] as const) {
  const dt = Math.floor((NOW - ageMs) / 60_000) * 60_000;
  rows.push({
    name: `minutely, started ${label} ago (Europe/Riga)`,
    input: {
      scheduleId: 'b',
      createdAt: iso(dt),
      timing: {
        kind: 'RECURRENCE',
        rule: block('Europe/Riga', dt, 'FREQ=MINUTELY'),
        timezone: 'Europe/Riga',
      },
    },
    naive: () => naive(RRule.MINUTELY, dt, {}, NOW),
  });
}
rows.push({
  name: 'daily 09:00 COUNT=100000, started 10 years ago (cursor)',
  input: {
    scheduleId: 'b',
    createdAt: created,
    timing: {
      kind: 'RECURRENCE',
      rule: block('Europe/Riga', NOW - 3652 * 86_400_000, 'FREQ=DAILY;COUNT=100000'),
      timezone: 'Europe/Riga',
    },
  },
});

const out: string[] = [];
out.push(
  `Node ${process.version}, ${process.platform}/${process.arch}, one core: \`nextSlots(after, 1)\` calls per second ` +
    '(`node --import tsx bench/calendar/next.bench.ts`).',
);
out.push('');
out.push(
  '| scenario | next() /s (compiled) | compile + next() /s | naive rrule.js `after()` from DTSTART /s |',
);
out.push('|---|---:|---:|---:|');
for (const row of rows) {
  const ours = measure(700, 200_000, walk(row.input, NOW));
  const each = measure(500, 50_000, compileEach(row.input, NOW));
  const base = row.naive ? measure(1500, 2000, row.naive()) : undefined;
  out.push(`| ${row.name} | ${fmt(ours.perSec)} | ${fmt(each.perSec)} | ${base ? fmt(base.perSec) : '—'} |`);
}
process.stdout.write(`${out.join('\n')}\n`);
