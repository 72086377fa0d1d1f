import Holidays from 'date-holidays';
import { DateTime } from 'luxon';

/**
 * Business days of a country (Mon–Fri, not a public holiday) from `from` to `to` (local dates, inclusive),
 * computed apart from src/calendar/business-days.ts: the data package's own isHoliday at local noon, per
 * day. What the engine's answers are checked against.
 */
export function businessDaysByIsHoliday(country: string, zone: string, from: string, to: string): string[] {
  const hd = new Holidays(country);
  const out: string[] = [];
  for (let d = DateTime.fromISO(from, { zone }); d.toISODate()! <= to; d = d.plus({ days: 1 })) {
    const hit = hd.isHoliday(d.set({ hour: 12 }).toJSDate());
    const holiday = hit !== false && hit.some((h) => h.type === 'public');
    if (!holiday && d.weekday <= 5) out.push(d.toISODate()!);
  }
  return out;
}

/** A local date and time in `zone` as the ISO instant with offset that slots carry. */
export const localInstant = (zone: string, date: string, time: string): string =>
  DateTime.fromISO(`${date}T${time}`, { zone }).toISO({ suppressMilliseconds: true })!;
