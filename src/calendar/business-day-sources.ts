/**
 * The business-day calendar as nominal streams for the engine: a BUSINESS_DAY timing's occurrences, and
 * another kind's occurrences rolled off closed days (`business_days.roll`).
 */

import { fromDay, humanDate, nextOpenDay, ROLL_LIMIT_DAYS, toDay } from './business-dates.js';
import type { BusinessCalendar, Period } from './business-days.js';
import type { Adjustment } from './dst.js';
import { fail } from './errors.js';
import { DAY, daysInMonth, partsOf, wallFrom } from './floating.js';
import type { Nominal, NominalSource } from './source.js';

/** What a BUSINESS_DAY timing asks for (the contract's `period`, `n`, `months`, `time`). */
export interface BusinessDayRule {
  period: 'MONTH' | 'QUARTER';
  n: number;
  /** MONTH only: these months (1–12); default every month */
  months?: readonly number[];
  /** time of day, ms after local midnight */
  timeOfDay: number;
}

/**
 * The nominal occurrences of a BUSINESS_DAY timing for the engine: the n-th business day of each period at
 * the time of day, as floating wall clock (the engine applies the zone and its DST policy, as for CRON). A
 * period without an n-th business day yields a `removed` item at its end, so the engine's search fuel
 * counts it (a calendar that never opens ends in SEARCH_LIMIT / NEVER_FIRES, not a loop). Periods start at
 * the one holding max(from, begin); `begin` is a floating wall (the creation or starts_at, in the zone).
 */
export function businessDaySource(
  calendar: BusinessCalendar,
  rule: BusinessDayRule,
  begin: number,
): NominalSource {
  const months = new Set(rule.months ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const step = rule.period === 'MONTH' ? 1 : 3;
  return {
    counting: 0,
    iterate(from: number): Iterator<Nominal> {
      const start = partsOf(Number.isFinite(from) ? Math.max(from, begin) : begin);
      let year = start.year;
      let month = rule.period === 'MONTH' ? start.month : 3 * Math.floor((start.month - 1) / 3) + 1;
      const advance = () => {
        month += step;
        if (month > 12) {
          month -= 12;
          year++;
        }
      };
      return {
        next: (): IteratorResult<Nominal> => {
          for (;;) {
            if (year > 9999) return { done: true, value: undefined };
            const y = year;
            const m = month;
            advance();
            if (rule.period === 'MONTH' && !months.has(m)) continue;
            const period: Period = rule.period === 'MONTH' ? { month: m } : { quarter: (m + 2) / 3 };
            const date = calendar.nthBusinessDay(y, period, rule.n);
            if (date === null) {
              const lastMonth = m + step - 1;
              return {
                done: false,
                value: { wall: wallFrom(y, lastMonth, daysInMonth(y, lastMonth)), removed: true },
              };
            }
            const wall = toDay('date', date) * DAY + rule.timeOfDay;
            if (wall < from) continue;
            return { done: false, value: { wall } };
          }
        },
      };
    },
  };
}

/**
 * `roll: FORWARD | BACKWARD` for a timing of another kind: each nominal occurrence on a closed local date
 * moves to the next (previous) business day at the same wall time, with a BUSINESS_DAY_ROLL note saying
 * from where and why. Moving reorders (a Saturday 17:00 rolled forward lands after Monday 09:00), so rolled
 * items wait in order until no later occurrence can land before them: FORWARD, until the source reaches
 * their day; BACKWARD, until it reaches a day whose own roll lands later. An occurrence rolled onto a wall
 * the timing already has is that occurrence (one slot, not two). Not for COUNT rules (the engine refuses
 * the combination): their cursor positions are walls of the rule, which a roll no longer keeps. An
 * occurrence before `begin` (the floating wall of the creation or starts_at) is not the schedule's: it is
 * dropped, never rolled into its life (Saturday's run of a schedule made on Sunday is not Monday's).
 */
export function rolledSource(
  inner: NominalSource,
  calendar: BusinessCalendar,
  policy: 'FORWARD' | 'BACKWARD',
  begin: number,
): NominalSource {
  const closed = (day: number) => calendar.closedOnDay(day);
  const step = policy === 'FORWARD' ? 1 : -1;
  const rollDay = (day: number): number =>
    nextOpenDay(day, step, (d) => !closed(d)) ??
    fail(
      'options.business_days',
      `no business day within ${ROLL_LIMIT_DAYS} days ${policy === 'FORWARD' ? 'after' : 'before'} ${fromDay(day)}`,
      'NEVER_FIRES',
    );
  return {
    counting: inner.counting,
    ...(inner.excludedInstants ? { excludedInstants: inner.excludedInstants } : {}),
    iterate(from: number, pos): Iterator<Nominal> {
      // FORWARD: an occurrence on the closed days just before `from` rolls to after it: start there.
      let start = from;
      if (policy === 'FORWARD' && Number.isFinite(from)) {
        let day = Math.floor(from / DAY);
        for (let i = 0; i < ROLL_LIMIT_DAYS && closed(day - 1); i++) day--;
        start = Math.min(from, Math.max(day * DAY, begin));
      }
      const it = inner.iterate(start, pos);
      const order = new RollOrder();
      let innerDone = false;
      return {
        next: (): IteratorResult<Nominal> => {
          while (!order.hasReady() && !innerDone) {
            const r = it.next();
            if (r.done) {
              innerDone = true;
              order.release(Number.POSITIVE_INFINITY);
              break;
            }
            const item = r.value;
            if (item.wall <= begin && !item.removed) continue;
            const day = Math.floor(item.wall / DAY);
            const closure = item.removed || !closed(day) ? null : calendar.closureOfDay(day);
            if (closure === null) {
              order.wait(item);
              order.release(day * DAY);
              continue;
            }
            const to = rollDay(day);
            const { instant: _instant, adjustment: _adjustment, ...rest } = item;
            const roll: Adjustment = {
              kind: 'BUSINESS_DAY_ROLL',
              note: `rolled from ${closure.note} to ${humanDate(fromDay(to))}`,
            };
            order.wait({ ...rest, wall: to * DAY + (item.wall - day * DAY), roll });
            order.release((policy === 'FORWARD' ? day : to) * DAY);
          }
          const item = order.takeReady();
          return item === undefined ? { done: true, value: undefined } : { done: false, value: item };
        },
      };
    },
  };
}

/**
 * Occurrences put back in wall order after rolls: each waits until released (no later occurrence can land
 * before it any more); one that lands on a wall already taken is that occurrence (the unrolled one kept).
 */
class RollOrder {
  /** by wall */
  private readonly waiting: Nominal[] = [];
  private readonly ready: Nominal[] = [];
  private lastWall = Number.NEGATIVE_INFINITY;

  wait(item: Nominal): void {
    const waiting = this.waiting;
    let i = waiting.length;
    while (i > 0 && waiting[i - 1]!.wall > item.wall) i--;
    const same = waiting[i - 1];
    if (same !== undefined && same.wall === item.wall && !item.removed && !same.removed) {
      if (same.roll !== undefined && item.roll === undefined) waiting[i - 1] = item;
      return;
    }
    waiting.splice(i, 0, item);
  }

  /** Releases the waiting occurrences with a wall before `below`. */
  release(below: number): void {
    while (this.waiting.length > 0 && this.waiting[0]!.wall < below) {
      const item = this.waiting.shift()!;
      if (!item.removed && item.wall === this.lastWall) continue;
      if (!item.removed) this.lastWall = item.wall;
      this.ready.push(item);
    }
  }

  hasReady(): boolean {
    return this.ready.length > 0;
  }

  takeReady(): Nominal | undefined {
    return this.ready.shift();
  }
}
