// Dates: ISO, "5 September [2026]", "05.09.2026", today, tomorrow, (next) Friday; and a start or an end.
import type { Weekday } from '../timing.js';
import type { DateFeature, Features } from './features.js';
import type { Cursor } from './lexing.js';
import { Unreadable } from './refusals.js';

export function yearAt(c: Cursor, j: number): { year: number; next: number } | undefined {
  const t = c.tok(j);
  if (t?.k === 'num' && t.v >= 1970 && t.v <= 9999) {
    let k = j + 1;
    if (/^(года?|г)$/.test(c.raw(k))) k++;
    return { year: t.v, next: k };
  }
  return undefined;
}

/** A date: ISO, "5 September [2026]", "September 5th", "5/9", "05.09.2026", today, tomorrow, (next) Friday. */
export function date(c: Cursor, i: number): { value: DateFeature; next: number } | undefined {
  const t = c.tok(i);
  if (!t) return undefined;
  if (t.k === 'iso' && !t.offset && !t.time) {
    return { value: { kind: 'ymd', y: t.date[0], mo: t.date[1], d: t.date[2] }, next: i + 1 };
  }
  if (t.k === 'numdate') {
    if (t.sep === '.' || t.a > 12 || t.b > 12 || t.a === t.b) {
      // dd.mm.yyyy is day first; a/b with one side over 12 reads one way only
      const [d, mo] = t.sep === '.' || t.a > 12 || t.a === t.b ? [t.a, t.b] : [t.b, t.a];
      return { value: { kind: 'ymd', ...(t.year ? { y: t.year } : {}), mo, d }, next: i + 1 };
    }
    return { value: { kind: 'numdate', a: t.a, b: t.b, ...(t.year ? { y: t.year } : {}) }, next: i + 1 };
  }
  if ((t.k === 'num' || t.k === 'ordnum' || (t.k === 'ord' && t.v >= 1)) && !('article' in t && t.article)) {
    // "5 September", "the 5th of September", "the first of January", "пятого декабря"
    let j = i + 1;
    if (c.kw(j, 'of')) j++;
    if (c.is(j, 'month')) {
      const mo = (c.tok(j) as { v: number }).v;
      const y = yearAt(c, j + 1) ?? (c.is(j + 1, 'punct', ',') ? yearAt(c, j + 2) : undefined);
      return { value: { kind: 'ymd', ...(y ? { y: y.year } : {}), mo, d: t.v }, next: y ? y.next : j + 1 };
    }
  }
  if (t.k === 'month') {
    const dt = c.tok(i + 1);
    if (dt && (dt.k === 'num' || dt.k === 'ordnum') && !('article' in dt && dt.article) && dt.v <= 31) {
      let j = i + 2;
      if (c.is(j, 'punct', ',') && yearAt(c, j + 1)) j++;
      const y = yearAt(c, j);
      return {
        value: { kind: 'ymd', ...(y ? { y: y.year } : {}), mo: t.v, d: dt.v },
        next: y ? y.next : i + 2,
      };
    }
  }
  if (t.k === 'kw') {
    if (t.v === 'today') return { value: { kind: 'relative', days: 0, word: c.words[i]!.raw }, next: i + 1 };
    if (t.v === 'tomorrow')
      return { value: { kind: 'relative', days: 1, word: c.words[i]!.raw }, next: i + 1 };
    if (t.v === 'day-after-tomorrow')
      return { value: { kind: 'relative', days: 2, word: c.words[i]!.raw }, next: i + 1 };
    if ((t.v === 'next' || t.v === 'this') && c.is(i + 1, 'weekday')) {
      const wd = (c.tok(i + 1) as { v: Weekday }).v;
      return { value: { kind: 'weekday', wd, allowToday: t.v === 'this' }, next: i + 2 };
    }
    if (
      (t.v === 'on' || t.v === 'at') &&
      (c.kw(i + 1, 'next', 'this') || c.is(i + 1, 'month') || c.is(i + 1, 'iso'))
    ) {
      const inner = date(c, i + 1);
      if (inner) return inner;
    }
  }
  return undefined;
}

export function dateOrInstant(
  c: Cursor,
  i: number,
): { value: DateFeature | { kind: 'instant'; iso: string }; next: number } | undefined {
  let j = i;
  if (c.kw(j, 'on')) j++;
  const t = c.tok(j);
  if (t?.k === 'iso' && (t.offset || t.time)) {
    if (t.offset) return { value: { kind: 'instant', iso: t.text }, next: j + 1 };
    return { value: { kind: 'ymd', y: t.date[0], mo: t.date[1], d: t.date[2] }, next: j + 1 };
  }
  const d = date(c, j);
  return d ? { value: d.value, next: d.next } : undefined;
}

export function setDate(f: Features, value: DateFeature): void {
  if (f.date !== undefined) throw new Unreadable('two dates given for one schedule');
  f.date = value;
}
