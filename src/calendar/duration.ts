/** ISO 8601 durations, parsed by luxon's `Duration.fromISO` and checked strictly. */
import { Duration } from 'luxon';
import { fail } from './errors.js';
import { clip } from './floating.js';

export interface ParsedDuration {
  text: string;
  duration: Duration;
  /** length in ms when the duration has a fixed length (no years or months); days are 24 h */
  fixedMs: number | undefined;
}

const ISO_DURATION_SHAPE =
  /^P(?!$)(\d+(?:[.,]\d+)?Y)?(\d+(?:[.,]\d+)?M)?(\d+(?:[.,]\d+)?W)?(\d+(?:[.,]\d+)?D)?(T(?=\d)(\d+(?:[.,]\d+)?H)?(\d+(?:[.,]\d+)?M)?(\d+(?:[.,]\d+)?S)?)?$/;

export function parseDuration(
  field: string,
  text: unknown,
  opts: { allowZero?: boolean; fixedOnly?: boolean } = {},
): ParsedDuration {
  if (typeof text !== 'string')
    fail(field, 'must be an ISO 8601 duration string such as PT10M', 'INVALID_DURATION');
  // luxon accepts "P", "PT", "P1DT" and negative parts; the contract does not
  if (!ISO_DURATION_SHAPE.test(text)) {
    fail(field, `"${clip(text)}" is not an ISO 8601 duration (e.g. PT10M, P1D, P1DT12H)`, 'INVALID_DURATION');
  }
  const duration = Duration.fromISO(text);
  if (!duration.isValid) {
    fail(
      field,
      `"${clip(text)}" is not an ISO 8601 duration (${duration.invalidReason})`,
      'INVALID_DURATION',
    );
  }
  const o = duration.toObject();
  const hasCalendarPart = (o.years ?? 0) !== 0 || (o.months ?? 0) !== 0 || (o.quarters ?? 0) !== 0;
  if (opts.fixedOnly && hasCalendarPart) {
    fail(field, `"${text}" has years or months, whose length varies; use days or weeks`, 'INVALID_DURATION');
  }
  const fixedMs = hasCalendarPart ? undefined : duration.as('milliseconds');
  if (!opts.allowZero && (fixedMs === 0 || (!hasCalendarPart && (fixedMs ?? 0) <= 0))) {
    fail(field, `"${text}" must be longer than zero`, 'INVALID_DURATION');
  }
  if (fixedMs !== undefined && fixedMs > 0 && fixedMs < 1) {
    fail(field, `"${text}" is shorter than a millisecond`, 'INVALID_DURATION');
  }
  return { text, duration, fixedMs };
}
