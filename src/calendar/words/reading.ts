// What the reader is given and what it answers (index.ts exports these), and its business_days option.
import type { CalendarOptions, Timing } from '../timing.js';

export type WordsLanguage = 'en' | 'ru';

/** One reading of a sentence: the timing, the calendar options it sets, and what was chosen. */
export interface Reading {
  timing: Timing;
  options: Pick<
    CalendarOptions,
    'timezone' | 'window' | 'starts_at' | 'ends_at' | 'max_count' | 'dst' | 'business_days'
  >;
  notes: string[];
}

/**
 * The regions whose public holidays the holiday data knows, given to the reader (this module imports no
 * data): src/model/interpret.ts builds it from the pinned `date-holidays`.
 */
export interface RegionLookup {
  /** the ISO code of a country named in `language` ("Latvia", "United States of America"), any case */
  byName(name: string, language: WordsLanguage): string | undefined;
  /** the one country whose holiday data uses `zone` (Europe/Riga → LV); undefined for none or several */
  byZone(zone: string): string | undefined;
  /** the zones of a region's country in the data (LV → Europe/Riga) */
  zones(region: string): readonly string[];
  /** whether the data knows the region (a country, or a country and its subdivision: LV, DE-BY) */
  has(region: string): boolean;
}

export interface ReadInput {
  now: string;
  timezone?: string;
  language?: WordsLanguage;
  /** the region of business days when the words name none (LV, DE-BY) */
  region?: string;
  regions?: RegionLookup;
}

export type ReadOutcome =
  | { kind: 'read'; language: WordsLanguage; readings: Reading[]; question?: string }
  | { kind: 'unread'; language: WordsLanguage; reason: string; unread: { word: string; offset: number }[] }
  | { kind: 'zone-required'; language: WordsLanguage; reason: string }
  | { kind: 'region-required'; language: WordsLanguage; reason: string };

export type BusinessDays = NonNullable<CalendarOptions['business_days']>;
