// The zones a definition's instants depend on, read from its fields alone (no calendar, no zod): workflow
// code shows them as a search attribute, and a zone's recompute selects schedules by them. And the tz
// database releases that computed recorded slots, compared as their names sort (2024b < 2025a).

const TZID_RE = /TZID=([^;:\r\n]+)/g;
const UTC_NAMES = new Set([
  'UTC',
  'Etc/UTC',
  'GMT',
  'Etc/GMT',
  'Etc/UCT',
  'UCT',
  'Zulu',
  'Etc/Zulu',
  'Universal',
  'Etc/Universal',
]);

/** What zonesOf reads of a definition. */
export interface ZonedSpec {
  timing: { kind: string; timezone?: string | undefined; rule?: string | undefined };
  timezone?: string | undefined;
  window?: { timezone?: string | undefined } | undefined;
  business_days?: { region: string } | undefined;
}

/**
 * Every zone whose rules a definition's instants depend on: the timing's, the options', the window's and
 * each TZID of a RECURRENCE block, sorted. A definition with none is in UTC, whose rules never change: it
 * depends on no zone.
 */
export function zonesOf(spec: ZonedSpec): string[] {
  const zones = new Set<string>();
  const { timing } = spec;
  if (timing.timezone) zones.add(timing.timezone);
  if (spec.timezone) zones.add(spec.timezone);
  if (spec.window?.timezone) zones.add(spec.window.timezone);
  if (timing.kind === 'RECURRENCE' && typeof timing.rule === 'string')
    for (const m of timing.rule.matchAll(TZID_RE)) zones.add(m[1]!.trim());
  for (const utc of UTC_NAMES) zones.delete(utc);
  return [...zones].sort();
}

/**
 * Whether a definition's slots depend on data a deploy can change under a running schedule: a zone's rules
 * (tz database) or a region's public holidays (the holiday data package). Such slots are trusted for the
 * horizon only (TZ_HORIZON_MS) and computed again before they fire after it.
 */
export const followsChangingData = (spec: ZonedSpec): boolean =>
  zonesOf(spec).length > 0 || spec.business_days !== undefined;

/** The holiday data releases that decided the business days of `slots`, sorted; empty without business days. */
export const holidayVersionsOf = (slots: ReadonlyArray<{ holidays?: string }>): string[] =>
  [...new Set(slots.flatMap((slot) => (slot.holidays ? [slot.holidays] : [])))].sort();

/** The oldest holiday data release among `slots`; null: none decided by holiday data. */
export const oldestHolidayVersion = (slots: ReadonlyArray<{ holidays?: string }>): string | null =>
  holidayVersionsOf(slots).sort(compareHolidayVersions)[0] ?? null;

const HOLIDAY_VERSION_RE = /^(.+)@(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/;
/**
 * Orders holiday data releases (`date-holidays@3.37.0` < `date-holidays@3.38.0` < `date-holidays@10.0.0`) by
 * their numbers; releases of different packages, or not `name@x.y.z`, order by their text.
 */
export function compareHolidayVersions(a: string, b: string): number {
  const ma = HOLIDAY_VERSION_RE.exec(a);
  const mb = HOLIDAY_VERSION_RE.exec(b);
  if (ma && mb && ma[1] === mb[1]) {
    for (let i = 2; i <= 4; i++) {
      const d = Number(ma[i]) - Number(mb[i]);
      if (d !== 0) return d;
    }
    return 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether slots decided with holiday data `version` are older than `release`. */
export const holidayDataOlderThan = (version: string, release: string): boolean =>
  compareHolidayVersions(version, release) < 0;

/** What a slot recorded before 0.6 (no tz) counts as: older than any release. */
export const TZ_UNKNOWN = 'unknown';

/** The distinct tz releases that computed `slots`, oldest first (`unknown` first of all). */
export function tzVersionsOf(slots: ReadonlyArray<{ tz?: string }>): string[] {
  const versions = [...new Set(slots.map((slot) => slot.tz ?? TZ_UNKNOWN))];
  return versions.sort((a, b) => (a === TZ_UNKNOWN ? -1 : b === TZ_UNKNOWN ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/** The oldest release that computed one of `slots`; null: none. */
export const oldestTzVersion = (slots: ReadonlyArray<{ tz?: string }>): string | null =>
  tzVersionsOf(slots)[0] ?? null;

/** Whether a slot computed with `version` is older than `release` (a slot from before 0.6 always is). */
export const tzOlderThan = (version: string, release: string): boolean =>
  version === TZ_UNKNOWN || version < release;
