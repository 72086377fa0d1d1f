// The pure parts of the tenant quotas (src/api/quotas.ts, src/api/http/tenant-rate-limit.ts): the minimum
// interval as measured on a timing's upcoming runs, whatever kind of timing it is; the quotas a policy file
// gives (defaults, the development policies' none); the backfill ledger's sliding hour; what a request
// costs the rate limiter.
import { describe, expect, it } from 'vitest';
import { previewRuns } from '../../src/api/client.js';
import { QuotaExceededError } from '../../src/api/errors.js';
import {
  REQUEST_UNIT_COSTS,
  requestCost,
  TENANT_RECOMPUTE_INTERVAL_MS,
  TenantRateLimiter,
  TenantRecomputeGate,
} from '../../src/api/http/tenant-rate-limit.js';
import {
  BackfillSlotLedger,
  checkMinInterval,
  checkPayloadSize,
  MIN_INTERVAL_SAMPLE_RUNS,
  timingMinimumGapSeconds,
} from '../../src/api/quotas.js';
import type { Timing } from '../../src/calendar/timing.js';
import type { SlotSpec } from '../../src/model/slots.js';
import { DEFAULT_QUOTAS, TenantPolicy } from '../../src/model/tenant-policy.js';

const FROM = '2026-03-20T10:00:00Z';
const gapOf = (spec: SlotSpec, from = FROM) =>
  timingMinimumGapSeconds(spec.timing, previewRuns('q', spec, from, from, MIN_INTERVAL_SAMPLE_RUNS));

describe('minimum interval, measured on the next runs', () => {
  it.each<[string, Timing, number]>([
    ['INTERVAL PT5S', { kind: 'INTERVAL', every: 'PT5S' }, 5],
    ['INTERVAL PT1M', { kind: 'INTERVAL', every: 'PT1M' }, 60],
    [
      'INTERVAL FIXED_DELAY PT1S (one run at a time: its `every`)',
      { kind: 'INTERVAL', every: 'PT1S', mode: 'FIXED_DELAY' },
      1,
    ],
    ['cron with seconds, every 15 s', { kind: 'CRON', expression: '*/15 * * * * *', timezone: 'UTC' }, 15],
    ['cron with a seconds list 0,1', { kind: 'CRON', expression: '0,1 * * * * *', timezone: 'UTC' }, 1],
    ['5-field cron, every minute', { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' }, 60],
    [
      'RRULE SECONDLY;INTERVAL=3',
      { kind: 'RECURRENCE', rule: 'FREQ=SECONDLY;INTERVAL=3', timezone: 'UTC' },
      3,
    ],
    [
      'RRULE MINUTELY;INTERVAL=2',
      { kind: 'RECURRENCE', rule: 'FREQ=MINUTELY;INTERVAL=2', timezone: 'UTC' },
      120,
    ],
    [
      'RRULE MINUTELY with BYSECOND=0,5',
      { kind: 'RECURRENCE', rule: 'FREQ=MINUTELY;BYSECOND=0,5', timezone: 'UTC' },
      5,
    ],
  ])('%s → %s s', (_what, timing, seconds) => {
    expect(gapOf({ timing })).toBe(seconds);
  });

  it('a daily rule across the spring DST switch: the short day (23 h) is the gap', () => {
    // Europe/Riga moves from +02:00 to +03:00 on 2026-03-29.
    const timing: Timing = {
      kind: 'RECURRENCE',
      rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
      timezone: 'Europe/Riga',
    };
    expect(gapOf({ timing })).toBe(23 * 3600);
    // Away from a switch, a day is 24 h.
    expect(gapOf({ timing }, '2026-06-01T00:00:00Z')).toBe(24 * 3600);
  });

  it('a one-time schedule has no gap, and passes any minimum', () => {
    const timing: Timing = { kind: 'ONE_TIME', at: '2030-01-01T00:00:00Z' };
    const runs = previewRuns('q', { timing }, FROM, FROM, 50);
    expect(timingMinimumGapSeconds(timing, runs)).toBeNull();
    expect(() => checkMinInterval(timing, runs, { ...DEFAULT_QUOTAS, min_interval_s: 3600 })).not.toThrow();
  });

  it('below the quota: QUOTA_EXCEEDED naming timing, with the limit and the gap found', () => {
    const timing: Timing = { kind: 'CRON', expression: '*/5 * * * * *', timezone: 'UTC' };
    const runs = previewRuns('q', { timing }, FROM, FROM, 50);
    let refused: unknown;
    try {
      checkMinInterval(timing, runs, DEFAULT_QUOTAS);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect(refused).toMatchObject({ code: 'QUOTA_EXCEEDED', field: 'timing', limit: 10, current: 5 });
    expect(() => checkMinInterval(timing, runs, { ...DEFAULT_QUOTAS, min_interval_s: 5 })).not.toThrow();
  });
});

describe('quotas in the policy', () => {
  it('a tenant entry without quotas gets the documented defaults; a partial one fills in the rest', () => {
    const policy = TenantPolicy.fromTenants({ a: {}, b: { quotas: { max_schedules: 5 } } });
    expect(policy.quotas('a')).toEqual({
      max_schedules: 1000,
      min_interval_s: 10,
      max_backfill_slots: 1000,
      max_backfill_slots_per_hour: 10_000,
      max_handoffs_in_flight: 50,
    });
    expect(policy.quotas('b')).toMatchObject({ max_schedules: 5, min_interval_s: 10 });
    expect(policy.quotas('nobody')).toEqual(policy.quotas('a'));
  });

  it('the development policies impose no limit', () => {
    for (const quotas of [
      TenantPolicy.openToAll().quotas('x'),
      TenantPolicy.openFor(['dev']).quotas('dev'),
    ]) {
      expect(quotas.min_interval_s).toBe(0);
      expect(quotas.max_schedules).toBe(Number.POSITIVE_INFINITY);
      expect(quotas.max_backfill_slots_per_hour).toBe(Number.POSITIVE_INFINITY);
    }
  });

  it('an unknown or negative quota is refused naming it', () => {
    expect(() =>
      TenantPolicy.parse('{"tenants":{"acme":{"quotas":{"max_schedule":3}}}}', 'tenants.json'),
    ).toThrow(/tenants\.json: tenants\.acme\.quotas/);
    expect(() =>
      TenantPolicy.parse('{"tenants":{"acme":{"quotas":{"min_interval_s":-1}}}}', 'tenants.json'),
    ).toThrow(/tenants\.acme\.quotas\.min_interval_s/);
  });
});

describe('payload cap', () => {
  it('16 KiB serialized is accepted, a byte more is VALIDATION naming target.payload', () => {
    const sized = (bytes: number) => ({
      type: 'JOB' as const,
      job_type: 'j',
      payload: { b: 'x'.repeat(bytes - 8) },
    });
    expect(JSON.stringify(sized(16 * 1024).payload)).toHaveLength(16 * 1024);
    expect(() => checkPayloadSize(sized(16 * 1024))).not.toThrow();
    expect(() => checkPayloadSize(sized(16 * 1024 + 1))).toThrow(
      expect.objectContaining({ code: 'VALIDATION', field: 'target.payload' }),
    );
  });
});

describe('backfill ledger: a sliding hour per tenant', () => {
  it('counts reservations within the hour, refuses past the limit, forgets after an hour and on release', () => {
    let now = 0;
    const ledger = new BackfillSlotLedger(() => now);
    ledger.reserve('acme', 600, 1000);
    now = 30 * 60_000;
    expect(() => ledger.reserve('acme', 500, 1000)).toThrow(
      expect.objectContaining({ code: 'QUOTA_EXCEEDED', field: 'from', limit: 1000, current: 1100 }),
    );
    ledger.reserve('globex', 900, 1000); // another tenant's hour
    const release = ledger.reserve('acme', 400, 1000);
    expect(ledger.used('acme')).toBe(1000);
    release();
    expect(ledger.used('acme')).toBe(600);
    now = 60 * 60_000 + 1; // the first reservation left the hour
    expect(ledger.used('acme')).toBe(0);
  });
});

describe('weighted rate limit per tenant', () => {
  it('costs: a read 1, a list by its page size, a backfill 50', () => {
    expect(requestCost('GET', '/v1/schedules/:id', {})).toBe(1);
    expect(requestCost('POST', '/v1/preview', {})).toBe(1);
    expect(requestCost('GET', '/v1/schedules', {})).toBe(2);
    expect(requestCost('GET', '/v1/schedules', { limit: 100 })).toBe(10);
    expect(requestCost('POST', '/v1/schedules/:id/backfill', {})).toBe(50);
    expect(requestCost('POST', '/v1/schedules/:id/pause', {})).toBe(5);
    // A recompute is at least an action (an update and a slot batch); the tenant-wide one is that for its
    // listing, then that again per schedule it asks (charged by the route as it asks them).
    expect(requestCost('POST', '/v1/schedules/:id/recompute', {})).toBe(REQUEST_UNIT_COSTS.action);
    expect(requestCost('POST', '/v1/recompute', {})).toBe(REQUEST_UNIT_COSTS.action);
  });

  it('a fixed minute per tenant: a few backfills spend what many reads would not', () => {
    let now = 0;
    const limiter = new TenantRateLimiter(60_000, () => now);
    for (let i = 0; i < 2; i++) expect(limiter.take('acme', 50, 120).allowed).toBe(true);
    expect(limiter.take('acme', 50, 120)).toMatchObject({ allowed: false, remaining: 20 });
    expect(limiter.take('acme', 1, 120).allowed).toBe(true); // a read still fits
    expect(limiter.take('globex', 50, 120).allowed).toBe(true);
    now = 60_000;
    expect(limiter.take('acme', 50, 120)).toMatchObject({ allowed: true, remaining: 70 });
  });

  it('work charged beyond the limit is paid off by the windows that follow, and Retry-After says when', () => {
    let now = 0;
    const limiter = new TenantRateLimiter(60_000, () => now);
    expect(limiter.take('acme', 2, 100).allowed).toBe(true);
    // A tenant-wide recompute that asked 150 schedules: 300 units, 202 past the limit.
    expect(limiter.charge('acme', 300, 100)).toMatchObject({ remaining: 0 });
    // 202 to carry: the next window pays 100 of it, the one after 100, the third starts with 2.
    expect(limiter.take('acme', 1, 100)).toMatchObject({ allowed: false, resetSeconds: 180 });
    now = 60_000;
    expect(limiter.take('acme', 1, 100)).toMatchObject({ allowed: false, resetSeconds: 120 });
    expect(limiter.take('globex', 1, 100).allowed).toBe(true);
    now = 180_000;
    expect(limiter.take('acme', 1, 100)).toMatchObject({ allowed: true, remaining: 97 });
  });
});

describe('tenant-wide recompute: one per tenant per interval', () => {
  it('a second one within the interval is refused with the time left; another tenant is not', () => {
    let now = 1_000_000;
    const gate = new TenantRecomputeGate(TENANT_RECOMPUTE_INTERVAL_MS, () => now);
    expect(gate.enter('acme')).toHaveProperty('token');
    now += 60_000;
    expect(gate.enter('acme')).toEqual({
      startedAt: 1_000_000,
      retryAfterSeconds: TENANT_RECOMPUTE_INTERVAL_MS / 1000 - 60,
    });
    expect(gate.enter('globex')).toHaveProperty('token');
    now = 1_000_000 + TENANT_RECOMPUTE_INTERVAL_MS;
    expect(gate.enter('acme')).toHaveProperty('token');
  });

  it('a recompute that asked nothing gives its turn back; a stale token gives back nothing', () => {
    const gate = new TenantRecomputeGate(TENANT_RECOMPUTE_INTERVAL_MS, () => 0);
    const first = gate.enter('acme');
    if (!('token' in first)) throw new Error('refused');
    gate.release('acme', first.token);
    const second = gate.enter('acme');
    if (!('token' in second)) throw new Error('refused');
    gate.release('acme', first.token);
    expect(gate.enter('acme')).not.toHaveProperty('token');
  });
});
