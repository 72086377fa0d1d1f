// A clock a test drives, for the windows the API counts on its own clock (ApiDependencies.now: the
// readiness cache, the per-tenant rate limit, the failed-authentication throttle). It follows this machine's
// clock until held; held, it stands still however long the test's requests take, and moves only when told;
// released, it goes on from where it stood, so it never runs backwards.
import { DateTime } from 'luxon';

export class TestClock {
  private heldAt: number | null = null;
  private offsetMs = 0;

  readonly now = (): number => this.heldAt ?? Date.now() + this.offsetMs;

  hold(): void {
    this.heldAt ??= this.now();
  }

  advance(ms: number): void {
    if (this.heldAt === null) this.offsetMs += ms;
    else this.heldAt += ms;
  }

  release(): void {
    if (this.heldAt === null) return;
    this.offsetMs = this.heldAt - Date.now();
    this.heldAt = null;
  }
}

// A recurring schedule a test creates on the real clock and must not see fire (or armed, a lead before its
// slot) gets its first slot far from now whatever the hour, day or season: a fixed "09:00" or "1 January"
// comes due, sooner or later, while some run of the suite is under way.

/** The hour in `zone` half a day from now: a daily slot at it is ten to thirteen hours away (DST included). */
export function hourHalfADayAway(zone: string): number {
  return (DateTime.now().setZone(zone).hour + 12) % 24;
}

/** The month half a year from now in `zone`: a yearly slot on its first day is five to six months away. */
export function monthHalfAYearAway(zone: string): number {
  return DateTime.now().setZone(zone).plus({ months: 6 }).month;
}
