/** Stable machine-readable codes for {@link CalendarError}. */
export type CalendarErrorCode =
  | 'INVALID_FIELD' // shape/type error reported by the zod contract
  | 'UNKNOWN_ZONE'
  | 'FIXED_OFFSET_ZONE'
  | 'TIMEZONE_REQUIRED'
  | 'INVALID_DATETIME'
  | 'INVALID_DURATION'
  | 'INVALID_RRULE'
  | 'UNSUPPORTED_RRULE'
  | 'INVALID_CRON'
  | 'UNTIL_BEFORE_DTSTART'
  | 'NEVER_FIRES'
  | 'INVALID_WINDOW'
  | 'INVALID_OPTION'
  | 'INVALID_CURSOR'
  | 'SEARCH_LIMIT';

/**
 * The only error the calendar throws for bad input. `field` is a dotted path into the
 * schedule (`timing.rule`, `options.window.from`), `reason` a human sentence, `code` stable.
 */
export class CalendarError extends Error {
  readonly field: string;
  readonly reason: string;
  readonly code: CalendarErrorCode;

  constructor(field: string, reason: string, code: CalendarErrorCode) {
    super(`${field}: ${reason}`);
    this.name = 'CalendarError';
    this.field = field;
    this.reason = reason;
    this.code = code;
  }

  toJSON(): { field: string; reason: string; code: CalendarErrorCode } {
    return { field: this.field, reason: this.reason, code: this.code };
  }
}

export function fail(field: string, reason: string, code: CalendarErrorCode): never {
  throw new CalendarError(field, reason, code);
}

/**
 * How a parser treats a value that a list names twice (`BYHOUR=2,2`, a cron `5,5`). A definition entering
 * (created, its timing edited, previewed, read from words) is refused, naming the part: a repeat adds no
 * occurrence, only work for whatever reads the list as written (the explainer once multiplied the lists as
 * written). A stored definition is read as it always was, the repeat ignored: a schedule created before the
 * check keeps running, and reads of it cost what its distinct values cost.
 */
export interface ListParse {
  refuseRepeats?: boolean;
}

/** Why a list naming `value` twice is refused (`BYHOUR repeats 2: …`). */
export const repeatReason = (part: string, value: string): string =>
  `${part} repeats ${value}: name each value once`;
