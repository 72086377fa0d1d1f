// The HTTP API's calendar off the event loop (issue 20): the time budget a search ends at (same typed error
// as the calendar's own search limit; an answer within it identical to the unbounded one), the fair queue
// in front of the pool (per-tenant running and waiting bounds, tenants served in turn) and the pool itself
// (worker threads; the event loop stays free while a thread searches).
import { afterAll, describe, expect, it } from 'vitest';
import { CalendarPool, FairQueue, QueueFullError } from '../../src/api/http/calendar-pool.js';
import { HttpProblem } from '../../src/api/http/problems.js';
import { budgetReason, IN_PROCESS_SLOTS, runSlotTask } from '../../src/api/slot-runner.js';
import { CalendarError } from '../../src/calendar/errors.js';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { computeSlots, type SlotBatchRequest } from '../../src/model/slots.js';

const NOW = '2026-03-01T00:00:00Z';
const job = { type: 'JOB', job_type: 'x' } as const;
const spec = (timing: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ScheduleSpec.parse({ timing, target: job, ...extra });
const request = (s: ScheduleSpec, count = 10): SlotBatchRequest => ({
  scheduleId: 's',
  spec: s,
  createdAt: NOW,
  after: NOW,
  count,
});
/** A COUNT rule counted from the year 1000: 200,000 candidates, about a second and a half, to SEARCH_LIMIT. */
const FROM_YEAR_1000 = spec({
  kind: 'RECURRENCE',
  rule: 'DTSTART:10000101T000000\nRRULE:FREQ=DAILY;COUNT=1000000000',
  timezone: 'Asia/Kathmandu',
});
const VALID = [
  spec({
    kind: 'RECURRENCE',
    rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO',
    timezone: 'Australia/Lord_Howe',
  }),
  spec({ kind: 'CRON', expression: '0 0 * 2 1#5', timezone: 'Pacific/Chatham' }),
  spec({ kind: 'CRON', expression: '30 2 * * *', timezone: 'Australia/Lord_Howe' }),
  spec({ kind: 'INTERVAL', every: 'PT45M' }, { timezone: 'Asia/Kathmandu' }),
  spec(
    { kind: 'RECURRENCE', rule: 'FREQ=MINUTELY;INTERVAL=7', timezone: 'Pacific/Chatham' },
    { window: { from: '09:00', to: '09:30', outside: 'SKIP' }, exclusions: ['2026-03-02'] },
  ),
];

const CANDIDATE_LIMIT_REASON =
  'no slot found within 200000 candidate occurrences: a rule that matches rarely, or a COUNT counted from a start far in the past';

/** A clock that moves `stepMs` each time it is read. */
const steppingClock = (stepMs: number) => {
  let t = 0;
  return () => (t += stepMs);
};

describe('the time budget of a calendar search', () => {
  it('ends a long search with SEARCH_LIMIT naming the timing, with the budget in the reason', () => {
    const outcome = runSlotTask({ requests: [request(FROM_YEAR_1000)], budgetMs: 50 }, steppingClock(1));
    expect(outcome).toEqual({
      ok: false,
      error: { field: 'timing', reason: budgetReason(50), code: 'SEARCH_LIMIT' },
    });
  });

  it('names the options when a window or exclusions are what the search spends on', () => {
    const skipped = spec(
      { kind: 'RECURRENCE', rule: 'FREQ=MINUTELY', timezone: 'UTC' },
      { window: { from: '00:00', to: '00:01', outside: 'SKIP' } },
    );
    const outcome = runSlotTask({ requests: [request(skipped, 100)], budgetMs: 5 }, steppingClock(1));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatchObject({ field: 'options', code: 'SEARCH_LIMIT' });
  });

  it('a search the budget lets finish answers exactly what the unbounded calendar answers', () => {
    for (const s of VALID) {
      for (const count of [1, 5, 50]) {
        const r = request(s, count);
        expect(runSlotTask({ requests: [r], budgetMs: 60_000 })).toEqual({
          ok: true,
          batches: [computeSlots(r)],
        });
      }
    }
  });

  it('without a budget, the calendar’s own candidate limit still answers, naming the timing (it has no window)', () => {
    const outcome = runSlotTask({ requests: [request(FROM_YEAR_1000)], budgetMs: null });
    expect(outcome).toEqual({
      ok: false,
      error: { code: 'SEARCH_LIMIT', field: 'timing', reason: CANDIDATE_LIMIT_REASON },
    });
  });

  it('the compile-time probe of a SKIP window is bounded too, and not mistaken for NEVER_FIRES', () => {
    const rare = spec(
      { kind: 'RECURRENCE', rule: 'FREQ=SECONDLY', timezone: 'UTC' },
      { window: { from: '00:00', to: '00:01', outside: 'SKIP', days: ['MO'] } },
    );
    // Each read of the clock moves a second: the probe's first budget check is already past 10 ms.
    const outcome = runSlotTask({ requests: [request(rare)], budgetMs: 10 }, steppingClock(1000));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SEARCH_LIMIT', field: 'options' } });
  });
});

describe('FairQueue', () => {
  const limits = { slots: 2, perTenant: 1, perTenantQueue: 2, maxQueued: 4, estimateMs: 1000 };
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    return { open, opened };
  };

  it('runs at most perTenant of one tenant at once; another tenant takes the free slot at once', async () => {
    const q = new FairQueue(limits);
    const started: string[] = [];
    const a1 = gate();
    const job = (name: string, g?: { opened: Promise<void> }) => async () => {
      started.push(name);
      await g?.opened;
      return name;
    };
    const runA1 = q.run('a', job('a1', a1));
    const runA2 = q.run('a', job('a2'));
    const runB1 = q.run('b', job('b1'));
    expect(await runB1).toBe('b1');
    expect(started).toEqual(['a1', 'b1']);
    expect(q.stats('a')).toMatchObject({ tenantRunning: 1, tenantQueued: 1 });
    a1.open();
    expect(await runA1).toBe('a1');
    expect(await runA2).toBe('a2');
    expect(started).toEqual(['a1', 'b1', 'a2']);
    expect(q.stats()).toEqual({ running: 0, queued: 0, tenantRunning: 0, tenantQueued: 0 });
  });

  it("refuses a tenant's search past its queue, with a Retry-After, and leaves the others alone", async () => {
    const q = new FairQueue(limits);
    const hold = gate();
    const held = () => hold.opened;
    const running = [q.run('a', held), q.run('a', held), q.run('a', held)];
    await expect(q.run('a', held)).rejects.toMatchObject({ scope: 'tenant', retryAfterSeconds: 3 });
    await expect(q.run('b', async () => 'b')).resolves.toBe('b');
    hold.open();
    await Promise.all(running);
  });

  it('refuses past maxQueued in all (503 scope), whoever asks', async () => {
    const q = new FairQueue({ ...limits, perTenant: 1, slots: 1, maxQueued: 2 });
    const hold = gate();
    const held = () => hold.opened;
    const admitted = [q.run('a', held), q.run('b', held), q.run('c', held)];
    const refused = await q.run('d', held).catch((e) => e);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect(refused.scope).toBe('pool');
    hold.open();
    await Promise.all(admitted);
  });

  it("serves waiting tenants in turn: a flooding tenant's queue does not go before another tenant's one search", async () => {
    const q = new FairQueue({ ...limits, slots: 1, perTenant: 1, perTenantQueue: 10, maxQueued: 20 });
    const order: string[] = [];
    const hold = gate();
    const first = q.run('a', async () => {
      order.push('a0');
      await hold.opened;
    });
    const floods = Array.from({ length: 5 }, (_, i) => q.run('a', async () => void order.push(`a${i + 1}`)));
    const b = q.run('b', async () => void order.push('b'));
    hold.open();
    await Promise.all([first, ...floods, b]);
    expect(order.indexOf('b')).toBe(2); // after a0 (running) and a1 (waiting before b arrived)
  });

  it('a job that throws frees its slot', async () => {
    const q = new FairQueue(limits);
    await expect(
      q.run('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(q.run('a', async () => 1)).resolves.toBe(1);
  });
});

describe('CalendarPool (worker threads)', () => {
  const pool = new CalendarPool({ threads: 2, budgetMs: 200, tenantQueue: 1 });
  afterAll(async () => {
    await pool.close();
  });

  it('answers what the calendar answers in this thread', async () => {
    // A budget no valid search here comes near, on however loaded a machine.
    const roomy = new CalendarPool({ threads: 1, budgetMs: 60_000, tenantQueue: 10 });
    try {
      const requests = VALID.flatMap((s) => [request(s, 1), request(s, 5), request(s, 50)]);
      expect(await roomy.slots('a', requests)).toEqual(await IN_PROCESS_SLOTS.slots('a', requests));
    } finally {
      await roomy.close();
    }
  });

  it("reads words on a thread as in this thread: results, the reader's problems, calendar refusals", async () => {
    // POST /v1/interpret runs here: the reading computes each reading's next runs with the calendar.
    const roomy = new CalendarPool({ threads: 1, budgetMs: 60_000, tenantQueue: 10 });
    try {
      for (const [text, timezone] of [
        ['every 10 minutes', undefined],
        ['every weekday at 09:00 in Europe/Riga', undefined],
        ['every day at 5', 'Europe/Riga'],
        ['blorf gleep', undefined],
        ['every day at 09:00', undefined],
        ['every day at 09:00', 'Nowhere/Zone'],
      ] as const) {
        const task = {
          request: { text, now: NOW, count: 3, ...(timezone ? { timezone } : {}) },
          wallNow: NOW,
        };
        const here = await IN_PROCESS_SLOTS.interpret!('a', task).catch((e: Error) => `throws ${e.message}`);
        const there = await roomy.interpret('a', task).catch((e: Error) => `throws ${e.message}`);
        expect(there, text).toEqual(here);
        expect(typeof here, `${text}: the reader answers as data, never throws`).toBe('object');
      }
    } finally {
      await roomy.close();
    }
  });

  it('stops a search past its budget with the typed CalendarError, while the event loop keeps turning', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const err = await pool.slots('a', [request(FROM_YEAR_1000)]).catch((e) => e);
      expect(err).toBeInstanceOf(CalendarError);
      expect(err).toMatchObject({ field: 'timing', code: 'SEARCH_LIMIT' });
      // At the budget, or on a machine fast enough to examine all 200,000 candidates within it, at that limit.
      expect([budgetReason(200), CANDIDATE_LIMIT_REASON]).toContain(err.reason);
      // The search ran ~200 ms on a thread: this loop ran its timer meanwhile (on the event loop it could not).
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it('refuses the searches a tenant queues past its limit with 429 and Retry-After; another tenant is served', async () => {
    const long = () => pool.slots('a', [request(FROM_YEAR_1000)]).catch((e) => e);
    const [first, second, third] = [long(), long(), long()];
    const refused = await third;
    expect(refused).toBeInstanceOf(HttpProblem);
    expect(refused).toMatchObject({ slug: 'rate-limited', headers: { 'retry-after': expect.any(String) } });
    // Tenant b gets the second thread while a holds the first.
    const b = await pool.slots('b', [request(VALID[0]!, 5)]);
    expect(b[0]!.slots).toHaveLength(5);
    expect(await first).toBeInstanceOf(CalendarError);
    expect(await second).toBeInstanceOf(CalendarError);
  });
});
