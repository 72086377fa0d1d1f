// Timings → English (docs/words.md "Rule → words"). Written in the forms the reader reads, so that reading an
// explanation back gives a timing with the same runs; a rule the words cannot say is given as itself.
import { DAY, MINUTE } from '../floating.js';
import type { CalendarOptions, Timing, Weekday } from '../timing.js';
import { checkZone, type Zone, zoneFor } from '../zone.js';
import { distinctValues, timesOfDay } from './by-lists.js';
import { englishOrdinal, MONTH_NAMES } from './en.js';

const DAY_NAMES: Record<Weekday, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
const DAY_ORDER: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const ORDINAL_WORDS: Record<string, string> = {
  '1': 'first',
  '2': 'second',
  '3': 'third',
  '4': 'fourth',
  '5': 'fifth',
  '-1': 'last',
};
const pad = (n: number) => String(n).padStart(2, '0');
const list = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** A definition's timing and calendar options in plain English. */
export function explainSpec(spec: { timing: Timing } & CalendarOptions): string {
  const { timing } = spec;
  const main = explainTiming(timing);
  const bounds: string[] = [];
  if (spec.starts_at !== undefined && !(timing.kind === 'INTERVAL' && timing.anchor === spec.starts_at))
    bounds.push(`starting ${spec.starts_at}`);
  // a bare rule repeating every n > 1 periods counts them from the schedule's creation (its DTSTART)
  if (
    timing.kind === 'RECURRENCE' &&
    spec.starts_at === undefined &&
    /(^|;)INTERVAL=([2-9]|\d\d+)/i.test(timing.rule) &&
    ruleWords(timing.rule) !== undefined
  )
    bounds.push("counted from the schedule's creation");
  if (spec.ends_at !== undefined) bounds.push(`until ${spec.ends_at}`);
  if (spec.max_count !== undefined) bounds.push(spec.max_count === 1 ? '1 time' : `${spec.max_count} times`);
  const extras: string[] = [];
  if (spec.business_days) extras.push(businessDaysWords(timing, spec.business_days));
  if (spec.window) {
    const w = spec.window;
    extras.push(
      `only from ${w.from} to ${w.to}${w.days ? ` on ${list(w.days.map((d) => DAY_NAMES[d]))}` : ''}${windowZone(timing, spec, w.timezone)}${w.outside === 'SKIP' ? ', skipped outside' : ', deferred to the next opening'}`,
    );
  }
  if (spec.exclusions?.length)
    extras.push(
      `except on ${list(spec.exclusions.slice(0, 5))}${spec.exclusions.length > 5 ? ' and more' : ''}`,
    );
  if (spec.jitter) extras.push(`each delayed by up to ${spec.jitter} (jitter)`);
  if (spec.dst?.gap && spec.dst.gap !== 'SHIFT_FORWARD')
    extras.push(
      `a time that does not exist is ${spec.dst.gap === 'SKIP' ? 'skipped' : 'moved to the first valid time'}`,
    );
  if (spec.dst?.fold && spec.dst.fold !== 'FIRST')
    extras.push(`a repeated time fires ${spec.dst.fold === 'BOTH' ? 'twice' : 'at the second'}`);
  const dst = dstNote(timing, spec.dst);
  return [[main, ...bounds].join(' '), ...extras, ...(dst ? [dst] : [])].join('; ');
}

/**
 * "business days of LV": whose public holidays close a day, the weekend when it is not Saturday and Sunday,
 * the extra closed and open dates, and for a timing of another kind what a run on a closed day does. The
 * reader reads this clause back (read.ts BUSINESS_CLAUSE).
 */
function businessDaysWords(timing: Timing, b: NonNullable<CalendarOptions['business_days']>): string {
  const parts = [`business days of ${b.region}`];
  const weekend = b.weekend ? [...new Set(b.weekend)] : undefined;
  if (weekend !== undefined && weekend.length === 0) parts.push('no weekend');
  else if (weekend !== undefined && [...weekend].sort().join(',') !== 'SA,SU')
    parts.push(`weekend ${list(DAY_ORDER.filter((d) => weekend.includes(d)).map((d) => DAY_NAMES[d]))}`);
  if (b.closed?.length) parts.push(`also closed on ${list([...new Set(b.closed)].sort())}`);
  if (b.open?.length) parts.push(`also open on ${list([...new Set(b.open)].sort())}`);
  const said = parts.join(', ');
  if (timing.kind === 'BUSINESS_DAY') return said;
  const roll =
    b.roll === 'FORWARD'
      ? 'moves to the next business day'
      : b.roll === 'BACKWARD'
        ? 'moves to the previous business day'
        : 'is skipped';
  return `${said}: a run on a closed day ${roll}`;
}

/** The window's zone when the timing does not say it already. */
function windowZone(timing: Timing, spec: CalendarOptions, own: string | undefined): string {
  const timingZone = 'timezone' in timing ? timing.timezone : undefined;
  const zone = own ?? timingZone ?? spec.timezone;
  return zone !== undefined && zone !== timingZone ? ` in ${zone}` : '';
}

function explainTiming(t: Timing): string {
  switch (t.kind) {
    case 'ONE_TIME':
      return t.timezone ? `once ${wallWords(t.at)} in ${t.timezone}` : `once at ${t.at}`;
    case 'DELAY':
      return t.anchor ? `${durationWords(t.delay)} after ${t.anchor}` : `in ${durationWords(t.delay)}`;
    case 'INTERVAL':
      if (t.mode === 'FIXED_DELAY') return `${durationWords(t.every)} after each run finishes`;
      return `every ${durationWords(t.every, true)}${t.anchor ? ` starting ${t.anchor}` : ''}`;
    case 'DEADLINE': {
      // each reminder's parts without "and" ("2 days 3 hours"): "and" separates the reminders
      const reminders = t.reminders?.length
        ? `, remind me ${list(t.reminders.map((r) => durationWords(r, false, ' ')))} before`
        : '';
      return `deadline ${wallWords(t.at)}${t.timezone ? ` in ${t.timezone}` : ''}${reminders}`;
    }
    case 'CRON':
      return `${cronWords(t.expression) ?? `cron ${t.expression}`} in ${t.timezone}`;
    case 'RECURRENCE':
      return `${ruleWords(t.rule) ?? t.rule} in ${t.timezone}`;
    case 'BUSINESS_DAY': {
      // "the first", "the 10th", "the last", "the second to last": the forms the reader numbers them by
      const nth = (n: number) => ORDINAL_WORDS[String(n)] ?? englishOrdinal(n);
      const which = t.n > 0 ? nth(t.n) : t.n === -1 ? 'last' : `${nth(-t.n)} to last`;
      const of =
        t.period === 'QUARTER'
          ? 'every quarter'
          : t.months
            ? list([...new Set(t.months)].sort((a, b) => a - b).map((m) => MONTH_NAMES[m - 1]!))
            : 'every month';
      return `on the ${which} business day of ${of} at ${t.time} in ${t.timezone}`;
    }
  }
}

/** "at 14:00 on 5 September 2026" from a local ISO date-time (or the instant as written). */
function wallWords(at: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(at);
  if (!m) return `at ${at}`;
  const time = m[4] === undefined ? '00:00' : `${m[4]}:${m[5]}${m[6] && m[6] !== '00' ? `:${m[6]}` : ''}`;
  return `at ${time} on ${Number(m[3])} ${MONTH_NAMES[Number(m[2]) - 1]} ${m[1]}`;
}

const DURATION_UNITS: Array<[string, string]> = [
  ['Y', 'year'],
  ['M', 'month'],
  ['W', 'week'],
  ['D', 'day'],
  ['H', 'hour'],
  ['TM', 'minute'],
  ['S', 'second'],
];
/** "2 hours and 30 minutes" from PT2H30M; `every`: "10 minutes" / "hour" (every hour). */
function durationWords(iso: string, every = false, joiner?: string): string {
  const m =
    /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      iso,
    );
  if (!m) return iso;
  const parts: string[] = [];
  DURATION_UNITS.forEach(([, name], i) => {
    const v = m[i + 1];
    if (v !== undefined && Number(v) !== 0) parts.push(`${v} ${name}${Number(v) === 1 ? '' : 's'}`);
  });
  if (parts.length === 0) return '0 seconds';
  if (every && parts.length === 1 && parts[0]!.startsWith('1 ')) return parts[0]!.slice(2);
  return joiner === undefined ? list(parts) : parts.join(joiner);
}

const ruleParts = (body: string): Map<string, string> | undefined => {
  if (/\n|DTSTART|RRULE:|EXRULE|RDATE|EXDATE/i.test(body)) return undefined;
  const parts = new Map<string, string>();
  for (const p of body.split(';')) {
    const [k, v] = p.split('=');
    if (!k || v === undefined) return undefined;
    parts.set(k.toUpperCase(), v.toUpperCase());
  }
  return parts;
};

function timesWords(hours: number[], minutes: number[], second: number): string | undefined {
  if (hours.length * minutes.length > 12) return undefined;
  const times = timesOfDay(hours, minutes).map(
    (t) => `${pad(Math.floor(t / 60))}:${pad(t % 60)}${second ? `:${pad(second)}` : ''}`,
  );
  return `at ${list(times)}`;
}

/** A rule's or a cron field's hours and minutes: each value once (by-lists.ts), undefined if one is not. */
const hoursOf = (v: string | undefined) => distinctValues(v, 0, 23);
const minutesOf = (v: string | undefined) => distinctValues(v, 0, 59);
const distinctNames = (v: string | undefined) => (v === undefined ? undefined : [...new Set(v.split(','))]);

/** The words of an RRULE body in the subset the reader reads back; undefined when it cannot be said. */
function ruleWords(body: string): string | undefined {
  const p = ruleParts(body);
  if (!p) return undefined;
  const known = new Set([
    'FREQ',
    'INTERVAL',
    'BYDAY',
    'BYMONTHDAY',
    'BYMONTH',
    'BYHOUR',
    'BYMINUTE',
    'BYSECOND',
    'BYSETPOS',
  ]);
  for (const k of p.keys()) if (!known.has(k)) return undefined;
  const hours = hoursOf(p.get('BYHOUR'));
  const minutes = minutesOf(p.get('BYMINUTE'));
  const seconds = p.has('BYSECOND') ? distinctValues(p.get('BYSECOND'), 0, 59) : [0];
  // "every hour at 15 minutes past the hour": one minute of every hour, and nothing else
  if (p.get('FREQ') === 'HOURLY') {
    const only = [...p.keys()].every((k) => ['FREQ', 'BYMINUTE', 'BYSECOND'].includes(k));
    if (!only || minutes?.length !== 1 || seconds?.length !== 1 || seconds[0] !== 0) return undefined;
    return minutes[0] === 0 ? 'every hour on the hour' : `every hour at ${minutes[0]} minutes past the hour`;
  }
  if (!hours || !minutes || seconds?.length !== 1) return undefined;
  const byday = distinctNames(p.get('BYDAY'));
  const monthDays = p.has('BYMONTHDAY') ? distinctValues(p.get('BYMONTHDAY'), -31, 31) : undefined;
  const months = p.has('BYMONTH') ? distinctValues(p.get('BYMONTH'), 1, 12) : undefined;
  if ((p.has('BYMONTHDAY') && !monthDays) || (p.has('BYMONTH') && !months)) return undefined;
  const setpos = p.get('BYSETPOS');
  const stepped = steppedWords(p, hours, minutes, seconds[0]!, byday, monthDays, months, setpos);
  if (stepped) return stepped;
  const at = timesWords(hours, minutes, seconds[0]!);
  if (!at) return undefined;
  const n = Number(p.get('INTERVAL') ?? '1');
  const plainDays = byday?.every((d) => /^(MO|TU|WE|TH|FR|SA|SU)$/.test(d));
  const dayList = (days: string[]) => dayListWords(days, 'one');
  switch (p.get('FREQ')) {
    case 'DAILY':
      if (monthDays || months || setpos) return undefined;
      if (byday) return plainDays && n === 1 ? `every ${dayList(byday)} ${at}` : undefined;
      return `every ${n === 1 ? 'day' : `${n} days`} ${at}`;
    case 'WEEKLY':
      if (monthDays || months || setpos || !byday || !plainDays) return undefined;
      return n === 1 ? `every ${dayList(byday)} ${at}` : `every ${n} weeks on ${dayList(byday)} ${at}`;
    case 'MONTHLY': {
      if (months) return undefined;
      const every = n === 1 ? 'of every month' : `of every ${n} months`;
      if (byday && !monthDays && !setpos) {
        const ords = byday.map((d) => /^([+-]?\d)(MO|TU|WE|TH|FR|SA|SU)$/.exec(d));
        if (ords.some((o) => !o || !ORDINAL_WORDS[String(Number(o[1]))])) return undefined;
        return `on the ${list(ords.map((o) => `${ORDINAL_WORDS[String(Number(o![1]))]} ${DAY_NAMES[o![2] as Weekday]}`))} ${every} ${at}`;
      }
      if (monthDays && !byday) {
        if (setpos === '-1' && monthDays.join(',') === '28,29,30') return undefined;
        if (setpos) return undefined;
        if (monthDays.length === 1 && monthDays[0] === -1) return `on the last day ${every} ${at}`;
        if (monthDays.some((d) => d < 1)) return undefined;
        return `on the ${list(monthDays.map(englishOrdinal))} ${every} ${at}`;
      }
      return undefined;
    }
    case 'YEARLY':
      if (byday || setpos || n !== 1 || !months || !monthDays || monthDays.length !== 1 || monthDays[0]! < 1)
        return undefined;
      if (months.length === 1) return `every year on ${monthDays[0]} ${MONTH_NAMES[months[0]! - 1]} ${at}`;
      if (months.join(',') === '1,4,7,10')
        return `every quarter on the ${englishOrdinal(monthDays[0]!)} ${at}`;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * "every 15 minutes from 09:00 to 17:45 on weekdays": a daily rule whose times are evenly spaced by a step
 * that divides the hour (or the day), as the reader builds it from "every 15 minutes during business hours".
 */
function steppedWords(
  p: Map<string, string>,
  hours: number[],
  minutes: number[],
  second: number,
  byday: string[] | undefined,
  monthDays: number[] | undefined,
  months: number[] | undefined,
  setpos: string | undefined,
): string | undefined {
  if (p.get('FREQ') !== 'DAILY' || p.has('INTERVAL') || monthDays || months || setpos || second !== 0)
    return undefined;
  const slots = timesOfDay(hours, minutes).sort((a, b) => a - b);
  if (slots.length < 3 || hours.length * minutes.length <= 2) return undefined;
  const step = slots[1]! - slots[0]!;
  if (slots.some((s, i) => i > 0 && s - slots[i - 1]! !== step)) return undefined;
  if (!(step < 60 ? 60 % step === 0 : step % 60 === 0 && 1440 % step === 0)) return undefined;
  if (byday && !byday.every((d) => /^(MO|TU|WE|TH|FR|SA|SU)$/.test(d))) return undefined;
  const hm = (m: number) => `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
  const every = step % 60 === 0 ? (step === 60 ? 'hour' : `${step / 60} hours`) : `${step} minutes`;
  const days = byday ? ` on ${dayListWords(byday)}` : '';
  const end = slots[slots.length - 1]! + step;
  // the whole day, each step at a minute past the hour: "every 2 hours at :30"
  if (step % 60 === 0 && slots[0]! < step && slots.length * step === 1440)
    return `every ${every} ${slots[0]! % 60 === 0 ? 'on the hour' : `at :${pad(slots[0]! % 60)}`}${days}`;
  if (end > 1440) return undefined;
  return `every ${every} from ${hm(slots[0]!)} to ${hm(end)}${days}`;
}

/**
 * Days in words: Monday to Friday as "weekday" ("every weekday") or "weekdays" ("on weekdays"), Saturday and
 * Sunday as "weekend(s)", any other set by name.
 */
function dayListWords(days: string[], number: 'one' | 'all' = 'all'): string {
  const key = [...days].sort().join(',');
  const s = number === 'all' ? 's' : '';
  if (key === 'FR,MO,TH,TU,WE') return `weekday${s}`;
  if (key === 'SA,SU') return `weekend${s}`;
  return list(days.map((d) => DAY_NAMES[d as Weekday]));
}

/** The common cron shapes in words: minute and hour fixed, every day / some weekdays / one day of the month. */
function cronWords(expression: string): string | undefined {
  const f = expression.trim().split(/\s+/);
  if (f.length !== 5) return undefined;
  const [min, hour, dom, mon, dow] = f as [string, string, string, string, string];
  if (!/^\d+(,\d+)*$/.test(min) || !/^\d+(,\d+)*$/.test(hour) || mon !== '*') return undefined;
  const hours = hoursOf(hour);
  const minutes = minutesOf(min);
  if (!hours || !minutes) return undefined;
  const at = timesWords(hours, minutes, 0);
  if (!at) return undefined;
  if (dom === '*' && dow === '*') return `every day ${at}`;
  if (dom === '*') {
    const days = cronDays(dow);
    if (!days) return undefined;
    return `every ${dayListWords(days, 'one')} ${at}`;
  }
  if (dow === '*' && /^\d+$/.test(dom) && Number(dom) >= 1 && Number(dom) <= 28)
    return `on the ${englishOrdinal(Number(dom))} of every month ${at}`;
  return undefined;
}

const CRON_DAYS: Weekday[] = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
function cronDays(dow: string): Weekday[] | undefined {
  const out = new Set<number>();
  for (const part of dow.split(',')) {
    const r = /^(\d)(?:-(\d))?$/.exec(part);
    if (!r) return undefined;
    const a = Number(r[1]);
    const b = r[2] === undefined ? a : Number(r[2]);
    if (a > 7 || b > 7 || b < a) return undefined;
    for (let d = a; d <= b; d++) out.add(d === 7 ? 0 : d);
  }
  const order = [1, 2, 3, 4, 5, 6, 0];
  return order.filter((d) => out.has(d)).map((d) => CRON_DAYS[d]!);
}

/**
 * "; 03:30 on spring-forward days runs at 04:30": the times of a daily-shaped rule that a DST change of its
 * zone in the next year skips or repeats, and what the policy does with them.
 */
function dstNote(t: Timing, dst: CalendarOptions['dst']): string | undefined {
  if (t.kind !== 'RECURRENCE' && t.kind !== 'CRON') return undefined;
  const [cronMinutes, cronHours] = t.kind === 'CRON' ? t.expression.trim().split(/\s+/) : [];
  const parts = t.kind === 'RECURRENCE' ? ruleParts(t.rule) : undefined;
  // each time once: at most 24 × 60 of them, looked at once per DST change of the year (at most 8)
  const hours = hoursOf(t.kind === 'RECURRENCE' ? parts?.get('BYHOUR') : cronHours);
  const minutes = minutesOf(t.kind === 'RECURRENCE' ? parts?.get('BYMINUTE') : cronMinutes);
  const times = hours && minutes ? timesOfDay(hours, minutes) : [];
  if (times.length === 0) return undefined;
  let zone: Zone;
  try {
    zone = zoneFor(checkZone('timezone', t.timezone));
  } catch {
    return undefined;
  }
  // the changes of one year from a fixed reference, so that the words of a rule do not depend on the clock
  const notes: string[] = [];
  let from = Date.UTC(2026, 0, 1);
  const end = from + 366 * DAY;
  for (let guard = 0; guard < 8; guard++) {
    const change = zone.changeAfter(from);
    if (!change || change.at > end) break;
    from = change.at + 1;
    const wallStart = Math.round(((change.at + Math.min(change.before, change.after)) % DAY) / MINUTE);
    const wallEnd = wallStart + Math.round(Math.abs(change.after - change.before) / MINUTE);
    for (const tm of times) {
      const inside = (tm >= wallStart && tm < wallEnd) || (tm + 1440 >= wallStart && tm + 1440 < wallEnd);
      if (!inside) continue;
      const hm = `${pad(Math.floor(tm / 60))}:${pad(tm % 60)}`;
      if (change.after > change.before) {
        const gap = dst?.gap ?? 'SHIFT_FORWARD';
        const moved = tm + Math.round((change.after - change.before) / MINUTE);
        const to =
          gap === 'SKIP'
            ? 'is skipped'
            : gap === 'NEXT_VALID'
              ? `runs at ${pad(Math.floor(wallEnd / 60) % 24)}:${pad(wallEnd % 60)}`
              : `runs at ${pad(Math.floor(moved / 60) % 24)}:${pad(moved % 60)}`;
        notes.push(`${hm} on spring-forward days ${to}`);
      } else {
        const fold = dst?.fold ?? 'FIRST';
        notes.push(
          `${hm} on fall-back days runs ${fold === 'BOTH' ? 'twice' : fold === 'LAST' ? 'once, at the second' : 'once, at the first'}`,
        );
      }
    }
  }
  return notes.length > 0 ? [...new Set(notes)].join('; ') : undefined;
}
