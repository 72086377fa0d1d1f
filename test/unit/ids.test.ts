import { describe, expect, it } from 'vitest';
import { occurrenceId, scheduleIdOf, scheduleWorkflowId } from '../../src/model/ids.js';

describe('scheduleIdOf: the inverse of scheduleWorkflowId', () => {
  it('gives back tenant and schedule ID for every schedule workflow ID', () => {
    for (const [tenant, id] of [
      ['acme', 'nightly-report'],
      ['t_1', 'a.b-c_d'],
      ['acme', 'x'],
    ] as const) {
      expect(scheduleIdOf(scheduleWorkflowId(tenant, id))).toEqual({ tenantId: tenant, scheduleId: id });
    }
  });

  it('is null for every other workflow ID: occurrences, the registry, foreign workflows', () => {
    expect(scheduleIdOf(occurrenceId('acme', 'nightly', '2026-01-01T00:00:00Z'))).toBeNull();
    expect(scheduleIdOf('scheduler-owner-registry')).toBeNull();
    expect(scheduleIdOf('order-123')).toBeNull();
    expect(scheduleIdOf('schedule/acme')).toBeNull();
    expect(scheduleIdOf('schedule//x')).toBeNull();
  });
});
