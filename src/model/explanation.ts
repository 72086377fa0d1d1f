// Rule → words in the views (docs/words.md "Rule → words"): the `explanation` a preview, a schedule's GET,
// describe and list carry, generated from the structured timing and its calendar options. Computed by the
// boundary when it answers (never stored, never read by the workflow): an older schedule gets one too.
import { explainSpec } from '../calendar/words/index.js';
import type { Schedule } from './contracts.js';
import { calendarOptionsOf, type SlotSpec } from './slots.js';

/**
 * The definition in plain English, or undefined when the explainer cannot say it: a view is still
 * answered without it (the one place an explainer failure is swallowed).
 */
export function explanationOf(spec: SlotSpec): string | undefined {
  try {
    const explained = explainSpec({ timing: spec.timing, ...calendarOptionsOf(spec) });
    return typeof explained === 'string' && explained.length > 0 ? explained : undefined;
  } catch {
    return undefined;
  }
}

/** `schedule` with the explanation of its definition as it is now (a stale one is replaced, or dropped). */
export function withExplanation(schedule: Schedule): Schedule {
  const { explanation: _stale, ...rest } = schedule;
  const explanation = explanationOf(schedule);
  return explanation === undefined ? rest : { ...rest, explanation };
}
