// Days of the week as sets: the order a rule names them in, the working week, and days taken out.
import type { Weekday } from '../timing.js';
import { Unreadable } from './refusals.js';

export const WEEKDAY_ORDER: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
export const WORK: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR'];
export const WEEKEND: Weekday[] = ['SA', 'SU'];

/** The days named (every day when none are) without the days excepted; undefined when nothing is said. */
export function withoutExcepted(named: Weekday[] | undefined, except: Weekday[]): Weekday[] | undefined {
  if (except.length === 0) return named?.length ? named : undefined;
  const left = (named?.length ? named : WEEKDAY_ORDER).filter((d) => !except.includes(d));
  if (left.length === 0) throw new Unreadable('every day named is excepted');
  return left;
}

/** The days from `from` to `to`, wrapping past Sunday ("Friday to Monday"). */
export function dayRange(from: Weekday, to: Weekday): Weekday[] {
  const days: Weekday[] = [];
  for (let d = WEEKDAY_ORDER.indexOf(from); ; d = (d + 1) % 7) {
    days.push(WEEKDAY_ORDER[d]!);
    if (d === WEEKDAY_ORDER.indexOf(to)) break;
  }
  return days;
}
