import type { CalendarOptions, Timing } from '../timing.js';

export type WordsLanguage = 'en' | 'ru';

/** One reading of a sentence: the timing, the calendar options it sets, and what was chosen. */
export interface Reading {
  timing: Timing;
  options: Pick<CalendarOptions, 'timezone' | 'window' | 'starts_at' | 'ends_at' | 'max_count' | 'dst'>;
  notes: string[];
}

export interface ReadInput {
  now: string;
  timezone?: string;
  language?: WordsLanguage;
}

export type ReadOutcome =
  | { kind: 'read'; language: WordsLanguage; readings: Reading[]; question?: string }
  | { kind: 'unread'; language: WordsLanguage; reason: string; unread: { word: string; offset: number }[] }
  | { kind: 'zone-required'; language: WordsLanguage; reason: string };

export function readSchedule(_text: string, _input: ReadInput): ReadOutcome {
  throw new Error('not yet');
}
