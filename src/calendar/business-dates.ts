/**
 * The local dates of a business-day calendar (`YYYY-MM-DD`, as day numbers inside), how a note names them
 * (`Thu 1 Jan 2026`), and the bounded step over closed days that every roll takes.
 */
import { fail } from './errors.js';
import { DAY, dayNumber, daysInMonth, formatDate, isoWeekday, partsOf, wallFrom } from './floating.js';

/** A local date, `YYYY-MM-DD`, in the schedule's zone. */
export type LocalDate = string;

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** the longest run of closed days a roll looks through before saying the calendar has no business day */
export const ROLL_LIMIT_DAYS = 366;

/** `Thu 1 Jan 2026` */
export function humanDate(date: LocalDate): string {
  const day = toDay('date', date);
  const p = partsOf(day * DAY);
  return `${DAY_NAMES[isoWeekday(day * DAY) - 1]} ${p.day} ${MONTH_NAMES[p.month - 1]} ${p.year}`;
}

/** The day number of a local date; anything but a real `YYYY-MM-DD` (years from 1000) is refused under `field`. */
export function toDay(field: string, text: string): number {
  const m = DATE_RE.exec(text);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo))
      return dayNumber(wallFrom(y, mo, d));
  }
  return fail(field, `"${text}" is not a date (YYYY-MM-DD)`, 'INVALID_DATETIME');
}

export const fromDay = (day: number): LocalDate => formatDate(day * DAY);

/** The first open day after `day` (step 1) or before it (step -1), within ROLL_LIMIT_DAYS; null when none is. */
export function nextOpenDay(day: number, step: 1 | -1, isOpen: (day: number) => boolean): number | null {
  for (let i = 1; i <= ROLL_LIMIT_DAYS; i++) if (isOpen(day + i * step)) return day + i * step;
  return null;
}
