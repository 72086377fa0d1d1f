// The period the words repeat by ("every …", "per week", "twice a day"), and what follows an amount of
// time: "after each run finishes" (a fixed delay) or "after <instant>" (a delay from it).
import { duration, fixedSeconds } from './amounts.js';
import { date } from './dates.js';
import type { Amounts, Features } from './features.js';
import type { PartOfDay, Unit } from './lexicon.js';
import type { Cursor } from './lexing.js';
import { Unreadable } from './refusals.js';
import type { Word } from './tokens.js';

/** "(twice) a day", "(3 times) per week", "(два раза) в день": how often, the times say when. */
export function perPeriod(c: Cursor, j: number, f: Features): number | undefined {
  const every: Partial<Record<string, Unit>> = {
    daily: 'day',
    weekly: 'week',
    monthly: 'month',
    hourly: 'hour',
  };
  const t = c.tok(j);
  if (t?.k === 'kw' && every[t.v]) {
    period(f, { unit: every[t.v]!, n: 1 });
    return j + 1;
  }
  if (t?.k === 'num' && t.article && c.is(j + 1, 'unit')) {
    period(f, { unit: (c.tok(j + 1) as { v: Unit }).v, n: 1 });
    return j + 2;
  }
  if (t?.k === 'kw' && t.v === 'per' && c.is(j + 1, 'unit')) {
    period(f, { unit: (c.tok(j + 1) as { v: Unit }).v, n: 1 });
    return j + 2;
  }
  return undefined;
}

/** After `every`: "10 minutes", "other week", "2 weeks", "Monday", "weekday", "5 September", "month". */
export function scanEvery(c: Cursor, i: number, f: Features): number | undefined {
  let j = i;
  let n: number | undefined;
  if (c.is(j, 'part')) {
    // "every morning at 8", "каждый вечер в 6"
    period(f, { unit: 'day', n: 1 });
    f.dayPart = (c.tok(j) as { v: PartOfDay }).v;
    return j + 1;
  }
  if (
    c.is(j, 'ord') &&
    (c.kw(j + 2, 'of', 'monthly') ||
      (c.tok(j) as { v: number }).v === 1 ||
      (c.tok(j) as { v: number }).v === -1)
  ) {
    // "every first Monday of the month", "every last day of the month": the ordinal's own part reads it
    return j;
  }
  if (c.is(j, 'bday')) {
    // "every business day", "каждый рабочий день"
    f.weekdaysRepeat = true;
    return j;
  }
  if (
    ((c.is(j, 'ord') || c.is(j, 'ordnum')) &&
      (c.kw(j + 1, 'of', 'monthly', 'day-of-month') || c.is(j + 1, 'bday'))) ||
    (c.is(j, 'num') && c.kw(j + 1, 'day-of-month'))
  ) {
    // "every 15th of the month", "каждое первое число": the day of the month part reads it
    return j;
  }
  if (c.kw(j, 'other')) {
    n = 2;
    j++;
    if (c.is(j, 'weekdays', 'work'))
      throw new Unreadable(
        '"every other weekday" is not a set of days: say the days ("every other Monday and Wednesday")',
        [c.words[j]!],
      );
  } else if (
    c.is(j, 'ord') &&
    (c.tok(j) as { v: number }).v >= 2 &&
    (c.is(j + 1, 'weekday') || c.is(j + 1, 'unit'))
  ) {
    // "every second Tuesday", "every third week": one in n
    n = (c.tok(j) as { v: number }).v;
    j++;
  }
  // "every 5 September"
  const d = n === undefined ? date(c, j) : undefined;
  if (d && d.value.kind === 'ymd' && d.value.y === undefined) {
    f.yearlyDate = { mo: d.value.mo, d: d.value.d };
    period(f, { unit: 'year', n: 1 });
    return d.next;
  }
  if (c.is(j, 'weekday') || c.is(j, 'weekdays')) {
    if (n !== undefined) period(f, { unit: 'week', n });
    f.weekdaysRepeat = true;
    return j; // the days are read by the weekday part
  }
  if (c.kw(j, 'daily', 'monthly')) return j;
  const dur = duration(c, j, true, n);
  if (dur) {
    setEvery(f, dur.amounts);
    return dur.next;
  }
  return undefined;
}

export function setEvery(f: Features, amounts: Amounts): void {
  const units = Object.keys(amounts) as Unit[];
  if (units.length === 1) {
    const unit = units[0]!;
    const n = amounts[unit]!;
    if (Number.isInteger(n)) {
      period(f, { unit, n });
      return;
    }
  }
  // "every 1.5 hours", "every hour and a half": a fixed interval in seconds
  period(f, { unit: 'second', n: Math.round(fixedSeconds(amounts)) });
}

/**
 * The period the words repeat by. A second period is refused, never dropped ("every month on Friday
 * hourly"); the same period said again is one ("the 15th of every month" after "every 3 months").
 */
export function period(f: Features, e: { unit: Unit; n: number }): void {
  if (f.every === undefined) {
    f.every = e;
    return;
  }
  if (f.every.unit === e.unit && (f.every.n === e.n || e.n === 1)) return;
  const say = (p: { unit: Unit; n: number }) => (p.n === 1 ? `every ${p.unit}` : `every ${p.n} ${p.unit}s`);
  throw new Unreadable(`two periods named for one schedule: ${say(f.every)} and ${say(e)}`);
}

/** After a duration: "after 2026-09-05T10:00:00Z", "after each run finishes", "after the e-mail was sent". */
export function afterDuration(c: Cursor, j: number, f: Features, amounts: Amounts): number | undefined {
  if (c.kw(j, 'run-done')) {
    f.fixedDelay = true;
    period(f, { unit: 'second', n: fixedSeconds(amounts) });
    return j + 1;
  }
  if (!c.kw(j, 'after')) return undefined;
  if (c.kw(j + 1, 'run-done')) {
    f.fixedDelay = true;
    period(f, { unit: 'second', n: fixedSeconds(amounts) });
    return j + 2;
  }
  const iso = c.tok(j + 1);
  if (iso?.k === 'iso' && iso.offset) {
    f.delay = amounts;
    f.anchor = iso.text;
    return j + 2;
  }
  // a named event ("after the e-mail was sent", "после события"): its instant is not in the words, and
  // counting from now would be another schedule; the answer asks for the anchor
  let k = j + 1;
  const event: Word[] = [];
  while (k < c.words.length && !c.is(k, 'punct') && !c.is(k, 'zone')) {
    event.push(c.words[k]!);
    k++;
  }
  if (event.length === 0) return undefined;
  const what = event.map((w) => w.raw).join(' ');
  throw new Unreadable(
    `the delay counts from "${what}", whose instant is not in the words: name it ("48 hours after 2026-09-05T10:00:00Z"), or create a DELAY timing with its anchor`,
    event,
  );
}
