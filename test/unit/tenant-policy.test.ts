// The tenant policy (SCHEDULER_TENANTS_FILE) as a hostile tenant and a tired operator meet it: what each
// target field may name, how a sink URL is matched, which addresses need an explicit opt-in, and what a bad
// file says.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../src/model/contracts.js';
import { TenantPolicy, TenantPolicyError } from '../../src/model/tenant-policy.js';
import { loadTenantPolicy } from '../../src/runtime/tenant-policy-file.js';

const context = { schedulerTaskQueue: 'durable-scheduler', defaultJobTaskQueue: 'jobs' };
const policy = TenantPolicy.fromTenants({
  acme: {
    job_task_queues: ['acme-jobs', 'acme-batch-*'],
    job_types: ['report.*', 'source.sync'],
    signal_workflow_ids: ['acme-orders/*'],
    event_sinks: [
      'https://hooks.acme.example/',
      'http://127.0.0.1:9999/',
      'https://a.example/hooks',
      { url: 'http://sink.internal:8080/', private: true },
    ],
  },
  globex: { job_task_queues: ['globex-jobs'], job_types: ['chargeCustomer'] },
});
const check = (target: Target, tenant = 'acme') => policy.check(tenant, target, context);
const job = (job_type: string, task_queue?: string): Target => ({
  type: 'JOB',
  job_type,
  ...(task_queue ? { task_queue } : {}),
});
const sink = (sink_url: string): Target => ({ type: 'EVENT', event_type: 'x', sink_url });

describe('tenant policy: JOB targets', () => {
  it('admits exact names and prefixes ending in *', () => {
    expect(check(job('report.daily', 'acme-jobs'))).toEqual({ allowed: true, sinkMayBePrivate: false });
    expect(check(job('source.sync', 'acme-batch-7'))).toMatchObject({ allowed: true });
  });

  it("refuses another tenant's job type, naming the field and the entry that would allow it", () => {
    expect(check(job('chargeCustomer', 'acme-jobs'))).toEqual({
      allowed: false,
      field: 'target.job_type',
      reason: expect.stringMatching(
        /chargeCustomer is not among this tenant's job types \(report\.\*, source\.sync\).*tenants\.acme\.job_types/,
      ),
    });
    expect(check(job('source.sync.evil', 'acme-jobs'))).toMatchObject({ field: 'target.job_type' });
    expect(check(job('report', 'acme-jobs'))).toMatchObject({ field: 'target.job_type' });
  });

  it("refuses another tenant's queue and the shared default queue", () => {
    expect(check(job('report.x', 'globex-jobs'))).toMatchObject({
      allowed: false,
      field: 'target.task_queue',
      reason: expect.stringMatching(/task queue globex-jobs .*tenants\.acme\.job_task_queues/),
    });
    // No task_queue: the default queue the schedule was given must be allowed too.
    expect(check(job('report.x'))).toMatchObject({
      allowed: false,
      field: 'target.task_queue',
      reason: expect.stringMatching(/the default task queue jobs/),
    });
  });

  it("defaults a tenant's JOBs to its first exact queue, else to the deployment's", () => {
    expect(policy.defaultJobTaskQueue('acme', 'jobs')).toBe('acme-jobs');
    expect(
      TenantPolicy.fromTenants({ t: { job_task_queues: ['t-*'] } }).defaultJobTaskQueue('t', 'jobs'),
    ).toBe('jobs');
    expect(policy.defaultJobTaskQueue('nobody', 'jobs')).toBe('jobs');
  });

  it("refuses the scheduler's own queue even under an open policy", () => {
    expect(TenantPolicy.openToAll().check('acme', job('x', 'durable-scheduler'), context)).toMatchObject({
      allowed: false,
      field: 'target.task_queue',
    });
  });
});

describe('tenant policy: WORKFLOW_SIGNAL targets', () => {
  const signal = (workflow_id: string, start?: { workflow_type: string; task_queue: string }): Target => ({
    type: 'WORKFLOW_SIGNAL',
    workflow_id,
    signal_name: 'approve',
    ...(start ? { start } : {}),
  });

  it("admits the tenant's own workflows and refuses every other", () => {
    expect(check(signal('acme-orders/123'))).toMatchObject({ allowed: true });
    expect(check(signal('order-123'))).toMatchObject({ allowed: false, field: 'target.workflow_id' });
    expect(check(signal('acme-orders'))).toMatchObject({ allowed: false, field: 'target.workflow_id' });
    expect(check(signal('temporal-sys-scheduler:nightly'))).toMatchObject({ allowed: false });
  });

  it('checks a signal-with-start like a JOB: its workflow type and queue', () => {
    expect(
      check(signal('acme-orders/1', { workflow_type: 'report.x', task_queue: 'acme-jobs' })),
    ).toMatchObject({
      allowed: true,
    });
    expect(check(signal('acme-orders/1', { workflow_type: 'evil', task_queue: 'acme-jobs' }))).toMatchObject({
      field: 'target.start.workflow_type',
    });
    expect(
      check(signal('acme-orders/1', { workflow_type: 'report.x', task_queue: 'globex-jobs' })),
    ).toMatchObject({ field: 'target.start.task_queue' });
  });

  it.each([
    'schedule/acme/sibling',
    'schedule/globex/theirs',
    'occurrence/acme/sibling/2026-01-01T00:00:00.000Z',
    'scheduler-owner-registry',
  ])('never admits a scheduler workflow (%s), not even under an open policy', (id) => {
    for (const p of [policy, TenantPolicy.openToAll()]) {
      expect(p.check('acme', signal(id), context)).toMatchObject({
        allowed: false,
        field: 'target.workflow_id',
        reason: expect.stringMatching(/scheduler workflow/),
      });
    }
    // A policy pattern that happens to cover it changes nothing.
    const careless = TenantPolicy.fromTenants({ acme: { signal_workflow_ids: ['*'] } });
    expect(careless.check('acme', signal(id), context)).toMatchObject({ allowed: false });
  });
});

describe('tenant policy: EVENT sinks', () => {
  it.each([
    'https://hooks.acme.example/x',
    'HTTPS://Hooks.Acme.Example:443/x/y?tenant=acme',
    'https://a.example/hooks',
    'https://a.example/hooks/',
    'https://a.example/hooks/deep/er',
    'https://a.example/hooks?tenant=acme',
    'https://a.example/hooks#frag',
  ])('admits %s', (url) => {
    expect(check(sink(url))).toEqual({ allowed: true, sinkMayBePrivate: false });
  });

  it.each([
    'https://hooks.acme.example.evil.com/x',
    'https://evil.com/https://hooks.acme.example/',
    'http://hooks.acme.example/x',
    'https://hooks.acme.example:8443/x',
    'https://a.example/hooks-evil',
    'https://a.example/hooksevil',
    'https://a.example/hooks/../admin',
    'https://a.example/',
    'http://127.0.0.1:9998/',
  ])('refuses %s, naming the allowed prefixes', (url) => {
    expect(check(sink(url))).toEqual({
      allowed: false,
      field: 'target.sink_url',
      reason: expect.stringMatching(
        /not under one of this tenant's sink prefixes \(https:\/\/hooks\.acme\.example\/, /,
      ),
    });
  });

  it('refuses credentials (the host-in-userinfo trick too) and encoded separators', () => {
    for (const url of ['https://hooks.acme.example@evil.com/x', 'https://u:p@hooks.acme.example/x'])
      expect(check(sink(url))).toMatchObject({ allowed: false, reason: /user name or password/ });
    for (const url of ['https://a.example/hooks/..%2fadmin', 'https://a.example/hooks/%2E%2E%5Cadmin'])
      expect(check(sink(url))).toMatchObject({ allowed: false, reason: /encoded/ });
    expect(check(sink('ftp://hooks.acme.example/x'))).toMatchObject({
      allowed: false,
      reason: /http or https/,
    });
  });

  it('opts an address in only by naming it (an IP literal) or by an entry marked private', () => {
    // The IP-literal entry: that address, private or not.
    expect(check(sink('http://127.0.0.1:9999/events'))).toEqual({ allowed: true, sinkMayBePrivate: true });
    // A marked hostname entry: the worker may connect to a private address it resolves to.
    expect(check(sink('http://sink.internal:8080/in'))).toEqual({ allowed: true, sinkMayBePrivate: true });
    // A plain hostname entry: the worker refuses a private address at connect time.
    expect(check(sink('https://hooks.acme.example/in'))).toEqual({ allowed: true, sinkMayBePrivate: false });
  });

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://10.0.0.5:9200/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://[fd00::1]/', 'private'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://0.0.0.0/', 'unspecified'],
  ])('under a "*" entry, refuses the non-public address %s (%s)', (url, range) => {
    const any = TenantPolicy.fromTenants({ acme: { event_sinks: ['*'] } });
    expect(any.check('acme', sink(url), context)).toEqual({
      allowed: false,
      field: 'target.sink_url',
      reason: expect.stringContaining(`on a ${range} address`),
    });
    expect(any.check('acme', sink('https://93.184.216.34/x'), context)).toMatchObject({ allowed: true });
  });
});

describe('tenant policy: deny by default', () => {
  it('a tenant without an entry reaches nothing, and the reason tells the operator what to add', () => {
    for (const target of [job('report.x', 'acme-jobs'), sink('https://hooks.acme.example/')]) {
      expect(policy.check('initech', target, context)).toMatchObject({
        allowed: false,
        reason: expect.stringMatching(/tenant initech has no entry .*"tenants\.initech"/),
      });
    }
    expect(TenantPolicy.fromTenants({}).check('acme', job('x', 'q'), context)).toMatchObject({
      allowed: false,
      field: 'target.job_type',
    });
  });

  it('an entry with empty lists reaches nothing', () => {
    const empty = TenantPolicy.fromTenants({ acme: {} });
    expect(empty.check('acme', job('x', 'q'), context)).toMatchObject({ allowed: false });
    expect(empty.check('acme', sink('https://a.example/'), context)).toMatchObject({ allowed: false });
  });

  it('the development policy opens the development tenant only', () => {
    const dev = TenantPolicy.openFor(['dev']);
    expect(dev.check('dev', sink('http://127.0.0.1:9999/'), context)).toEqual({
      allowed: true,
      sinkMayBePrivate: true,
    });
    expect(dev.check('dev', job('anything', 'any-queue'), context)).toMatchObject({ allowed: true });
    expect(dev.check('acme', job('anything', 'any-queue'), context)).toMatchObject({ allowed: false });
  });
});

describe('tenant policy file', () => {
  it.each([
    ['not json', /is not JSON/],
    ['{}', /\(top level\)|tenants/],
    ['{"tenants": {"acme": {"job_types": "report.*"}}}', /tenants\.acme\.job_types/],
    ['{"tenants": {"acme": {"job_typez": []}}}', /tenants\.acme/],
    ['{"tenants": {"acme": {"job_types": ["re*port"]}}}', /tenants\.acme\.job_types\.0: .*last character/],
    ['{"tenants": {"ac/me": {}}}', /tenants/],
    ['{"tenants": {"acme": {"event_sinks": ["hooks.acme.example/"]}}}', /tenants\.acme\.event_sinks\.0/],
    ['{"tenants": {"acme": {"event_sinks": ["https://a.example/?token=1"]}}}', /query/],
    [
      '{"tenants": {"acme": {"event_sinks": [{"url": "https://a.example/", "privat": true}]}}}',
      /event_sinks/,
    ],
  ])('refuses %s, naming the tenant and field', (text, message) => {
    expect(() => TenantPolicy.parse(text, 'tenants.json')).toThrow(TenantPolicyError);
    expect(() => TenantPolicy.parse(text, 'tenants.json')).toThrow(message);
  });

  it('reads the README example', () => {
    const parsed = TenantPolicy.parse(
      JSON.stringify({
        tenants: {
          acme: {
            job_task_queues: ['acme-jobs'],
            job_types: ['report.*', 'source.sync'],
            signal_workflow_ids: ['acme-orders/*'],
            event_sinks: ['https://hooks.acme.example/', 'http://127.0.0.1:9999/'],
          },
        },
      }),
    );
    expect(parsed.tenantIds()).toEqual(['acme']);
    expect(parsed.describe()).toMatch(/1 tenant \(acme\)/);
  });
});

describe("tenant policy: what a tenant reads never names the server's file", () => {
  it('refusals at the API (403 detail) and at hand-off (occurrence reason) say "the tenant policy", the log says the path', () => {
    // The policy as a worker or the API has it: read from SCHEDULER_TENANTS_FILE by the runtime.
    const dir = mkdtempSync(join(tmpdir(), 'scheduler-secret-layout-'));
    const file = join(dir, 'tenants.json');
    writeFileSync(
      file,
      JSON.stringify({
        tenants: {
          acme: {
            job_task_queues: ['acme-jobs'],
            job_types: ['report.*'],
            signal_workflow_ids: ['acme-orders/*'],
            event_sinks: ['https://hooks.acme.example/'],
          },
        },
      }),
    );
    const logged: string[] = [];
    const source = loadTenantPolicy({ file, development: false, log: (line) => logged.push(line) });
    try {
      const signal = (
        workflow_id: string,
        start?: { workflow_type: string; task_queue: string },
      ): Target => ({
        type: 'WORKFLOW_SIGNAL',
        workflow_id,
        signal_name: 's',
        ...(start ? { start } : {}),
      });
      const refusals: Array<[string, Target]> = [
        ['acme', job('chargeCustomer', 'acme-jobs')],
        ['acme', job('report.x', 'globex-jobs')],
        ['acme', job('report.x')],
        ['acme', signal('order-1')],
        ['acme', signal('acme-orders/1', { workflow_type: 'chargeCustomer', task_queue: 'acme-jobs' })],
        ['acme', sink('https://evil.example/')],
        ['acme', sink('http://10.0.0.5/')],
        ['initech', job('report.x', 'acme-jobs')],
        ['initech', sink('https://hooks.acme.example/')],
      ];
      const reasons = refusals.map(([tenant, target]) => {
        const verdict = source.current().check(tenant, target, context);
        expect(verdict.allowed, JSON.stringify(target)).toBe(false);
        return (verdict as { reason: string }).reason;
      });
      for (const reason of reasons) {
        expect(reason).not.toContain(dir);
        expect(reason).not.toContain('tenants.json');
        expect(reason).not.toContain('SCHEDULER_TENANTS_FILE');
        expect(reason).toMatch(/the tenant policy|scheduler's own|scheduler workflow/);
      }
      expect(reasons).toContain(
        "workflow type chargeCustomer is not among this tenant's job types (report.*): the operator adds it to tenants.acme.job_types in the tenant policy",
      );
      expect(reasons).toContain(
        'tenant initech has no entry in the tenant policy, so its schedules reach no target: the operator adds "tenants.initech"',
      );
      // The operator's start-up line keeps where the policy came from.
      expect(source.describe()).toContain(file);
    } finally {
      source.close();
    }
  });
});
