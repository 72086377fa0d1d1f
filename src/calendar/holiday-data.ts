/**
 * The {@link HolidaySource} backed by the `date-holidays` package, pinned exactly in package.json: its
 * rules (ISC) and data (CC-BY-3.0) are compiled into the package, so for a pinned version (region, year) →
 * holidays is deterministic and needs no I/O; importing it loads a JS object, no file or network. It is
 * NOT exported from ./index.ts: the workflow bundle imports the calendar's index, and the data (~0.8 MB of JS) has
 * no business there; the engine takes a HolidaySource as a value (activities/API build this one).
 *
 * Which holidays close a day: type `public` only (not `bank`, `school`, `optional`, `observance`), including
 * the data's substitute days (US July 3 when July 4 is a Saturday, LV's Monday after a weekend 4 May).
 * A holiday of several days (AE's Eid al-Fitr, P3D) closes each of them; one that starts at sunset the
 * evening before (Hebrew and Hijri dates, shown `00:00:00 -0600`) closes the day that follows; one shorter
 * than half a day (a 14:00 start) closes none: a half-day is a business day.
 */
import Holidays from 'date-holidays';
import type { Holiday, HolidaySource, Region } from './business-days.js';
import { DAY, dayNumber, formatDate, wallFrom } from './floating.js';
import type { RegionLookup } from './words/index.js';

/**
 * The pinned `date-holidays` release: the data version that slots computed with it record. A test reads
 * node_modules/date-holidays/package.json and fails when the installed package differs, so upgrading the
 * package is a deliberate change of this constant (and of every running schedule's data version).
 */
export const DATE_HOLIDAYS_VERSION = '3.37.0';
export const HOLIDAY_DATA_VERSION = `date-holidays@${DATE_HOLIDAYS_VERSION}`;

const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;

/** A HolidaySource of date-holidays' public holidays, named in `language` (default English). */
export function dateHolidaysSource(language = 'en'): HolidaySource {
  const instances = new Map<string, Holidays>();
  const instance = (region: Region): Holidays => {
    const key = `${region.country}-${region.subdivision ?? ''}`;
    let hd = instances.get(key);
    if (hd === undefined) {
      const opts = { languages: [language], types: ['public' as const] };
      hd =
        region.subdivision !== undefined
          ? new Holidays(region.country, region.subdivision, opts)
          : new Holidays(region.country, opts);
      instances.set(key, hd);
    }
    return hd;
  };
  const all = new Holidays();
  return Object.freeze({
    version: HOLIDAY_DATA_VERSION,
    hasRegion(region: Region): boolean {
      const countries = all.getCountries() ?? {};
      if (!(region.country in countries)) return false;
      if (region.subdivision === undefined) return true;
      return region.subdivision in (all.getStates(region.country) ?? {});
    },
    holidays(region: Region, year: number): readonly Holiday[] {
      const out: Holiday[] = [];
      for (const h of instance(region).getHolidays(year, language)) {
        if (h.type !== 'public') continue;
        const m = DATE_PREFIX.exec(h.date);
        if (!m) continue;
        const days = Math.round((h.end.getTime() - h.start.getTime()) / DAY);
        const first = dayNumber(wallFrom(Number(m[1]), Number(m[2]), Number(m[3])));
        for (let i = 0; i < days; i++) out.push({ date: formatDate((first + i) * DAY), name: h.name });
      }
      return out;
    },
  });
}

/**
 * What the words reader (src/calendar/words, which imports no data) is told about the regions of this data
 * (issue 43): the English country names, each country's zones, the one country of a zone, and whether a
 * region (a country, or a country and its subdivision) is known. Built by src/model/interpret.ts, which
 * passes it to the reader as a value; the zone tables are made on first use (every country once).
 */
export function dateHolidaysRegions(): RegionLookup {
  const all = new Holidays();
  const countries = all.getCountries('en') ?? {};
  const names = new Map<string, string>();
  for (const [code, name] of Object.entries(countries)) names.set(name.toLowerCase(), code);
  let tables: { zonesOf: Map<string, readonly string[]>; countriesOf: Map<string, string[]> } | undefined;
  const zoneTables = () => {
    if (tables === undefined) {
      const zonesOf = new Map<string, readonly string[]>();
      const countriesOf = new Map<string, string[]>();
      for (const code of Object.keys(countries)) {
        const zones = new Holidays(code).getTimezones() ?? [];
        zonesOf.set(code, zones);
        for (const zone of zones) countriesOf.set(zone, [...(countriesOf.get(zone) ?? []), code]);
      }
      tables = { zonesOf, countriesOf };
    }
    return tables;
  };
  return Object.freeze({
    byName: (name: string, language: string) =>
      language === 'en' ? names.get(name.toLowerCase().replace(/\s+/g, ' ').replace(/^the /, '')) : undefined,
    byZone: (zone: string) => {
      const found = zoneTables().countriesOf.get(zone);
      return found?.length === 1 ? found[0] : undefined;
    },
    zones: (region: string) => zoneTables().zonesOf.get(region.slice(0, 2)) ?? [],
    has: (region: string) => {
      const [country, subdivision] = region.split('-') as [string, string | undefined];
      if (!(country in countries)) return false;
      return subdivision === undefined || subdivision in (all.getStates(country) ?? {});
    },
  });
}
