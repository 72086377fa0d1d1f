/**
 * Cron expressions, evaluated in floating wall-clock time (DST is applied afterwards by the
 * calendar's explicit policy, the same as for RRULEs).
 *
 * Syntax: 5 fields `minute hour day-of-month month day-of-week`, or 6 with seconds first.
 * Lists `a,b`, ranges `a-b`, steps `*∕n`, `a-b/n`, `a/n`, names `JAN`…`DEC`, `SUN`…`SAT`,
 * day-of-week 0-7 (0 and 7 = Sunday), `?` as `*` in the day fields, `L` (last day of month),
 * `L-n` (n days before it), `nW` (weekday nearest to day n, within the month), `LW` (last weekday),
 * `nL` / `FRIL` (last Friday = 5L), `n#k` (k-th weekday n of the month), and the macros
 * `@yearly @annually @monthly @weekly @daily @midnight @hourly`.
 * Day-of-month and day-of-week: when both are restricted (neither starts with `*` or is `?`),
 * a day matches if EITHER matches (Vixie cron); otherwise both must match.
 */
import { fail, type ListParse, repeatReason } from './errors.js';
import { clip, DAY, daysInMonth, HOUR, MINUTE, partsOf, SECOND, startOfDay, wallFrom } from './floating.js';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DOWS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface DomSpec {
  days: boolean[]; // index 1..31
  last: number[]; // L-n offsets (0 = L)
  nearestWeekday: number[]; // nW
  lastWeekday: boolean; // LW
}
interface DowSpec {
  days: boolean[]; // 0..6, Sunday = 0
  lastOf: number[]; // nL
  nth: Array<[number, number]>; // n#k → [weekday, k]
}

export interface CronSpec {
  seconds: number[];
  minutes: number[];
  hours: number[];
  months: boolean[]; // 1..12
  dom: DomSpec;
  dow: DowSpec;
  domStar: boolean;
  dowStar: boolean;
}

function num(
  field: string,
  what: string,
  text: string,
  names: string[] | undefined,
  min: number,
  max: number,
): number {
  let v: number;
  const upper = text.toUpperCase();
  if (names?.includes(upper)) v = names.indexOf(upper) + (names === MONTHS ? 1 : 0);
  else if (/^\d{1,2}$/.test(text)) v = Number(text);
  else fail(field, `${what}: "${clip(text, 20)}" is not a number${names ? ' or name' : ''}`, 'INVALID_CRON');
  if (v < min || v > max) fail(field, `${what}: ${text} is out of range ${min}-${max}`, 'INVALID_CRON');
  return v;
}

/** An item of a list as a value: `5` and `05`, a name and its number (`MON`, `1`) are the same item. */
function canonicalItem(item: string, names: string[] | undefined): string {
  return item.toUpperCase().replace(/[A-Z]{3}|\d+/g, (t) => {
    if (/^\d+$/.test(t)) return String(Number(t));
    const i = names?.indexOf(t) ?? -1;
    return i < 0 ? t : String(i + (names === MONTHS ? 1 : 0));
  });
}

function parseList(
  field: string,
  what: string,
  text: string,
  min: number,
  max: number,
  names: string[] | undefined,
  lists: ListParse,
  special?: (item: string) => boolean,
): boolean[] {
  const set: boolean[] = new Array(max + 1).fill(false);
  if (text === '') fail(field, `${what} is empty`, 'INVALID_CRON');
  const seen = new Set<string>();
  for (const item of text.split(',')) {
    // an item given again adds nothing (ranges that overlap are a union, as in Vixie cron)
    const key = canonicalItem(item, names);
    if (seen.has(key)) {
      if (lists.refuseRepeats) fail(field, repeatReason(what, clip(item, 20)), 'INVALID_CRON');
      continue;
    }
    seen.add(key);
    if (special?.(item)) continue;
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined) fail(field, `${what}: "${clip(item, 20)}" has two steps`, 'INVALID_CRON');
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      if (range === '?' && what !== 'day-of-month' && what !== 'day-of-week') {
        fail(field, `${what}: "?" is only allowed in the day fields`, 'INVALID_CRON');
      }
      lo = min;
      hi = max;
    } else if (range?.includes('-')) {
      const [a, b, c] = range.split('-');
      if (c !== undefined || a === undefined || b === undefined)
        fail(field, `${what}: bad range "${clip(item, 20)}"`, 'INVALID_CRON');
      lo = num(field, what, a, names, min, max);
      hi = num(field, what, b, names, min, max);
      if (lo > hi) fail(field, `${what}: range ${range} starts after it ends`, 'INVALID_CRON');
    } else {
      lo = num(field, what, range ?? '', names, min, max);
      hi = stepText === undefined ? lo : max;
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,3}$/.test(stepText) || Number(stepText) < 1) {
        fail(field, `${what}: step "${clip(stepText, 20)}" must be a positive integer`, 'INVALID_CRON');
      }
      step = Number(stepText);
      if (step > max - min + 1 && step > max)
        fail(field, `${what}: step ${step} is larger than the range`, 'INVALID_CRON');
    }
    for (let v = lo; v <= hi; v += step) set[v] = true;
  }
  return set;
}

const toList = (set: boolean[]): number[] => set.flatMap((b, i) => (b ? [i] : []));

/** Parses a cron expression; an item a field's list repeats as `lists` says. */
export function parseCron(field: string, expression: string, lists: ListParse = {}): CronSpec {
  let text = expression.trim();
  if (text.startsWith('@')) {
    const m = MACROS[text.toLowerCase()];
    if (!m)
      fail(field, `unknown macro "${clip(text, 20)}" (${Object.keys(MACROS).join(' ')})`, 'INVALID_CRON');
    text = m;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    fail(
      field,
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), got ${parts.length}`,
      'INVALID_CRON',
    );
  }
  const [sec, min, hour, dom, mon, dow] = parts.length === 6 ? parts : ['0', ...parts];
  const seconds = toList(parseList(field, 'seconds', sec!, 0, 59, undefined, lists));
  const minutes = toList(parseList(field, 'minute', min!, 0, 59, undefined, lists));
  const hours = toList(parseList(field, 'hour', hour!, 0, 23, undefined, lists));
  const months = parseList(field, 'month', mon!, 1, 12, MONTHS, lists);

  const domSpec: DomSpec = { days: [], last: [], nearestWeekday: [], lastWeekday: false };
  domSpec.days = parseList(field, 'day-of-month', dom!, 1, 31, undefined, lists, (item) => {
    const u = item.toUpperCase();
    if (u === 'L') return domSpec.last.push(0) > 0;
    if (u === 'LW') {
      domSpec.lastWeekday = true;
      return true;
    }
    const lm = /^L-(\d{1,2})$/.exec(u);
    if (lm) {
      const n = Number(lm[1]);
      if (n > 30) fail(field, `day-of-month: ${item} is out of range (L-0..L-30)`, 'INVALID_CRON');
      return domSpec.last.push(n) > 0;
    }
    const wm = /^(\d{1,2})W$/.exec(u);
    if (wm) {
      const n = Number(wm[1]);
      if (n < 1 || n > 31) fail(field, `day-of-month: ${item} is out of range (1W..31W)`, 'INVALID_CRON');
      return domSpec.nearestWeekday.push(n) > 0;
    }
    return false;
  });
  const dowSpec: DowSpec = { days: [], lastOf: [], nth: [] };
  const dowNum = (t: string) => num(field, 'day-of-week', t, DOWS, 0, 7) % 7;
  dowSpec.days = parseList(field, 'day-of-week', dow!, 0, 7, DOWS, lists, (item) => {
    const u = item.toUpperCase();
    const lm = /^([A-Z]{3}|\d)L$/.exec(u);
    if (lm) return dowSpec.lastOf.push(dowNum(lm[1]!)) > 0;
    const hm = /^([A-Z]{3}|\d)#(\d{1,2})$/.exec(u);
    if (hm) {
      const k = Number(hm[2]);
      if (k < 1 || k > 5)
        fail(field, `day-of-week: ${item}: the occurrence after # must be 1-5`, 'INVALID_CRON');
      return dowSpec.nth.push([dowNum(hm[1]!), k]) > 0;
    }
    if (u === 'L')
      fail(field, 'day-of-week: a bare "L" is ambiguous; use e.g. 5L (last Friday)', 'INVALID_CRON');
    return false;
  });
  if (dowSpec.days[7]) dowSpec.days[0] = true;
  dowSpec.days.length = 7;
  const star = (t: string) => t.startsWith('*') || t === '?';
  return {
    seconds,
    minutes,
    hours,
    months,
    dom: domSpec,
    dow: dowSpec,
    domStar: star(dom!),
    dowStar: star(dow!),
  };
}

export class CronMatcher {
  private monthKey = Number.NaN;
  private monthMask: boolean[] = [];

  constructor(private readonly spec: CronSpec) {}

  private domMatches(year: number, month: number, day: number, dim: number, weekday: number): boolean {
    const d = this.spec.dom;
    if (d.days[day]) return true;
    for (const n of d.last) if (day === dim - n) return true;
    if (d.lastWeekday) {
      let lw = dim;
      let wd = (weekday + (dim - day)) % 7;
      while (wd === 0 || wd === 6) {
        lw--;
        wd = (wd + 6) % 7;
      }
      if (day === lw) return true;
    }
    for (const n of d.nearestWeekday) {
      if (n > dim) continue;
      const wdN = (((weekday + (n - day)) % 7) + 7) % 7;
      let target = n;
      if (wdN === 6)
        target = n === 1 ? n + 2 : n - 1; // Saturday → Friday (or Monday if the 1st)
      else if (wdN === 0) target = n === dim ? n - 2 : n + 1; // Sunday → Monday (or Friday if last)
      if (day === target) return true;
    }
    void year;
    void month;
    return false;
  }

  private dowMatches(day: number, dim: number, weekday: number): boolean {
    const w = this.spec.dow;
    if (w.days[weekday]) return true;
    for (const n of w.lastOf) if (n === weekday && day + 7 > dim) return true;
    for (const [n, k] of w.nth) if (n === weekday && Math.ceil(day / 7) === k) return true;
    return false;
  }

  /** which days (1..dim) of a month match */
  private mask(year: number, month: number): boolean[] {
    const key = year * 12 + month;
    if (key === this.monthKey) return this.monthMask;
    const dim = daysInMonth(year, month);
    const firstWeekday = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    const out: boolean[] = new Array(dim + 1).fill(false);
    const s = this.spec;
    for (let day = 1; day <= dim; day++) {
      const wd = (firstWeekday + day - 1) % 7;
      const dm = this.domMatches(year, month, day, dim, wd);
      const wm = this.dowMatches(day, dim, wd);
      out[day] = s.domStar && s.dowStar ? true : s.domStar ? wm : s.dowStar ? dm : dm || wm;
    }
    this.monthKey = key;
    this.monthMask = out;
    return out;
  }

  /** first time-of-day offset ≥ tod, or undefined */
  private timeAtOrAfter(tod: number): number | undefined {
    const s = this.spec;
    const h0 = Math.floor(tod / HOUR);
    const m0 = Math.floor((tod % HOUR) / MINUTE);
    const s0 = Math.ceil((tod % MINUTE) / SECOND);
    for (const h of s.hours) {
      if (h < h0) continue;
      for (const m of s.minutes) {
        if (h === h0 && m < m0) continue;
        for (const sec of s.seconds) {
          if (h === h0 && m === m0 && sec < s0) continue;
          return h * HOUR + m * MINUTE + sec * SECOND;
        }
      }
    }
    return undefined;
  }

  /** first matching floating wall ≥ from, within one 400-year cycle; undefined if none */
  next(from: number): number | undefined {
    let day = startOfDay(from);
    let tod: number = from - day;
    const maxWall = wallFrom(9999, 12, 31, 23, 59, 59);
    for (let guard = 0; guard < 146_097 + 400; guard++) {
      if (day > maxWall) return undefined;
      const p = partsOf(day);
      if (!this.spec.months[p.month]) {
        day = p.month === 12 ? wallFrom(p.year + 1, 1, 1) : wallFrom(p.year, p.month + 1, 1);
        tod = 0;
        continue;
      }
      if (this.mask(p.year, p.month)[p.day]) {
        const t = this.timeAtOrAfter(tod);
        if (t !== undefined) return day + t;
      }
      day += DAY;
      tod = 0;
    }
    return undefined;
  }
}
