// The calendar ends with the year 9999: a slot past it (by its timing, a window deferral or an interval)
// exhausts the calendar instead of producing an instant no ISO 8601 four-digit year can spell (found by
// fuzzing the HTTP API: such a slot broke the schedule's workflow and its tenant's listing).
import { describe, expect, it } from 'vitest';
import { compileCalendar } from '../../../src/calendar/index.js';
import type { CalendarOptions, Timing } from '../../../src/calendar/timing.js';

const createdAt = '2026-11-30T00:00:00Z';
const next = (timing: Timing, options: CalendarOptions = {}) =>
  compileCalendar({ scheduleId: 's', timing, options, createdAt }).nextSlots(createdAt, 5);

describe('the end of the year 9999', () => {
  it('a DELAY past it has no slot', () => {
    expect(next({ kind: 'DELAY', delay: 'PT1H', anchor: '9999-12-31T23:30:00Z' })).toMatchObject({
      slots: [],
      exhausted: true,
    });
  });

  it('a DEADLINE deferred past it by a window has no slot', () => {
    const r = next(
      { kind: 'DEADLINE', at: '9999-12-31T23:59:59Z' },
      { window: { from: '07:00', to: '17:30' } },
    );
    expect(r).toMatchObject({ slots: [], exhausted: true });
  });

  it('an INTERVAL stops at it', () => {
    const r = next({ kind: 'INTERVAL', every: 'PT10H', anchor: '9999-12-31T00:00:00Z' });
    expect(r.slots.map((s) => s.fireAt)).toEqual([
      '9999-12-31T00:00:00Z',
      '9999-12-31T10:00:00Z',
      '9999-12-31T20:00:00Z',
    ]);
    expect(r.exhausted).toBe(true);
  });
});
