// Words → timing over the real HTTP API (real dev server, real worker, the API's calendar pool with its
// threads, the real reader of src/calendar/words): POST /v1/interpret's 200 and its three 422s, 401 without
// a key, a read of the tenant's rate limit, no 5xx for hostile text; and the audit trail of a schedule made
// from words: `authored_from` stored with the structured rule and returned by GET, describe and list, each
// with the rule's `explanation`. The sentences and what they mean are docs/words.md's. Every answer is
// checked against the served OpenAPI document by the harness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const KEY = 'key-words-ops-0123456789abcdef';
// A Tuesday, 10:00 UTC (12:00 in Riga).
const NOW = '2026-12-01T10:00:00Z';
const PROBLEM = /^application\/problem\+json/;

let api: ApiStack;
beforeAll(async () => {
  api = await startApiStack('http-interpret', { keys: `${KEY}=acme:ops` });
});
afterAll(async () => {
  await api?.stop();
});

const interpret = (body: Record<string, unknown>, key: string | null = KEY) =>
  api.call('POST', '/v1/interpret', { key, body });

/** The local wall clock (HH:MM) and ISO weekday of a next run's `local`. */
const wallClock = (local: string) => local.slice(11, 16);
const weekday = (local: string) => new Date(local.slice(0, 10)).getUTCDay();

describe('POST /v1/interpret', () => {
  it('200: "every 10 minutes" is an INTERVAL of PT10M, with its explanation and next runs', async () => {
    const answer = await interpret({ text: 'every 10 minutes', now: NOW, count: 3 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({
      text: 'every 10 minutes',
      language: 'en',
      timing: { kind: 'INTERVAL', every: 'PT10M' },
    });
    expect(answer.body.explanation).toEqual(expect.any(String));
    expect(answer.body.explanation.length).toBeGreaterThan(0);
    expect(answer.body.next_runs).toHaveLength(3);
    const gaps = answer.body.next_runs
      .slice(1)
      .map(
        (r: { fire_at: string }, i: number) =>
          Date.parse(r.fire_at) - Date.parse(answer.body.next_runs[i].fire_at),
      );
    expect(gaps).toEqual([600_000, 600_000]);
  });

  it('200: "every weekday at 09:00 in Europe/Riga" fires at 09:00 Riga time, Monday to Friday', async () => {
    const answer = await interpret({ text: 'every weekday at 09:00 in Europe/Riga', now: NOW, count: 6 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const zone = answer.body.timing.timezone ?? answer.body.timezone;
    expect(zone).toBe('Europe/Riga');
    const locals = answer.body.next_runs.map((r: { local: string }) => r.local);
    expect(locals[0]).toBe('2026-12-02T09:00:00+02:00');
    for (const local of locals) {
      expect(wallClock(local)).toBe('09:00');
      expect([1, 2, 3, 4, 5]).toContain(weekday(local));
    }
    // The same words, the same answer: the reading is deterministic.
    expect(
      (await interpret({ text: 'every weekday at 09:00 in Europe/Riga', now: NOW, count: 6 })).body,
    ).toEqual(answer.body);
  });

  it('422 AMBIGUOUS: "every day at 5" reads as 05:00 and as 17:00, each a full reading', async () => {
    const answer = await interpret({ text: 'every day at 5', timezone: 'Europe/Riga', now: NOW, count: 2 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.headers.get('content-type')).toMatch(PROBLEM);
    expect(answer.body).toMatchObject({
      type: '/problems/unprocessable',
      status: 422,
      code: 'AMBIGUOUS',
      field: 'text',
      instance: '/v1/interpret',
    });
    expect(answer.body.detail).toMatch(/^text: /);
    const hours = answer.body.readings.map((r: { next_runs: Array<{ local: string }> }) =>
      wallClock(r.next_runs[0]!.local),
    );
    expect(hours.sort()).toEqual(['05:00', '17:00']);
    for (const reading of answer.body.readings) {
      expect(reading.explanation).toEqual(expect.any(String));
      expect(reading.timing.kind).toEqual(expect.any(String));
    }
  });

  it('422 UNREADABLE: "blorf gleep" names each word and its offset', async () => {
    const answer = await interpret({ text: 'blorf gleep', now: NOW });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body).toMatchObject({ code: 'UNREADABLE', field: 'text' });
    expect(answer.body.unread).toEqual(
      expect.arrayContaining([
        { word: 'blorf', offset: 0 },
        { word: 'gleep', offset: 6 },
      ]),
    );
    expect(answer.body.readings).toBeUndefined();
  });

  it('422 ZONE_REQUIRED: "every day at 09:00" with no zone names `timezone`; with one it reads', async () => {
    const answer = await interpret({ text: 'every day at 09:00', now: NOW });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body).toMatchObject({ code: 'ZONE_REQUIRED', field: 'timezone' });
    const zoned = await interpret({ text: 'every day at 09:00', timezone: 'Asia/Tokyo', now: NOW, count: 1 });
    expect(zoned.status, JSON.stringify(zoned.body)).toBe(200);
    expect(zoned.body.next_runs[0].local).toBe('2026-12-02T09:00:00+09:00');
  });

  it('422 REGION_REQUIRED: business days in a zone no single country has name `region`; with one they read, holidays and all', async () => {
    const text = 'on the first business day of the month at 09:00';
    const answer = await interpret({ text, timezone: 'UTC', now: NOW });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body).toMatchObject({ code: 'REGION_REQUIRED', field: 'region' });
    const bad = await interpret({ text, timezone: 'UTC', region: 'latvia', now: NOW });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('region');
    const lv = await interpret({ text, timezone: 'Europe/Riga', region: 'LV', now: NOW, count: 2 });
    expect(lv.status, JSON.stringify(lv.body)).toBe(200);
    expect(lv.body).toMatchObject({
      timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: 'Europe/Riga' },
      business_days: { region: 'LV' },
    });
    // 1 January 2027 is New Year's Day (a Friday): January's first business day is Monday the 4th
    expect(lv.body.next_runs.map((r: { local: string }) => r.local)).toEqual([
      '2027-01-04T09:00:00+02:00',
      '2027-02-01T09:00:00+02:00',
    ]);
  });

  it('401 without a key or with an unknown one; 400 for a malformed request', async () => {
    for (const key of [null, 'key-nobody-0123456789abcdef']) {
      const answer = await interpret({ text: 'every 10 minutes' }, key);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    expect((await interpret({ text: '' })).status).toBe(400);
    expect((await interpret({ text: 'x'.repeat(1001) })).status).toBe(400);
    expect((await interpret({ text: 'every 10 minutes', count: 101 })).status).toBe(400);
    expect((await interpret({ text: 'every 10 minutes', now: 'tomorrow' })).status).toBe(400);
  });

  it('costs one unit of the tenant rate limit, like a preview', async () => {
    const first = await interpret({ text: 'every 10 minutes', now: NOW });
    const second = await interpret({ text: 'blorf', now: NOW });
    const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));
    expect(remaining(first) - remaining(second)).toBe(1);
  });

  it('hostile text is a 200, a 4xx problem, never a 5xx', async () => {
    const texts = [
      '\u0000\u0001\u0002\u001b[31m every \u007f 10 minutes',
      'every 99999999999999999999999999 minutes',
      'in 1e308 days',
      'every 0 minutes',
      'at 99:99 every day in Europe/Riga',
      'каждые 10 минут 🕐 ‮ every',
      '𝕖𝕧𝕖𝕣𝕪 𝕕𝕒𝕪',
      'every '.repeat(166),
      `${'a'.repeat(999)}b`,
      'every day at 09:00 in Mars/Olympus',
      'on 31 February 2027 at 10:00 in Europe/Riga',
      'FREQ=SECONDLY;BYSETPOS=1;COUNT=999999999',
      'cron 61 25 * * *',
      'until 1 March 1000',
      '5/9 at 10:00 in Europe/Riga',
      '\ud800 lone surrogate every day',
    ];
    for (const text of texts) {
      for (const extra of [{}, { timezone: 'Europe/Riga' }, { timezone: 'Nowhere/Zone' }]) {
        const answer = await interpret({ text, now: NOW, ...extra });
        expect(answer.status, `${JSON.stringify(text)} ${JSON.stringify(extra)}`).toBeLessThan(500);
        if (answer.status !== 200) expect(answer.headers.get('content-type')).toMatch(PROBLEM);
      }
    }
  });
});

describe('a schedule made from words keeps them for audit and says its rule in words', () => {
  const ID = 'from-words';

  it('create with authored_from; GET, describe and list return it with the rule in words', async () => {
    const text = 'every weekday at 09:00 in Europe/Riga';
    const timing = { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' };
    const created = await api.call('POST', '/v1/schedules', {
      key: KEY,
      body: {
        schedule_id: ID,
        timing,
        target: { type: 'JOB', job_type: 'recordedJob' },
        authored_from: text,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ authored_from: text, timing });
    // Data only: the workflow keeps it with the definition it runs, and answers it back.
    const got = await api.call('GET', `/v1/schedules/${ID}`, { key: KEY });
    expect(got.body).toMatchObject({ authored_from: text, timing });
    const described = await api.call('GET', `/v1/schedules/${ID}/describe`, { key: KEY });
    expect(described.body.schedule).toMatchObject({ authored_from: text });
    const listed = await eventually(
      'the schedule to be listed',
      async () => {
        const page = await api.call('GET', '/v1/schedules', { key: KEY });
        return page.body.items.find((s: { schedule_id: string }) => s.schedule_id === ID);
      },
      20_000,
    );
    expect(listed).toMatchObject({ authored_from: text });

    // The explanation: what the explainer says of the stored rule, the one a preview of it answers.
    const preview = await api.call('POST', '/v1/preview', { key: KEY, body: { timing, count: 1 } });
    expect(preview.body.explanation).toEqual(expect.any(String));
    for (const schedule of [created.body, got.body, described.body.schedule, listed]) {
      expect(schedule.explanation).toBe(preview.body.explanation);
    }
    // And reading it back gives a timing with the same runs (docs/words.md "Rule → words").
    const reread = await interpret({ text: preview.body.explanation, now: NOW, count: 5 });
    expect(reread.status, JSON.stringify(reread.body)).toBe(200);
    const again = await api.call('POST', '/v1/preview', { key: KEY, body: { timing, from: NOW, count: 5 } });
    expect(reread.body.next_runs.map((r: { fire_at: string }) => r.fire_at)).toEqual(
      again.body.runs.map((r: { fire_at: string }) => r.fire_at),
    );
  });

  it('the explanation is not part of a definition: sent back, it is refused naming what makes it', async () => {
    const got = await api.call('GET', `/v1/schedules/${ID}`, { key: KEY });
    const refused = await api.call('POST', '/v1/schedules', {
      key: KEY,
      body: { schedule_id: ID, timing: got.body.timing, target: got.body.target, explanation: 'x' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('explanation');
    expect(refused.body.detail).toContain('generated from the timing');
  });

  it('a PATCH of the timing without new words clears authored_from; one with words keeps them', async () => {
    const other = { kind: 'CRON', expression: '30 8 * * 1-5', timezone: 'Europe/Riga' };
    const patched = await api.call('PATCH', `/v1/schedules/${ID}`, {
      key: KEY,
      body: { expected_version: 1, timing: other },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.authored_from).toBeUndefined();
    const worded = await api.call('PATCH', `/v1/schedules/${ID}`, {
      key: KEY,
      body: { expected_version: 2, timing: other, authored_from: 'every weekday at 08:30 in Europe/Riga' },
    });
    expect(worded.body).toMatchObject({ version: 3, authored_from: 'every weekday at 08:30 in Europe/Riga' });
    // A change of something the words do not say (a policy) keeps them.
    const policy = await api.call('PATCH', `/v1/schedules/${ID}`, {
      key: KEY,
      body: { expected_version: 3, overlap: 'SKIP' },
    });
    expect(policy.body).toMatchObject({ version: 4, authored_from: 'every weekday at 08:30 in Europe/Riga' });
    expect((await api.call('GET', `/v1/schedules/${ID}`, { key: KEY })).body.authored_from).toBe(
      'every weekday at 08:30 in Europe/Riga',
    );
  });

  it('POST /v1/preview says the timing in words too', async () => {
    const preview = await api.call('POST', '/v1/preview', {
      key: KEY,
      body: { timing: { kind: 'INTERVAL', every: 'PT10M' }, count: 2 },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.runs).toHaveLength(2);
    expect(preview.body.explanation).toEqual(expect.any(String));
  });
});
