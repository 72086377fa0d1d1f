import type { CalendarOptions, Timing } from '../timing.js';

/** A definition's timing and calendar options in plain English (docs/words.md "Rule → words"). */
export function explainSpec(_spec: { timing: Timing } & CalendarOptions): string {
  throw new Error('not yet');
}
