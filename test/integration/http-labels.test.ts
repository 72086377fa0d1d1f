// Labels, label selectors, bulk operations and apply (issue 42) end to end: real dev server, real worker, real HTTP.
// What a user checks: a list by selector returns exactly the schedules whose labels it picks (its own
// tenant's only), a bulk pause pauses exactly those and nothing else, a dry run changes nothing, a relabel
// or a removal reaches the search attribute a list filters on, and the tenant pays for what it ordered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { LabelsKey } from '../../src/workflows/search-attributes.js';
import { hourHalfADayAway, TestClock } from '../helpers/clock.js';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const ACME = 'key-acme-alice-0123456789';
const GLOBEX = 'key-globex-gina-012345678';
const INITECH = 'key-initech-ivan-01234567';
const INITECH_BOB = 'key-initech-bob-012345678';
const KEYS = `${ACME}=acme:alice,${GLOBEX}=globex:gina,${INITECH}=initech:ivan,${INITECH_BOB}=initech:bob`;
const clock = new TestClock();

let api: ApiStack;

beforeAll(async () => {
  api = await startApiStack('http-labels', { keys: KEYS, rateLimitPerMinute: 100_000, now: clock.now });
});
afterAll(async () => {
  await api?.stop();
});

// Hourly from creation: nothing comes due while the file runs.
const definition = {
  timing: { kind: 'INTERVAL', every: 'PT1H' },
  target: { type: 'JOB', job_type: 'recordedJob' },
} as const;

const ACME_SCHEDULES: Record<string, Record<string, string> | undefined> = {
  'pay-prod': { team: 'payments', env: 'prod' },
  'pay-dev': { team: 'payments', env: 'dev' },
  'pay-any': { team: 'payments' },
  'ship-prod': { team: 'shipping', env: 'prod', 'example.com/tier': 'gold' },
  bare: undefined,
};

const idsOf = (items: Array<{ schedule_id: string }>) => items.map((s) => s.schedule_id).sort();

async function listed(selector: string, key = ACME): Promise<string[]> {
  const page = await api.call('GET', `/v1/schedules?limit=100&selector=${encodeURIComponent(selector)}`, {
    key,
  });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return idsOf(page.body.items);
}

/** Visibility trails a start or an upsert by about a second: the list once it shows `expected`. */
const listsEventually = (selector: string, expected: string[], key = ACME) =>
  eventually(
    `list by ${selector} is ${expected.join(', ')}`,
    async () => {
      const ids = await listed(selector, key);
      return JSON.stringify(ids) === JSON.stringify([...expected].sort()) ? ids : undefined;
    },
    20_000,
  );

const statusOf = async (id: string, key = ACME) =>
  (await api.call('GET', `/v1/schedules/${id}`, { key })).body.status as string;

const labelTokensOf = async (tenant: string, id: string) =>
  (
    await api.stack.client.workflow.getHandle(scheduleWorkflowId(tenant, id)).describe()
  ).typedSearchAttributes.get(LabelsKey);

describe('HTTP API: labels, selectors and bulk operations', () => {
  it('creates labelled schedules and lists them by selector, within the tenant only', async () => {
    for (const [id, labels] of Object.entries(ACME_SCHEDULES)) {
      const created = await api.call('POST', '/v1/schedules', {
        key: ACME,
        body: { schedule_id: id, ...definition, ...(labels ? { labels } : {}) },
      });
      expect(created.status).toBe(201);
      expect(created.body.labels).toEqual(labels);
    }
    // Another tenant's schedule with the same labels is never picked for acme.
    const theirs = await api.call('POST', '/v1/schedules', {
      key: GLOBEX,
      body: { schedule_id: 'pay-prod', ...definition, labels: { team: 'payments', env: 'prod' } },
    });
    expect(theirs.status).toBe(201);

    await listsEventually('team=payments', ['pay-prod', 'pay-dev', 'pay-any']);
    expect(await listed('team=payments,env!=dev')).toEqual(['pay-any', 'pay-prod']);
    expect(await listed('env in (prod, staging)')).toEqual(['pay-prod', 'ship-prod']);
    expect(await listed('!env')).toEqual(['bare', 'pay-any']);
    expect(await listed('team notin (payments)')).toEqual(['bare', 'ship-prod']);
    expect(await listed('example.com/tier=gold')).toEqual(['ship-prod']);
    expect(await listed('team=payments,env=dev')).toEqual(['pay-dev']);
    expect(await listed('team=marketing')).toEqual([]);
    await listsEventually('team=payments', ['pay-prod'], GLOBEX);

    // What a list filters on: the tokens, key and key=value, as the start set them.
    expect(await labelTokensOf('acme', 'pay-prod')).toEqual(['env', 'env=prod', 'team', 'team=payments']);
    expect(await labelTokensOf('acme', 'bare')).toBeUndefined();
  });

  it('refuses a selector or labels that do not parse, naming the field and where', async () => {
    const bad = await api.call('GET', `/v1/schedules?selector=${encodeURIComponent('team=payments,,')}`, {
      key: ACME,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('querystring.selector');
    expect(bad.body.detail).toMatch(/at character 15: a key is expected/);

    const injected = await api.call(
      'GET',
      `/v1/schedules?selector=${encodeURIComponent("team='x' OR 1=1")}`,
      {
        key: ACME,
      },
    );
    expect(injected.status).toBe(400);

    const labels = await api.call('POST', '/v1/schedules', {
      key: ACME,
      body: { schedule_id: 'bad-labels', ...definition, labels: { 'Team Name': 'x' } },
    });
    expect(labels.status).toBe(400);
    expect(labels.body.field).toBe('labels.Team Name');
  });

  it('pauses exactly the schedules a selector picks; a dry run changes nothing; the tenant is charged', async () => {
    const body = { action: 'pause', selector: 'team=payments,env!=dev', note: 'payments freeze' };
    const dry = await api.call('POST', '/v1/bulk', { key: ACME, body: { ...body, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ action: 'pause', dry_run: true, matched: 2 });
    expect(dry.body.results).toEqual([
      { schedule_id: 'pay-any', status_before: 'ACTIVE', outcome: 'WOULD_DO', reason: null },
      { schedule_id: 'pay-prod', status_before: 'ACTIVE', outcome: 'WOULD_DO', reason: null },
    ]);
    for (const id of Object.keys(ACME_SCHEDULES)) expect(await statusOf(id)).toBe('ACTIVE');

    // One window of the rate limit, held still: what the bulk pause costs shows in what remains.
    clock.hold();
    try {
      const remaining = async () =>
        Number(
          (await api.call('GET', '/v1/schedules/bare', { key: ACME })).headers.get('x-ratelimit-remaining'),
        );
      const before = await remaining();
      const paused = await api.call('POST', '/v1/bulk', { key: ACME, body });
      expect(paused.status).toBe(200);
      expect(paused.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(['DONE', 'DONE']);
      const after = await remaining();
      // The GET after (1), the bulk's own request (1), its reads (1 per 10) and a pause's cost for each (5).
      expect(before - after).toBe(1 + 1 + 1 + 2 * 5);
    } finally {
      clock.release();
    }

    await eventually(
      'both paused',
      async () =>
        ((await statusOf('pay-prod')) === 'PAUSED' && (await statusOf('pay-any')) === 'PAUSED') || undefined,
      10_000,
    );
    const described = await api.call('GET', '/v1/schedules/pay-prod', { key: ACME });
    expect(described.body.pause_note).toBe('payments freeze');
    for (const id of ['pay-dev', 'ship-prod', 'bare']) expect(await statusOf(id)).toBe('ACTIVE');
    expect(await statusOf('pay-prod', GLOBEX)).toBe('ACTIVE');

    const again = await api.call('POST', '/v1/bulk', { key: ACME, body });
    expect(again.body.results).toEqual([
      { schedule_id: 'pay-any', status_before: 'PAUSED', outcome: 'UNCHANGED', reason: 'already paused' },
      { schedule_id: 'pay-prod', status_before: 'PAUSED', outcome: 'UNCHANGED', reason: 'already paused' },
    ]);

    const resumed = await api.call('POST', '/v1/bulk', {
      key: ACME,
      body: { action: 'resume', selector: 'team=payments' },
    });
    expect(resumed.body.results).toEqual([
      { schedule_id: 'pay-any', status_before: 'PAUSED', outcome: 'DONE', reason: null },
      { schedule_id: 'pay-dev', status_before: 'ACTIVE', outcome: 'UNCHANGED', reason: 'already active' },
      { schedule_id: 'pay-prod', status_before: 'PAUSED', outcome: 'DONE', reason: null },
    ]);
    for (const id of ['pay-any', 'pay-prod']) expect(await statusOf(id)).toBe('ACTIVE');
  });

  it('refuses a bulk operation without a selector, or with an action it does not know', async () => {
    for (const body of [
      { action: 'pause', selector: '' },
      { action: 'pause', selector: '  ' },
      { action: 'pause' },
      { action: 'purge', selector: 'team=payments' },
    ]) {
      const refused = await api.call('POST', '/v1/bulk', { key: ACME, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    for (const id of Object.keys(ACME_SCHEDULES)) expect(await statusOf(id)).toBe('ACTIVE');
  });

  it('follows a relabel and a removal into what a list filters on', async () => {
    const read = await api.call('GET', '/v1/schedules/pay-dev', { key: ACME });
    const moved = await api.call('PATCH', '/v1/schedules/pay-dev', {
      key: ACME,
      body: { expected_version: read.body.version, labels: { team: 'payments', env: 'prod' } },
    });
    expect(moved.status).toBe(200);
    await listsEventually('env=prod', ['pay-dev', 'pay-prod', 'ship-prod']);
    expect(await labelTokensOf('acme', 'pay-dev')).toEqual(['env', 'env=prod', 'team', 'team=payments']);

    const cleared = await api.call('PATCH', '/v1/schedules/pay-dev', {
      key: ACME,
      body: { expected_version: moved.body.version, labels: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.labels).toBeUndefined();
    await eventually(
      'the labels attribute cleared',
      async () => (await labelTokensOf('acme', 'pay-dev')) === undefined || undefined,
      10_000,
    );
    await listsEventually('!team', ['bare', 'pay-dev']);
  });

  it('deletes by selector: the picked schedules leave the listing, the others stay', async () => {
    const deleted = await api.call('POST', '/v1/bulk', {
      key: ACME,
      body: { action: 'delete', selector: 'team=shipping', note: 'shipping moved out' },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body.results).toEqual([
      { schedule_id: 'ship-prod', status_before: 'ACTIVE', outcome: 'DONE', reason: null },
    ]);
    const gone = await api.call('GET', '/v1/schedules/ship-prod', { key: ACME });
    expect(gone.body.deleted_at).not.toBeNull();
    await listsEventually('env=prod', ['pay-prod']);
    // Deleted schedules are never picked again.
    const again = await api.call('POST', '/v1/bulk', {
      key: ACME,
      body: { action: 'delete', selector: 'team=shipping' },
    });
    expect(again.body).toMatchObject({ matched: 0, results: [] });
  });
});

// Schedules as code: a file of twenty schedules applied, applied again, edited, and pruned, as a team keeping
// its schedules in git would. Its own tenant, so the listings above and below never meet.
describe('HTTP API: apply', () => {
  const HOUR = hourHalfADayAway('Europe/Riga');
  const NEW_YORK = {
    timing: { kind: 'CRON', expression: `0 ${HOUR} * * 1-5`, timezone: 'America/New_York' },
  };
  const file = (overrides: Record<string, object> = {}, drop: string[] = []) =>
    Array.from({ length: 20 }, (_, i) => `app-${String(i + 1).padStart(2, '0')}`)
      .filter((id) => !drop.includes(id))
      .map((id, i) => ({
        contract: 'schedule.v1',
        schedule_id: id,
        labels: { 'managed-by': 'repo', team: i % 2 === 0 ? 'a' : 'b' },
        timing:
          i % 2 === 0
            ? { kind: 'CRON', expression: `0 ${HOUR} * * 1-5`, timezone: 'Europe/Riga' }
            : { kind: 'INTERVAL', every: 'PT1H' },
        target: { type: 'JOB', job_type: 'recordedJob' },
        ...overrides[id],
      }));
  const apply = (body: object, key = INITECH) => api.call('POST', '/v1/apply', { key, body });
  const actions = (changes: Array<{ schedule_id: string; action: string }>) =>
    Object.fromEntries(changes.map((c) => [c.schedule_id, c.action]));

  it('refuses a file with one bad document whole, naming the document and the field', async () => {
    const bad = file({
      'app-03': { timing: { kind: 'CRON', expression: '0 25 * * *', timezone: 'Europe/Riga' } },
    });
    const refused = await apply({ schedules: bad });
    // A rule the calendar refuses is a 422, as for a single create.
    expect(refused.status).toBe(422);
    expect(refused.body.field).toMatch(/schedules\.2\.timing\.expression$/);
    expect((await api.call('GET', '/v1/schedules/app-01', { key: INITECH })).status).toBe(404);
  });

  it('plans twenty creates, applies them, and applying the same file again changes nothing', async () => {
    const dry = await apply({ schedules: file(), dry_run: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.changes).toHaveLength(20);
    for (const c of dry.body.changes) {
      expect(c).toMatchObject({ action: 'CREATE', outcome: 'PLANNED', version: null, next_runs_before: [] });
      expect(c.next_runs_after).toHaveLength(3);
    }
    expect((await api.call('GET', '/v1/schedules/app-01', { key: INITECH })).status).toBe(404);

    const applied = await apply({ schedules: file() });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.changes.map((c: { outcome: string }) => c.outcome)).toEqual(
      Array(20).fill('APPLIED'),
    );
    await listsEventually(
      'managed-by=repo',
      file().map((d) => d.schedule_id),
      INITECH,
    );
    const first = await api.call('GET', '/v1/schedules/app-01', { key: INITECH });
    expect(first.body).toMatchObject({ version: 1, labels: { 'managed-by': 'repo', team: 'a' } });
    expect(first.body.applied_digest).toMatch(/^[0-9a-f]{64}$/);

    const again = await apply({ schedules: file() });
    expect(again.status).toBe(200);
    for (const c of again.body.changes)
      expect(c).toMatchObject({ action: 'UNCHANGED', outcome: 'NOTHING_TO_DO', version: 1 });
    expect((await api.call('GET', '/v1/schedules/app-01', { key: INITECH })).body.version).toBe(1);
  });

  it("shows a timezone edit's moved instants before applying it", async () => {
    const edited = file({ 'app-01': NEW_YORK });
    const dry = await apply({ schedules: edited, dry_run: true, preview_count: 5 });
    const change = dry.body.changes.find((c: { schedule_id: string }) => c.schedule_id === 'app-01');
    expect(change).toMatchObject({ action: 'UPDATE', version: 1, fields: ['timing'], outcome: 'PLANNED' });
    expect(change.next_runs_before).toHaveLength(5);
    expect(change.next_runs_after).toHaveLength(5);
    // The same wall-clock hour, in another zone: every instant moves by the zones' offsets (7 hours, or 6
    // for the weeks their DST changes differ).
    for (const [before, after] of change.next_runs_before.map((b: string, i: number) => [
      b,
      change.next_runs_after[i],
    ]))
      expect(Math.abs(Date.parse(after) - Date.parse(before)) % 86_400_000).toBeGreaterThan(0);
    for (const run of change.next_runs_after)
      expect(run).toMatch(new RegExp(`T${String(HOUR).padStart(2, '0')}:00:00-0[45]:00$`));
    for (const run of change.next_runs_before)
      expect(run).toMatch(new RegExp(`T${String(HOUR).padStart(2, '0')}:00:00\\+0[23]:00$`));
    expect(Object.values(actions(dry.body.changes)).filter((a) => a !== 'UNCHANGED')).toEqual(['UPDATE']);
    expect((await api.call('GET', '/v1/schedules/app-01', { key: INITECH })).body.version).toBe(1);

    const applied = await apply({ schedules: edited });
    expect(applied.status).toBe(200);
    const now = await api.call('GET', '/v1/schedules/app-01', { key: INITECH });
    expect(now.body).toMatchObject({ version: 2, timing: { timezone: 'America/New_York' } });
  });

  it('refuses to overwrite an edit made by other means since the last apply, unless forced', async () => {
    const read = await api.call('GET', '/v1/schedules/app-02', { key: INITECH_BOB });
    const patched = await api.call('PATCH', '/v1/schedules/app-02', {
      key: INITECH_BOB,
      body: { expected_version: read.body.version, max_lateness_s: 600 },
    });
    expect(patched.status).toBe(200);
    // The file also changes app-03: nothing of it may land while app-02 is a conflict.
    const next = file({ 'app-01': NEW_YORK, 'app-03': { misfire: 'SKIP' } });
    const refused = await apply({ schedules: next });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('VERSION_CONFLICT');
    expect(refused.body.detail).toMatch(
      /app-02: edited by other means since the last apply \(now version 2, by bob\)/,
    );
    expect((await api.call('GET', '/v1/schedules/app-03', { key: INITECH })).body.misfire).toBe('FIRE_ONCE');
    const dry = await apply({ schedules: next, dry_run: true });
    expect(actions(dry.body.changes)).toMatchObject({ 'app-02': 'CONFLICT', 'app-03': 'UPDATE' });

    const forced = await apply({ schedules: next, force: true });
    expect(forced.status).toBe(200);
    expect(actions(forced.body.changes)).toMatchObject({ 'app-02': 'UPDATE', 'app-03': 'UPDATE' });
    expect((await api.call('GET', '/v1/schedules/app-02', { key: INITECH })).body.max_lateness_s).toBe(60);
    expect((await api.call('GET', '/v1/schedules/app-03', { key: INITECH })).body.misfire).toBe('SKIP');
  });

  it('prunes by selector what the file no longer has: its own tenant, the selected schedules only', async () => {
    const keep = { 'app-01': NEW_YORK, 'app-03': { misfire: 'SKIP' } };
    const unmanaged = await api.call('POST', '/v1/schedules', {
      key: INITECH,
      body: { schedule_id: 'by-hand', ...definition, labels: { team: 'a' } },
    });
    expect(unmanaged.status).toBe(201);
    const elsewhere = await api.call('POST', '/v1/schedules', {
      key: ACME,
      body: { schedule_id: 'app-19', ...definition, labels: { 'managed-by': 'repo' } },
    });
    expect(elsewhere.status).toBe(201);

    const pruned = await apply({ schedules: file(keep, ['app-19', 'app-20']), prune: 'managed-by=repo' });
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    const deletes = pruned.body.changes.filter((c: { action: string }) => c.action === 'DELETE');
    expect(deletes.map((c: { schedule_id: string; outcome: string }) => [c.schedule_id, c.outcome])).toEqual([
      ['app-19', 'APPLIED'],
      ['app-20', 'APPLIED'],
    ]);
    expect((await api.call('GET', '/v1/schedules/app-20', { key: INITECH })).body.deleted_at).not.toBeNull();
    expect(await statusOf('by-hand', INITECH)).toBe('ACTIVE');
    expect(await statusOf('app-19', ACME)).toBe('ACTIVE');

    // A deleted schedule's ID is never reused: declaring it again is a conflict, not a silent no-op.
    const back = await apply({ schedules: file(keep, ['app-20']), dry_run: true });
    expect(actions(back.body.changes)['app-19']).toBe('CONFLICT');
  });
});
