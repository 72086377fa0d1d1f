/** Allowed windows (e.g. Mon–Fri 09:00–18:00 in a zone): inside test and next opening. */
import { DEFAULT_DST, type DstPolicy, resolveWall } from './dst.js';
import { fail } from './errors.js';
import { DAY, isoWeekday, MINUTE, startOfDay } from './floating.js';
import type { CalendarWindow } from './timing.js';
import type { Zone } from './zone.js';

const DAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

export class Window {
  private readonly days: boolean[]; // index 1..7 (ISO)
  private readonly from: number; // ms after midnight
  private readonly to: number;
  readonly outside: 'DEFER' | 'SKIP';
  private readonly policy: DstPolicy;

  constructor(
    field: string,
    spec: CalendarWindow,
    readonly zone: Zone,
    dst: DstPolicy,
  ) {
    const hm = (f: string, text: string, allow24: boolean): number => {
      const [h, m] = text.split(':').map(Number) as [number, number];
      if (h > 24 || m > 59 || (h === 24 && (m !== 0 || !allow24)))
        fail(`${field}.${f}`, `"${text}" is not a time of day`, 'INVALID_WINDOW');
      return (h * 60 + m) * MINUTE;
    };
    this.from = hm('from', spec.from, false);
    this.to = hm('to', spec.to, true);
    if (this.from === this.to) fail(`${field}.to`, 'the window is empty (from equals to)', 'INVALID_WINDOW');
    this.days = new Array(8).fill(spec.days === undefined);
    for (const d of spec.days ?? []) this.days[DAY_CODES.indexOf(d) + 1] = true;
    this.outside = spec.outside ?? 'DEFER';
    // an opening that falls in a DST gap opens at the first valid instant, never skipped
    this.policy = { gap: dst.gap === 'SKIP' ? DEFAULT_DST.gap : dst.gap, fold: 'FIRST' };
  }

  contains(instant: number): boolean {
    const wall = instant + this.zone.offsetAt(instant);
    const day = startOfDay(wall);
    const tod = wall - day;
    if (this.from < this.to) return this.days[isoWeekday(day)]! && tod >= this.from && tod < this.to;
    // overnight window: opens on a listed day at `from`, closes next day at `to`
    return (
      (this.days[isoWeekday(day)]! && tod >= this.from) ||
      (this.days[isoWeekday(day - DAY)]! && tod < this.to)
    );
  }

  /** the first opening instant ≥ instant */
  nextOpening(instant: number): number {
    const wall = instant + this.zone.offsetAt(instant);
    const day0 = startOfDay(wall);
    for (let i = -1; i <= 8; i++) {
      const day = day0 + i * DAY;
      if (!this.days[isoWeekday(day)]) continue;
      const r = resolveWall(this.zone, day + this.from, this.policy).resolved[0];
      if (r !== undefined && r.instant >= instant) return r.instant;
    }
    /* c8 ignore next */
    throw new Error('window has no opening within a week');
  }
}
