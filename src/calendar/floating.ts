/**
 * "Floating" wall-clock time: a local date-time with no zone, represented as the number of
 * milliseconds of that wall clock read as if it were UTC (`Date.UTC(y, m - 1, d, h, mi, s)`).
 * Arithmetic on floating values is plain calendar arithmetic, with no DST anywhere.
 * Pure: never reads the clock.
 */
import { fail } from './errors.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const MIN_YEAR = 1000;
export const MAX_YEAR = 9999;
/** The calendar's range: the years 1000 to 9999 (ISO 8601's four-digit years). */
export const FIRST_INSTANT = Date.UTC(MIN_YEAR, 0, 1);
export const LAST_INSTANT = Date.UTC(MAX_YEAR, 11, 31, 23, 59, 59, 999);

export interface WallParts {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

export function wallOf(p: WallParts): number {
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millisecond);
}

export function wallFrom(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second, 0);
}

export function partsOf(wall: number): WallParts {
  const d = new Date(wall);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}

/** ISO weekday of a floating value: 1 = Monday … 7 = Sunday. */
export function isoWeekday(wall: number): number {
  const dow = new Date(wall).getUTCDay(); // 0 = Sunday
  return dow === 0 ? 7 : dow;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function startOfDay(wall: number): number {
  return Math.floor(wall / DAY) * DAY;
}

/** Days since 1970-01-01 of a floating value. */
export function dayNumber(wall: number): number {
  return Math.floor(wall / DAY);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/** `YYYY-MM-DDTHH:mm:ss[.SSS]` of a floating value. */
export function formatWall(wall: number): string {
  const d = new Date(wall);
  const ms = d.getUTCMilliseconds();
  const base =
    `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
  return ms === 0 ? base : `${base}.${pad3(ms)}`;
}

export function formatDate(wall: number): string {
  return formatWall(wall).slice(0, 10);
}

export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(offsetMs / 1000));
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  return `${sign}${pad2(h)}:${pad2(m)}${s ? `:${pad2(s)}` : ''}`;
}

/** ISO 8601 of an instant shown at the given UTC offset (e.g. `2026-03-29T03:30:00+03:00`). */
export function formatInstantAt(instant: number, offsetMs: number): string {
  return `${formatWall(instant + offsetMs)}${formatOffset(offsetMs)}`;
}

/** ISO 8601 UTC with `Z`. */
export function formatUtc(instant: number): string {
  return `${formatWall(instant)}Z`;
}

const LOCAL_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export interface ParsedDateTime {
  /** floating wall-clock value */
  wall: number;
  /** UTC offset in ms if the text carried one (`Z` = 0) */
  offsetMs?: number;
  /** only a date was given */
  dateOnly: boolean;
}

/**
 * Strict ISO 8601 extended date-time: `YYYY-MM-DD[THH:mm[:ss[.fff]]][Z|±HH[:MM]]`.
 * Validates field ranges (no Feb 30, no hour 24).
 */
export function parseDateTime(field: string, text: string): ParsedDateTime {
  const m = LOCAL_RE.exec(text.trim());
  if (!m) {
    fail(
      field,
      `"${clip(text)}" is not an ISO 8601 date-time (YYYY-MM-DDTHH:mm[:ss][Z|±HH:MM])`,
      'INVALID_DATETIME',
    );
  }
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millisecond = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  checkRanges(field, text, year, month, day, hour, minute, second);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const result: ParsedDateTime = { wall, dateOnly: m[4] === undefined };
  const off = m[8];
  if (off !== undefined) {
    if (off.toUpperCase() === 'Z') result.offsetMs = 0;
    else {
      const sign = off[0] === '-' ? -1 : 1;
      const digits = off.slice(1).replace(':', '');
      const oh = Number(digits.slice(0, 2));
      const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
      if (oh > 18 || om > 59) fail(field, `"${clip(text)}" has an invalid UTC offset`, 'INVALID_DATETIME');
      result.offsetMs = sign * (oh * HOUR + om * MINUTE);
    }
  }
  return result;
}

/** An absolute instant: must carry `Z` or an offset. Returns epoch ms. */
export function parseInstant(field: string, text: string): number {
  const p = parseDateTime(field, text);
  if (p.offsetMs === undefined || p.dateOnly) {
    fail(
      field,
      `"${clip(text)}" must be an instant with Z or a UTC offset (e.g. 2026-09-05T11:00:00Z)`,
      'INVALID_DATETIME',
    );
  }
  return p.wall - p.offsetMs;
}

export function checkRanges(
  field: string,
  text: string,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): void {
  if (year < MIN_YEAR || year > MAX_YEAR) {
    fail(field, `year ${year} in "${clip(text)}" is outside ${MIN_YEAR}-${MAX_YEAR}`, 'INVALID_DATETIME');
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    fail(field, `"${clip(text)}" is not a valid calendar date`, 'INVALID_DATETIME');
  }
  if (hour > 23 || minute > 59 || second > 59) {
    fail(field, `"${clip(text)}" is not a valid time of day`, 'INVALID_DATETIME');
  }
}

export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
