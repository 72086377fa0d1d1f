// Security review 2, N1: the rule said back in words, through the product's own API process (src/main.ts,
// SCHEDULER_ROLE=api) on a dev server with a scheduler worker process. A rule that names one hour and one
// minute thousands of times (`FREQ=DAILY;BYHOUR=2,2,…;BYMINUTE=5,5,…`) passed the calendar in milliseconds,
// and the explainer then built hours × minutes on the event loop: seconds of loop and hundreds of MB per
// preview, and per GET, list or describe of a schedule stored with it. Tenant A sends those rules to
// preview, create and interpret, and reads a schedule stored with one before the parser refused repeats,
// all at once; meanwhile tenant B's /healthz and its schedule's GET keep answering, and the process's
// memory stays near where it started.
//
// Nothing here is a timing goal. B's latencies are compared with B's own, measured just before in the same
// test on the same machine, with room for a busy shared machine (ten times the baseline and more than a
// second on top): the old explainer held the loop for seconds at a time per request, which no bound that
// generous lets through. The memory bound is a count, not a time: the old explainer allocated hundreds of
// MB per explanation of the stored rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainSpec } from '../../src/calendar/words/index.js';
import {
  type ApiProcess,
  bracketed,
  eventually,
  procStats,
  type Stack,
  startApiProcess,
  startScheduleWorkflow,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

// Tenant A is acme: startScheduleWorkflow stands a schedule of acme's up past the API.
const KEY_A = 'explain-load-tenant-a-0123456789abcdef';
const KEY_B = 'explain-load-tenant-b-0123456789abcdef';
const job = { type: 'JOB', job_type: 'recordedJob' } as const;
const times = (value: string, n: number) => Array.from({ length: n }, () => value).join(',');
const riga = (rule: string) => ({ kind: 'RECURRENCE' as const, rule, timezone: 'Europe/Riga' });

/** The review's rule: 02:05, each value named 2000 times (8 KB, the contract's longest rule). */
const REVIEW_RULE = `FREQ=DAILY;BYHOUR=${times('2', 2000)};BYMINUTE=${times('5', 2000)}`;
/** 03:05, which both of Riga's DST changes move: the old explainer wrote a note per pair and change. */
const DST_RULE = `FREQ=DAILY;BYHOUR=${times('3', 1000)};BYMINUTE=${times('5', 1000)}`;
/** What A's stored schedule runs on: its rule's distinct values. */
const DISTINCT = riga('FREQ=DAILY;BYHOUR=3;BYMINUTE=5');
const STORED_ID = 'a-stored-repeats';
/** Room for a busy machine beyond B's own baseline (see the header). */
const SLACK = { factor: 10, healthMs: 1500, readMs: 3000 };
/** What A's attack may add to the API process's resident memory at its peak. */
const MEMORY_SLACK_BYTES = 256 * 1024 * 1024;

let stack: Stack;
let api: ApiProcess;

beforeAll(async () => {
  stack = await startStack('explain-load');
  await startWorker(stack, { ROLES: 'scheduler,jobs' });
  // A schedule stored with the repeats before the parser refused them: its workflow computes its slots
  // from the distinct values, as it always did.
  await startScheduleWorkflow(stack, {
    scheduleId: STORED_ID,
    spec: { timing: riga(DST_RULE), target: job },
  });
  api = await startApiProcess(stack, `${KEY_A}=acme:ops,${KEY_B}=b:ops`, {
    SCHEDULER_CALENDAR_THREADS: '2',
    SCHEDULER_CALENDAR_TENANT_QUEUE: '32',
  });
  const created = await api.call('POST', '/v1/schedules', {
    key: KEY_B,
    body: {
      schedule_id: 'b-hourly',
      timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
      target: job,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // Both schedules answer their reads (their workflows have run their first task).
  for (const [key, id] of [
    [KEY_A, STORED_ID],
    [KEY_B, 'b-hourly'],
  ] as const)
    await eventually(
      `${id} answers`,
      async () => ((await api.call('GET', `/v1/schedules/${id}`, { key })).status === 200 ? true : undefined),
      60_000,
    );
});
afterAll(async () => {
  await stopStack(stack);
});

/** One of B's probes: /healthz and the GET of its schedule, each timed on this machine's clock. */
async function probeB() {
  const health = await bracketed(() => api.call('GET', '/healthz'));
  const read = await bracketed(() => api.call('GET', '/v1/schedules/b-hourly', { key: KEY_B }));
  expect(health.value).toMatchObject({ status: 200, body: { status: 'ok' } });
  expect(read.value.status).toBe(200);
  expect(read.value.body).toMatchObject({ schedule_id: 'b-hourly', tenant_id: 'b', status: 'ACTIVE' });
  return { healthMs: health.after - health.before, readMs: read.after - read.before };
}

function expectRepeat422(answer: { status: number; body: unknown }, field: string, reason: string) {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(422);
  expect(answer.body).toMatchObject({
    type: '/problems/unprocessable',
    code: 'VALIDATION',
    field,
    detail: `${field}: ${reason}: name each value once`,
  });
}

describe('the rule in words off the critical path (security review 2, N1)', () => {
  it("A's repeated lists are refused or said by their distinct values; B's reads answer meanwhile; memory stays bounded", async () => {
    const pid = api.child.pid;
    // B's baseline, A idle.
    const baseline = [];
    for (let i = 0; i < 5; i++) baseline.push(await probeB());
    const baseHealthMs = Math.max(...baseline.map((p) => p.healthMs));
    const baseReadMs = Math.max(...baseline.map((p) => p.readMs));
    const startRss = procStats(pid).rssBytes;
    expect(startRss).toBeGreaterThan(0);

    const a = (method: string, path: string, body?: unknown) =>
      api.call(method, path, { key: KEY_A, ...(body !== undefined ? { body } : {}) });
    const interpretA = (text: string) =>
      a('POST', '/v1/interpret', { text, timezone: 'Europe/Riga', now: '2027-03-26T10:00:00Z', count: 3 });
    const attack = {
      reads: [
        ...Array.from({ length: 3 }, () => a('GET', `/v1/schedules/${STORED_ID}`)),
        ...Array.from({ length: 2 }, () => a('GET', `/v1/schedules/${STORED_ID}/describe`)),
      ],
      list: a('GET', '/v1/schedules?limit=20'),
      previews: [
        a('POST', '/v1/preview', { timing: riga(REVIEW_RULE), count: 10 }),
        a('POST', '/v1/preview', { timing: riga(REVIEW_RULE), count: 10 }),
        a('POST', '/v1/preview', { timing: riga(DST_RULE), count: 10 }),
        a('POST', '/v1/preview', { timing: riga(DST_RULE), count: 10 }),
      ],
      cron: a('POST', '/v1/preview', {
        timing: {
          kind: 'CRON',
          expression: `${times('5', 120)} ${times('3', 120)} * * *`,
          timezone: 'Europe/Riga',
        },
        count: 10,
      }),
      create: a('POST', '/v1/schedules', { timing: riga(REVIEW_RULE), target: job }),
      words: [
        interpretA(`every day at ${times('03:05', 140)}`),
        interpretA(`on the ${times('1st', 240)} of every month at 03:05`),
        interpretA(`on the ${times('first Monday', 70)} of every month at 03:05`),
      ],
    };
    let attacking = true;
    const answered = Promise.all([
      Promise.all(attack.reads),
      attack.list,
      Promise.all(attack.previews),
      attack.cron,
      attack.create,
      Promise.all(attack.words),
    ]).finally(() => {
      attacking = false;
    });
    const during = [];
    while (attacking || during.length < 3) during.push(await probeB());
    const [reads, list, previews, cron, create, words] = await answered;
    const peakRss = procStats(pid).peakRssBytes;

    // A's stored schedule is read as stored, said in the words of its distinct values.
    const storedWords = explainSpec({ timing: DISTINCT });
    expect(storedWords).toBe(
      'every day at 03:05 in Europe/Riga; 03:05 on spring-forward days runs at 04:05; 03:05 on fall-back days runs once, at the first',
    );
    for (const read of reads) {
      expect(read.status).toBe(200);
      const schedule = read.body.schedule ?? read.body; // describe wraps the schedule
      expect(schedule).toMatchObject({
        schedule_id: STORED_ID,
        timing: riga(DST_RULE),
        explanation: storedWords,
      });
    }
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({ schedule_id: STORED_ID, explanation: storedWords }),
    ]);
    // What enters with repeats is refused, naming the part.
    expectRepeat422(previews[0]!, 'timing.rule', 'BYHOUR repeats 2');
    expectRepeat422(previews[1]!, 'timing.rule', 'BYHOUR repeats 2');
    expectRepeat422(previews[2]!, 'timing.rule', 'BYHOUR repeats 3');
    expectRepeat422(previews[3]!, 'timing.rule', 'BYHOUR repeats 3');
    expectRepeat422(cron, 'timing.expression', 'minute repeats 5');
    expectRepeat422(create, 'timing.rule', 'BYHOUR repeats 2');
    // Words said again are read once.
    expect(words.map((w) => [w.status, w.body.timing?.rule])).toEqual([
      [200, 'FREQ=DAILY;BYHOUR=3;BYMINUTE=5;BYSECOND=0'],
      [200, 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=3;BYMINUTE=5;BYSECOND=0'],
      [200, 'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=3;BYMINUTE=5;BYSECOND=0'],
    ]);

    // B was answered throughout, within room of its own baseline; the process's memory stayed near its start.
    const worst = {
      healthMs: Math.max(...during.map((p) => p.healthMs)),
      readMs: Math.max(...during.map((p) => p.readMs)),
    };
    const bounds = {
      healthMs: SLACK.factor * baseHealthMs + SLACK.healthMs,
      readMs: SLACK.factor * baseReadMs + SLACK.readMs,
    };
    expect(worst.healthMs, JSON.stringify({ worst, bounds, probes: during.length })).toBeLessThanOrEqual(
      bounds.healthMs,
    );
    expect(worst.readMs, JSON.stringify({ worst, bounds, probes: during.length })).toBeLessThanOrEqual(
      bounds.readMs,
    );
    expect(peakRss - startRss, `peak ${peakRss} start ${startRss}`).toBeLessThanOrEqual(MEMORY_SLACK_BYTES);
  });

  it('an edit that leaves the stored rule alone is taken; one that brings repeats is refused', async () => {
    const current = await api.call('GET', `/v1/schedules/${STORED_ID}`, { key: KEY_A });
    const version = current.body.version;
    const refused = await api.call('PATCH', `/v1/schedules/${STORED_ID}`, {
      key: KEY_A,
      body: { expected_version: version, timing: riga('FREQ=DAILY;BYHOUR=4;BYMINUTE=5,5') },
    });
    expectRepeat422(refused, 'timing.rule', 'BYMINUTE repeats 5');
    const edited = await api.call('PATCH', `/v1/schedules/${STORED_ID}`, {
      key: KEY_A,
      body: { expected_version: version, overlap: 'SKIP' },
    });
    expect(edited.status, JSON.stringify(edited.body).slice(0, 300)).toBe(200);
    expect(edited.body).toMatchObject({
      version: version + 1,
      overlap: 'SKIP',
      timing: riga(DST_RULE),
      explanation: explainSpec({ timing: DISTINCT }),
    });
  });
});
