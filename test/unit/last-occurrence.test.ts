import { describe, expect, it } from 'vitest';
import type { Occurrence } from '../../src/model/contracts.js';
import { lastOccurrenceOf } from '../../src/model/views.js';

const occurrence = (slot: string, over: Partial<Occurrence> = {}): Occurrence => ({
  occurrence_id: `nightly:${slot}`,
  schedule_id: 'nightly',
  schedule_version: 1,
  scheduled_for: slot,
  fire_at: new Date(slot).toISOString(),
  emitted_at: new Date(slot).toISOString(),
  idempotency_key: `acme/nightly/${slot}`,
  target_ref: `job-${slot}`,
  payload_ref: null,
  status: 'COMPLETED',
  attempt: 1,
  reason: null,
  trigger: 'SCHEDULE',
  duplicate_prevented: false,
  finished_at: null,
  ...over,
});

/** After every slot below, and before 2027-03-14T06:30Z (the armed one). */
const NOW = Date.parse('2027-03-14T06:00:00Z');

describe('the last occurrence a listing shows beside a schedule', () => {
  it('none before the first run, and none while the only one is armed for later', () => {
    expect(lastOccurrenceOf([], NOW)).toBeNull();
    expect(lastOccurrenceOf([occurrence('2027-03-14T02:30:00-04:00', { status: 'ARMED' })], NOW)).toBeNull();
  });

  it('one whose instant is ahead is not it, whatever its status: armed, still being armed, taken back', () => {
    const done = occurrence('2027-03-13T02:30:00-05:00');
    const ahead = ['ARMED', 'DISPATCHING', 'CANCELLED'] as const;
    for (const status of ahead)
      expect(
        lastOccurrenceOf([done, occurrence('2027-03-14T02:30:00-04:00', { status })], NOW)?.occurrence_id,
        status,
      ).toBe(done.occurrence_id);
    // Its instant come, the same one is the last.
    const begun = occurrence('2027-03-14T02:30:00-04:00', { status: 'HANDED_OFF' });
    expect(lastOccurrenceOf([done, begun], Date.parse(begun.fire_at))?.occurrence_id).toBe(
      begun.occurrence_id,
    );
  });

  it('the newest by its instant, whatever the order the schedule keeps them in; an armed later one is not it', () => {
    const skipped = occurrence('2027-03-13T02:30:00-05:00', {
      status: 'SKIPPED',
      emitted_at: null,
      reason: 'misfire: 3600 s late (max_lateness_s 60)',
    });
    const last = lastOccurrenceOf(
      [
        skipped,
        occurrence('2027-03-12T02:30:00-05:00'),
        occurrence('2027-03-14T02:30:00-04:00', { status: 'ARMED' }),
      ],
      NOW,
    );
    expect(last).toEqual({
      occurrence_id: skipped.occurrence_id,
      scheduled_for: '2027-03-13T02:30:00-05:00',
      fire_at: '2027-03-13T07:30:00.000Z',
      emitted_at: null,
      status: 'SKIPPED',
      reason: 'misfire: 3600 s late (max_lateness_s 60)',
      trigger: 'SCHEDULE',
    });
  });

  it('compares instants, not strings: a slot written in another offset is ordered by when it is', () => {
    // 01:00+02:00 is 23:00Z the day before: earlier than 23:30Z though its string sorts later.
    const riga = occurrence('2027-03-14T01:00:00+02:00');
    const utc = occurrence('2027-03-13T23:30:00Z', { trigger: 'MANUAL' });
    expect(lastOccurrenceOf([utc, riga], NOW)?.occurrence_id).toBe(utc.occurrence_id);
    expect(lastOccurrenceOf([riga, utc], NOW)?.occurrence_id).toBe(utc.occurrence_id);
  });

  it('two at one instant (a window deferred one onto another): the later slot', () => {
    const deferred = occurrence('2027-03-13T22:00:00Z', { fire_at: '2027-03-14T06:00:00.000Z' });
    const onTime = occurrence('2027-03-14T06:00:00Z');
    expect(lastOccurrenceOf([onTime, deferred], NOW)?.occurrence_id).toBe(onTime.occurrence_id);
  });
});
