// Amounts of time ("an hour and 30 minutes", "полтора часа"), in seconds or as an ISO 8601 duration.
import type { Amounts } from './features.js';
import type { Unit } from './lexicon.js';
import type { Cursor } from './lexing.js';
import { Unreadable } from './refusals.js';

/** "10 minutes", "an hour and 30 minutes", "2 hours 30 minutes", "half an hour", "полтора часа", "час". */
export function duration(
  c: Cursor,
  i: number,
  bareUnit: boolean,
  preset?: number,
  separate = false,
): { amounts: Amounts; next: number } | undefined {
  const amounts: Amounts = {};
  let j = i;
  let any = false;
  for (;;) {
    const t = c.tok(j);
    let n: number | undefined = any ? undefined : preset;
    let k = j;
    if (t?.k === 'half-hour') {
      amounts.minute = (amounts.minute ?? 0) + 30;
      j++;
      any = true;
    } else {
      if (t?.k === 'num' || t?.k === 'decimal') {
        n = t.v;
        k++;
      } else if (t?.k === 'and-a-half') {
        n = 1.5;
        k++;
      }
      // "one and a half hours", "two and a half days"
      if (
        n !== undefined &&
        Number.isInteger(n) &&
        c.kw(k, 'and') &&
        c.is(k + 1, 'num') &&
        (c.tok(k + 1) as { article?: boolean }).article &&
        c.kw(k + 2, 'half') &&
        c.is(k + 3, 'unit')
      ) {
        n += 0.5;
        k += 3;
      }
      const u = unitAt(c, k);
      if (u === undefined || (n === undefined && !bareUnit && !(any && c.kw(j - 1, 'before-prefix')))) break;
      amounts[u] = (amounts[u] ?? 0) + (n ?? 1);
      j = k + 1;
      any = true;
      // "an hour and a half"
      if (
        c.kw(j, 'and') &&
        c.is(j + 1, 'num') &&
        (c.tok(j + 1) as { article?: boolean }).article &&
        c.raw(j + 2) === 'half'
      ) {
        amounts[u] = amounts[u]! + 0.5;
        j += 3;
      }
    }
    // continue: "and 30 minutes", ", 30 minutes", "30 minutes"; in a list of reminders `and` separates them
    let k2 = j;
    if (c.kw(k2, 'and') || c.is(k2, 'punct', ',')) {
      if (separate) break;
      k2++;
    }
    const t2 = c.tok(k2);
    if ((t2?.k === 'num' || t2?.k === 'decimal') && unitAt(c, k2 + 1) !== undefined) {
      j = k2;
      continue;
    }
    if (t2?.k === 'half-hour') {
      j = k2;
      continue;
    }
    break;
  }
  return any ? { amounts, next: j } : undefined;
}

function unitAt(c: Cursor, k: number): Unit | undefined {
  const t = c.tok(k);
  if (t?.k === 'unit') return t.v;
  if (t?.k === 'ord' && t.unit) return t.unit;
  if (t?.k === 'part' && c.raw(k) === 'дня') return 'day';
  return undefined;
}

const UNIT_SECONDS: Partial<Record<Unit, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
};
export function fixedSeconds(a: Amounts): number {
  let s = 0;
  for (const [u, n] of Object.entries(a) as Array<[Unit, number | undefined]>) {
    if (n === undefined) continue;
    const per = UNIT_SECONDS[u];
    if (per === undefined) throw new Unreadable(`a ${u} has no fixed length: say it in days or weeks`);
    s += n * per;
  }
  return s;
}

/** ISO 8601 for amounts: calendar parts stay calendar parts, fixed ones go to D/H/M/S. */
export function isoDuration(a: Amounts): string {
  const years = a.year ?? 0;
  const months = (a.month ?? 0) + 3 * (a.quarter ?? 0);
  let secs = Math.round(
    fixedSeconds({ ...a, year: undefined, month: undefined, quarter: undefined } as Amounts),
  );
  for (const k of ['year', 'month', 'quarter'] as const)
    if (a[k] !== undefined && !Number.isInteger(a[k])) {
      throw new Unreadable(`a fraction of a ${k} has no fixed length`);
    }
  const days = Math.floor(secs / 86400);
  secs -= days * 86400;
  const h = Math.floor(secs / 3600);
  secs -= h * 3600;
  const m = Math.floor(secs / 60);
  secs -= m * 60;
  let out = 'P';
  if (years) out += `${years}Y`;
  if (months) out += `${months}M`;
  if (days) out += `${days}D`;
  if (h || m || secs) out += `T${h ? `${h}H` : ''}${m ? `${m}M` : ''}${secs ? `${secs}S` : ''}`;
  return out === 'P' ? 'PT0S' : out;
}
