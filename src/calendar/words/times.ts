// Times of day: "at 9:00 and 18:00", "quarter past 10", "в половине десятого", a bare hour, ":15".
import { pad } from './clock.js';
import type { Features, Time, TimeChoice } from './features.js';
import type { PartOfDay, Unit } from './lexicon.js';
import type { Cursor } from './lexing.js';
import { Unreadable } from './refusals.js';
import type { Word } from './tokens.js';

/** "the hour" after "past", or nothing: the minute-of-hour forms end there. */
function theHour(c: Cursor, k: number): number {
  if (c.is(k, 'filler') && c.raw(k) === 'the' && c.is(k + 1, 'unit', 'hour')) return k + 2;
  return k;
}

/**
 * A minute past every hour: ":15", "15 minutes past (the hour)", "quarter past", "half past" (no hour
 * after), and after "at" / "в" also "15 minutes" ("в 15 минут каждого часа"). Undefined when none is there.
 */
export function minuteOfHour(
  c: Cursor,
  i: number,
  afterAt: boolean,
): { m: number; next: number } | undefined {
  const t = c.tok(i);
  if (t?.k === 'minute-mark') {
    if (!/^:\d\d$/.test(c.words[i]!.raw) || t.m > 59)
      throw new Unreadable(`"${c.words[i]!.raw}" is not a minute past the hour (":00" to ":59")`, [
        c.words[i]!,
      ]);
    return { m: t.m, next: theHour(c, i + 1) };
  }
  const past = pastForm(c, i);
  if (past?.kind === 'minute') return { m: past.m, next: past.next };
  if (
    afterAt &&
    t?.k === 'num' &&
    !t.article &&
    c.is(i + 1, 'unit', 'minute') &&
    !c.kw(i + 2, 'past', 'to')
  ) {
    if (t.v > 59)
      throw new Unreadable(`${t.v} minutes past the hour is not a minute of an hour`, [c.words[i]!]);
    return { m: t.v, next: i + 2 };
  }
  return undefined;
}

export function setMinuteOfHour(f: Features, m: number, word: Word): void {
  if (f.minuteOfHour !== undefined && f.minuteOfHour !== m)
    throw new Unreadable('two minutes past the hour named', [word]);
  f.minuteOfHour = m;
}

/** The minutes before "past" / "to": "quarter", "a quarter", "half", "20", "twenty", "15 minutes". */
function minutesWord(c: Cursor, i: number): { m: number; next: number; named: boolean } | undefined {
  let j = i;
  const t = c.tok(j);
  if (t?.k === 'num' && t.article && c.is(j + 1, 'unit', 'quarter')) j++;
  const u = c.tok(j);
  if (u?.k === 'unit' && u.v === 'quarter' && !u.plural) return { m: 15, next: j + 1, named: true };
  if (j === i && u?.k === 'kw' && u.v === 'half') return { m: 30, next: j + 1, named: true };
  if (j === i && u?.k === 'num' && !u.article && u.v >= 1 && u.v <= 59) {
    if (c.is(j + 1, 'unit', 'minute')) return { m: u.v, next: j + 2, named: true };
    return { m: u.v, next: j + 1, named: false };
  }
  return undefined;
}

/**
 * "quarter past 10", "half past 9", "20 past 7", "quarter to 10", "15 minutes to 8" (a time of day), or
 * "quarter past", "15 minutes past the hour" (a minute of every hour). "N to H" needs "quarter" or
 * "minutes": "from 5 to 9" is a range of hours.
 */
function pastForm(
  c: Cursor,
  i: number,
):
  | { kind: 'time'; choice: TimeChoice; next: number }
  | { kind: 'minute'; m: number; next: number }
  | undefined {
  const mw = minutesWord(c, i);
  if (!mw) return undefined;
  const past = c.kw(mw.next, 'past');
  const to = c.kw(mw.next, 'to') && mw.named;
  if (!past && !to) return undefined;
  const k = mw.next + 1;
  const hour = c.is(k, 'hhmm') ? undefined : time(c, k, true);
  if (hour && hour.choice.times.length === 1 && hour.choice.times[0]!.m === 0) {
    const h0 = hour.choice.times[0]!.h;
    const h = past ? h0 : (h0 + 23) % 24;
    const m = past ? mw.m : 60 - mw.m;
    const choice: TimeChoice = { times: [{ h, m, s: 0 }] };
    if (hour.choice.question) choice.question = hour.choice.question.replace(/:00/g, `:${pad(m)}`);
    if (hour.choice.note) choice.note = hour.choice.note;
    return { kind: 'time', choice, next: hour.next };
  }
  if (!past) return undefined;
  return { kind: 'minute', m: mw.m, next: theHour(c, k) };
}

/** "at 9:00 and 18:00", "в 9 утра", "at 5" (asks), "noon"; `afterAt`: the word before was at / в. */
export function timeList(
  c: Cursor,
  i: number,
  afterAt: boolean,
): { choices: TimeChoice[]; next: number } | undefined {
  const first = time(c, i, afterAt);
  if (!first) return undefined;
  const choices = [first.choice];
  let j = first.next;
  while (c.kw(j, 'and') || c.is(j, 'punct', ',')) {
    let k = j + 1;
    if (c.kw(k, 'at')) k++;
    const more = time(c, k, true);
    if (!more) break;
    choices.push(more.choice);
    j = more.next;
  }
  return { choices, next: j };
}

export function applyPart(h: number, part: PartOfDay | 'am' | 'pm'): number | undefined {
  if (h < 0) return undefined;
  // "21:00 in the evening" is what it says; "18 at night", "15 am" say two things
  if (h > 12) return inPart(h, part) ? h : undefined;
  switch (part) {
    case 'am':
    case 'morning':
      return h === 12 ? 0 : h;
    case 'pm':
    case 'afternoon':
    case 'evening':
      return h === 12 ? 12 : h + 12;
    case 'night':
      return h === 12 ? 0 : h <= 4 ? h : h + 12;
  }
}

/** Whether an hour of the 24-hour clock is in a part of the day (generously: the words only must not clash). */
export function inPart(h: number, part: PartOfDay): boolean {
  switch (part) {
    case 'am':
      return h < 12;
    case 'pm':
      return h >= 12;
    case 'morning':
      return h >= 3 && h < 13;
    case 'afternoon':
      return h >= 12 && h < 19;
    case 'evening':
      return h >= 16 || h === 0;
    case 'night':
      return h >= 19 || h < 6;
  }
}

type TimeAt = { choice: TimeChoice; next: number };

/** A time of day at `i`; `afterAt`: the word before was at / в, so a bare number is an hour. */
function time(c: Cursor, i: number, afterAt: boolean): TimeAt | undefined {
  const t = c.tok(i);
  if (!t) return undefined;
  // "quarter past 10", "half past 9", "quarter to 8 pm"
  const past = pastForm(c, i);
  if (past) return past.kind === 'time' ? { choice: past.choice, next: past.next } : undefined;
  if (t.k === 'kw' && (t.v === 'half' || t.v === 'quarter-hour' || t.v === 'less'))
    return russianQuarterTime(c, i, t.v);
  if (t.k === 'kw' && (t.v === 'noon' || t.v === 'midnight')) {
    return { choice: { times: [{ h: t.v === 'noon' ? 12 : 0, m: 0, s: 0 }] }, next: i + 1 };
  }
  if (t.k === 'hhmm') {
    // 24:00 is the end of a day (a window's closing time), not a time to run at
    const endOfDay = t.h === 24 && t.m === 0 && t.s === 0 && c.kw(i - 1, 'to', 'until', 'and');
    if ((t.h > 23 && !endOfDay) || t.m > 59 || t.s > 59)
      throw new Unreadable(`${c.words[i]!.raw} is not a time of day`);
    let h = t.h;
    let j = i + 1;
    if (c.is(j, 'part')) {
      h = applyPart(h, (c.tok(j) as { v: PartOfDay }).v) ?? h;
      j++;
    }
    return { choice: { times: [{ h, m: t.m, s: t.s }] }, next: j };
  }
  if (t.k === 'num-part') {
    // "13pm", "0am": a 12-hour clock has hours 1 to 12
    if (t.v < 1 || t.v > 12)
      throw new Unreadable(`"${c.words[i]!.raw}" is not an hour of a 12-hour clock`, [c.words[i]!]);
    const h = applyPart(t.v, t.part);
    if (h === undefined) return undefined;
    return { choice: { times: [{ h, m: 0, s: 0 }] }, next: i + 1 };
  }
  if (t.k !== 'num' || t.article || t.v > 24) return undefined;
  return hourNumberTime(c, i, t.v, afterAt);
}

/** "в половине десятого" (09:30), "в четверть десятого" (09:15), "без четверти десять" (09:45). */
function russianQuarterTime(c: Cursor, i: number, v: 'half' | 'quarter-hour' | 'less'): TimeAt | undefined {
  const less = v === 'less';
  if (less && !c.kw(i + 1, 'quarter-hour')) return undefined;
  const k = less ? i + 2 : i + 1;
  const h = c.tok(k);
  const n = less ? (h?.k === 'num' && !h.article ? h.v : undefined) : h?.k === 'ord' ? h.v : undefined;
  if (n === undefined || n < 1 || n > 12) return undefined;
  const m = v === 'half' ? 30 : less ? 45 : 15;
  const base = bareHour(n - 1 === 0 ? 12 : n - 1);
  let j = k + 1;
  let hh = base.times[0]!.h;
  let question = base.question;
  if (c.is(j, 'part')) {
    const withPart = applyPart(hh, (c.tok(j) as { v: PartOfDay }).v);
    if (withPart === undefined) return undefined;
    hh = withPart;
    question = undefined;
    j++;
  }
  const choice: TimeChoice = { times: [{ h: hh, m, s: 0 }] };
  if (question) choice.question = question.replace(/:00/g, `:${pad(m)}`);
  else if (base.note && j === k + 1) choice.note = base.note.replace(/:00/, `:${pad(m)}`);
  return { choice, next: j };
}

/** An hour said as a number (`hour`, at `i`): "9", "9 o'clock", "в 14 часов", "в 9 часов 30 минут", "9 pm". */
function hourNumberTime(c: Cursor, i: number, hour: number, afterAt: boolean): TimeAt | undefined {
  // "15 minutes" is an amount, never an hour
  if (c.is(i + 1, 'unit', 'minute')) return undefined;
  let j = i + 1;
  let hourWord = false;
  // "12 noon", "12 midnight"
  if (hour === 12 && c.kw(j, 'noon', 'midnight'))
    return { choice: { times: [{ h: c.kw(j, 'noon') ? 12 : 0, m: 0, s: 0 }] }, next: j + 1 };
  if (c.kw(j, 'oclock')) j++;
  else if (c.is(j, 'unit') && (c.tok(j) as { v: Unit }).v === 'hour' && afterAt) {
    hourWord = true; // в 14 часов
    j++;
  }
  const minutes = minutesAfterHour(c, i, j, hour, afterAt, hourWord);
  if (minutes !== false) return minutes;
  if (c.is(j, 'part') && !(c.raw(j) === 'дня' && !afterAt && !hourWord && c.raw(j - 1) !== 'часа')) {
    const h = applyPart(hour, (c.tok(j) as { v: PartOfDay }).v);
    if (h === undefined) return undefined;
    return { choice: { times: [{ h, m: 0, s: 0 }] }, next: j + 1 };
  }
  if (!afterAt && j === i + 1) return undefined;
  return { choice: bareHour(hour % 24 === 0 && hour === 24 ? 0 : hour), next: j };
}

/**
 * "в 9 часов 30 минут", "at nine thirty": the minutes after the hour at `j`. False when none are there (the
 * hour is read alone); undefined when they are, and the hour is none.
 */
function minutesAfterHour(
  c: Cursor,
  i: number,
  j: number,
  hour: number,
  afterAt: boolean,
  hourWord: boolean,
): TimeAt | undefined | false {
  const mm = c.tok(j);
  const wordNumbers = /^\p{L}/u.test(c.words[i]!.raw) && /^\p{L}/u.test(c.words[j]?.raw ?? '');
  if (
    !(
      mm?.k === 'num' &&
      !mm.article &&
      mm.v <= 59 &&
      ((hourWord && c.is(j + 1, 'unit', 'minute')) ||
        (afterAt && j === i + 1 && wordNumbers && !c.is(j + 1, 'unit')))
    )
  )
    return false;
  if (hour > 23) return undefined;
  const next = hourWord ? j + 2 : j + 1;
  const base = bareHour(hour);
  if (c.is(next, 'part')) {
    const h = applyPart(hour, (c.tok(next) as { v: PartOfDay }).v) ?? hour;
    return { choice: { times: [{ h, m: mm.v, s: 0 }] }, next: next + 1 };
  }
  const choice: TimeChoice = { times: [{ h: hour, m: mm.v, s: 0 }] };
  if (base.question) choice.question = base.question.replace(/:00/g, `:${pad(mm.v)}`);
  if (base.note) choice.note = base.note.replace(/:00/, `:${pad(mm.v)}`);
  return { choice, next };
}

/** docs/words.md: 7–11 mornings, 12 noon (each with a note), 1–6 a question, 0 and 13–23 as said. */
function bareHour(h: number): TimeChoice {
  if (h >= 7 && h <= 11)
    return {
      times: [{ h, m: 0, s: 0 }],
      note: `"${h}" read as ${pad(h)}:00 (a bare hour from 7 to 11 is the morning; say ${h} pm or ${h + 12}:00 for the evening)`,
    };
  if (h === 12)
    return { times: [{ h, m: 0, s: 0 }], note: '"12" read as noon (say midnight or 00:00 for the night)' };
  if (h >= 1 && h <= 6)
    return {
      times: [{ h, m: 0, s: 0 }],
      question: `"${h}" is ${pad(h)}:00 or ${h + 12}:00: say am/pm, "in the morning", or ${pad(h)}:00 / ${h + 12}:00`,
    };
  return { times: [{ h, m: 0, s: 0 }] };
}

/** "9 to 17", "08:00 and 20:00", "9 до 17" after from / between / с. */
export function hoursRange(
  c: Cursor,
  i: number,
): { hours: { from: Time; to: Time }; next: number } | undefined {
  const a = time(c, i, true);
  if (!a || a.choice.times.length !== 1) return undefined;
  if (!c.kw(a.next, 'to', 'and', 'until')) return undefined;
  const b = time(c, a.next + 1, true);
  if (!b || b.choice.times.length !== 1) return undefined;
  const from = a.choice.times[0]!;
  let to = b.choice.times[0]!;
  // "from 9 to 5": an end before the start on the same afternoon
  if (b.choice.question && to.h < from.h) to = { ...to, h: to.h + 12 };
  return { hours: { from, to }, next: b.next };
}
