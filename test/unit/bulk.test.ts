// What a bulk operation does to each schedule it picks (src/api/sdk/bulk.ts nothingToDo): a table of
// action × status, the answer a user reads in `results[].reason`. The operation itself runs against a real
// server in test/integration/http-labels.test.ts.
import { describe, expect, it } from 'vitest';
import { nothingToDo } from '../../src/api/sdk/bulk.js';
import type { BulkAction, Schedule } from '../../src/model/contracts.js';

const schedule = (status: Schedule['status'], revoked = false) =>
  ({ status, owner_revoked_at: revoked ? '2026-12-01T00:00:00Z' : null }) as Schedule;

describe('bulk: what each action has to do on a schedule', () => {
  const table: Array<[BulkAction, Schedule, string | null]> = [
    ['pause', schedule('ACTIVE'), null],
    ['pause', schedule('PAUSED'), 'already paused'],
    ['pause', schedule('COMPLETED'), 'COMPLETED: nothing to pause'],
    ['pause', schedule('CANCELLED'), 'CANCELLED: nothing to pause'],
    ['resume', schedule('PAUSED'), null],
    ['resume', schedule('ACTIVE', true), null], // a resume takes over a schedule whose owner was revoked
    ['resume', schedule('ACTIVE'), 'already active'],
    ['resume', schedule('FAILED'), 'FAILED: cannot be resumed'],
    ['cancel', schedule('ACTIVE'), null],
    ['cancel', schedule('PAUSED'), null],
    ['cancel', schedule('CANCELLED'), 'already CANCELLED'],
    ['cancel', schedule('COMPLETED'), 'already COMPLETED'],
    ['delete', schedule('COMPLETED'), null],
    ['delete', schedule('ACTIVE'), null],
  ];
  it.each(table)('%s on %o', (action, s, expected) => {
    expect(nothingToDo(action, s)).toBe(expected);
  });
});
