// The `scheduler` CLI's connection settings, exit codes and one-line errors, without a server: `main` runs
// in-process with a fake `fetch` that answers what the API would (or fails as a network would).
import { describe, expect, it } from 'vitest';
import {
  ApiClient,
  ApiError,
  MissingKeyError,
  resolveConnection,
  UnavailableError,
} from '../../src/cli/connection.js';
import { apiErrorLine, EXIT, exitCodeForStatus, failure } from '../../src/cli/errors.js';
import { UsageError } from '../../src/cli/preview.js';
import { runCli } from '../helpers/cli.js';

const problem = (status: number, code: string, detail: string, field: string | null = null) => ({
  type: `/problems/${code.toLowerCase()}`,
  title: code,
  status,
  detail,
  code,
  field,
});

interface Call {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fake fetch answering each call with the next of `answers` (status + JSON body, or a thrown error). */
function fakeFetch(
  ...answers: Array<{ status: number; body?: unknown; headers?: Record<string, string> } | Error>
) {
  const calls: Call[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers: init?.headers as Record<string, string>,
      body: init?.body === undefined ? undefined : JSON.parse(init.body as string),
    });
    const answer = answers.shift();
    if (!answer) throw new Error('unexpected call');
    if (answer instanceof Error) throw answer;
    const text = answer.body === undefined ? null : JSON.stringify(answer.body);
    const type = answer.status >= 400 ? 'application/problem+json' : 'application/json';
    return new Response(text, {
      status: answer.status,
      headers: { ...(text ? { 'content-type': type } : {}), ...(answer.headers ?? {}) },
    });
  };
  return { calls, fetch: fetchImpl as typeof fetch };
}

function run(argv: string[], fetchImpl: typeof fetch, env: NodeJS.ProcessEnv = {}) {
  return runCli(argv, {
    env: { SCHEDULER_API_KEY: 'test-key', SCHEDULER_URL: 'https://api.test:8080', ...env },
    fetch: fetchImpl,
    readFile: async () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
    now: () => new Date('2026-11-30T12:00:00Z'),
  });
}

const schedule = {
  contract: 'schedule.v1',
  schedule_id: 'weekday-sync',
  tenant_id: 'dev',
  owner_ref: 'developer',
  status: 'ACTIVE',
  version: 1,
  timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
  target: { type: 'JOB', job_type: 'source.sync' },
  misfire: 'FIRE_ONCE',
  max_lateness_s: 60,
  catch_up_limit: 100,
  overlap: 'ALLOW',
  queue_limit: 10,
  next_run_at: '2026-12-01T07:00:00.000Z',
  last_run_at: null,
  created_at: '2026-11-30T12:00:00.000Z',
  updated_at: '2026-11-30T12:00:00.000Z',
  pause_note: null,
  owner_revoked_at: null,
  deleted_at: null,
};

describe('exit codes', () => {
  it.each([
    [400, EXIT.BAD_INPUT],
    [413, EXIT.BAD_INPUT],
    [415, EXIT.BAD_INPUT],
    [422, EXIT.BAD_INPUT],
    [404, EXIT.NOT_FOUND],
    [409, EXIT.CONFLICT],
    [503, EXIT.UNAVAILABLE],
    [502, EXIT.UNAVAILABLE],
    [504, EXIT.UNAVAILABLE],
    [401, EXIT.OTHER],
    [429, EXIT.OTHER],
    [500, EXIT.OTHER],
  ])('HTTP %i → exit %i', (status, code) => {
    expect(exitCodeForStatus(status)).toBe(code);
  });

  it('errors that never reached the server', () => {
    expect(failure(new UsageError('--timezone', 'is required')).exitCode).toBe(EXIT.BAD_INPUT);
    expect(failure(new UnavailableError('down')).exitCode).toBe(EXIT.UNAVAILABLE);
    expect(failure(new MissingKeyError('/x/dev-api-key'))).toEqual({
      exitCode: EXIT.OTHER,
      line: expect.stringMatching(
        /^error: no API key: set SCHEDULER_API_KEY or --api-key-file .*\/x\/dev-api-key/,
      ),
    });
    expect(failure(new Error('boom'))).toEqual({ exitCode: EXIT.OTHER, line: 'error: boom' });
  });
});

describe('problem details → one line', () => {
  it('error: <detail> (<code>, field <field>)', () => {
    const p = problem(
      422,
      'VALIDATION',
      'timing.timezone: unknown time zone "Europe/Rigaa"',
      'timing.timezone',
    );
    expect(apiErrorLine(new ApiError(422, p, JSON.stringify(p)))).toBe(
      'error: timing.timezone: unknown time zone "Europe/Rigaa" (VALIDATION, field timing.timezone)',
    );
    const q = problem(404, 'NOT_FOUND', 'no schedule nope');
    expect(apiErrorLine(new ApiError(404, q, ''))).toBe('error: no schedule nope (NOT_FOUND)');
  });

  it('401 carries a hint about SCHEDULER_API_KEY and where the key came from', () => {
    const p = problem(401, 'UNAUTHORIZED', 'the API key is not valid: check it, or ask the operator for one');
    const line = apiErrorLine(new ApiError(401, p, '', '/repo/.data/dev-api-key'));
    expect(line).toBe(
      'error: the API key is not valid: check it, or ask the operator for one (UNAUTHORIZED); hint: set SCHEDULER_API_KEY or --api-key to a key the server accepts (this one came from /repo/.data/dev-api-key)',
    );
  });

  it('a body that is not a problem (a proxy page) is still one line', () => {
    const line = apiErrorLine(new ApiError(502, undefined, '<html>\n<body>Bad gateway</body>\n</html>'));
    expect(line).toBe('error: the server answered HTTP 502: <html> <body>Bad gateway</body> </html>');
    expect(line.split('\n')).toHaveLength(1);
  });

  it('429 and 503 say when to retry', () => {
    const p = problem(503, 'UNAVAILABLE', 'Temporal did not answer in time');
    expect(apiErrorLine(new ApiError(503, p, '', undefined, '5'))).toBe(
      'error: Temporal did not answer in time (UNAVAILABLE); retry in 5 s',
    );
  });
});

describe('connection settings', () => {
  const noKeyFile = () => undefined;

  it('defaults: 127.0.0.1:8080 and the development key file of the checkout (or SCHEDULER_DATA_DIR)', () => {
    const seen: string[] = [];
    const conn = resolveConnection({}, {}, (path) => {
      seen.push(path);
      return 'dev_key';
    });
    expect(conn).toMatchObject({ url: 'http://127.0.0.1:8080', apiKey: 'dev_key', timeoutMs: 30_000 });
    expect(seen[0]).toMatch(/[/\\]\.data[/\\]dev-api-key$/);
    expect(conn.keySource).toBe(seen[0]);
    const data = resolveConnection({}, { SCHEDULER_DATA_DIR: '/srv/sched' }, () => 'k');
    expect(data.keyFile).toBe('/srv/sched/dev-api-key');
  });

  it('flags win over the environment, the environment over the key file', () => {
    const env = { SCHEDULER_URL: 'https://sched.example.com/', SCHEDULER_API_KEY: 'env-key' };
    expect(resolveConnection({}, env, () => 'file-key')).toMatchObject({
      url: 'https://sched.example.com',
      apiKey: 'env-key',
      keySource: 'SCHEDULER_API_KEY',
    });
    expect(
      resolveConnection({ url: 'http://other:9000/v1/', apiKey: 'flag-key', timeout: '500' }, env, noKeyFile),
    ).toMatchObject({ url: 'http://other:9000', apiKey: 'flag-key', keySource: '--api-key', timeoutMs: 500 });
    expect(resolveConnection({}, {}, noKeyFile).apiKey).toBeUndefined();
  });

  it.each([
    [{ url: 'localhost:8080' }, {}, /^--url: "localhost:8080" must be an http or https URL/],
    [{ url: 'not a url' }, {}, /^--url: "not a url" is not an absolute URL/],
    [{}, { SCHEDULER_URL: '::' }, /^SCHEDULER_URL: "::" is not an absolute URL/],
    [{ timeout: 'soon' }, {}, /^--timeout: "soon" must be a number of milliseconds/],
  ])('bad %j %j → %s', (flags, env, line) => {
    try {
      resolveConnection(flags, env, noKeyFile);
      throw new Error('expected a UsageError');
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect(`${(err as UsageError).field}: ${(err as UsageError).reason}`).toMatch(line);
    }
  });

  it('ApiClient sends the bearer key and JSON, and turns failures into typed errors', async () => {
    const f = fakeFetch({ status: 200, body: { ok: 1 } });
    const conn = resolveConnection({ url: 'http://h:1', apiKey: 'k' }, {}, noKeyFile);
    const res = await new ApiClient(conn, f.fetch).request('POST', '/v1/x', {
      body: { a: 1 },
      query: { limit: '5', cursor: undefined },
    });
    expect(res).toEqual({ status: 200, body: { ok: 1 } });
    expect(f.calls[0]).toMatchObject({
      method: 'POST',
      url: 'http://h:1/v1/x?limit=5',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: { a: 1 },
    });
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    await expect(new ApiClient(conn, fakeFetch(refused).fetch).request('GET', '/v1/x')).rejects.toThrow(
      /cannot reach the scheduler at http:\/\/h:1: connection refused/,
    );
    const timeout = Object.assign(new Error('aborted'), { name: 'TimeoutError' });
    await expect(new ApiClient(conn, fakeFetch(timeout).fetch).request('GET', '/v1/x')).rejects.toThrow(
      /no answer from http:\/\/h:1 within 30000 ms/,
    );
    const noKey = resolveConnection({ url: 'http://h:1' }, {}, noKeyFile);
    await expect(new ApiClient(noKey, fakeFetch().fetch).request('GET', '/v1/x')).rejects.toBeInstanceOf(
      MissingKeyError,
    );
  });
});

describe('main(argv) with a fake API', () => {
  it('get: prints the schedule; --json prints the API JSON', async () => {
    const table = await run(['get', 'weekday-sync'], fakeFetch({ status: 200, body: schedule }).fetch);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^schedule: +weekday-sync$/m);
    expect(table.stdout).toMatch(/^next run: +2026-12-01 09:00:00 \+02:00 \(2026-12-01T07:00:00.000Z\)$/m);
    const json = await run(
      ['get', 'weekday-sync', '--json'],
      fakeFetch({ status: 200, body: schedule }).fetch,
    );
    expect(JSON.parse(json.stdout)).toEqual(schedule);
    expect(json.stderr).toBe('');
  });

  it.each([
    [404, 'NOT_FOUND', 'no schedule nope', null, 3, 'error: no schedule nope (NOT_FOUND)'],
    [
      409,
      'VERSION_CONFLICT',
      'expected_version 1 but the schedule is at version 2: read it again and re-apply your change',
      'expected_version',
      4,
      'error: expected_version 1 but the schedule is at version 2: read it again and re-apply your change (VERSION_CONFLICT, field expected_version)',
    ],
    [
      422,
      'VALIDATION',
      'the schedule has no occurrence after now (expired)',
      'timing',
      2,
      'error: the schedule has no occurrence after now (expired) (VALIDATION, field timing)',
    ],
    [503, 'UNAVAILABLE', 'Temporal did not answer', null, 5, 'error: Temporal did not answer (UNAVAILABLE)'],
  ])('HTTP %i %s → one line on stderr, exit code', async (status, code, detail, field, exit, line) => {
    const r = await run(
      ['get', 'nope'],
      fakeFetch({ status, body: problem(status, code, detail, field) }).fetch,
    );
    expect(r).toEqual({ code: exit, stdout: '', stderr: `${line}\n` });
  });

  it('401 → exit 1 with the SCHEDULER_API_KEY hint', async () => {
    const r = await run(
      ['list'],
      fakeFetch({ status: 401, body: problem(401, 'UNAUTHORIZED', 'the API key is not valid') }).fetch,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: the API key is not valid (UNAUTHORIZED); hint: set SCHEDULER_API_KEY or --api-key to a key the server accepts (this one came from SCHEDULER_API_KEY)\n',
    );
  });

  it('connection refused and timeout → exit 5', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const r = await run(['list'], fakeFetch(refused).fetch);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^error: cannot reach the scheduler at https:\/\/api\.test:8080: connection refused/,
    );
    const t = await run(
      ['list', '--timeout', '100'],
      fakeFetch(Object.assign(new Error('x'), { name: 'TimeoutError' })).fetch,
    );
    expect(t.code).toBe(5);
    expect(t.stderr).toBe('error: no answer from https://api.test:8080 within 100 ms (raise --timeout)\n');
  });

  it('bad input is refused locally: exit 2, one line, no request', async () => {
    const f = fakeFetch();
    for (const argv of [
      ['create', '--cron', '0 9 * * *', '--timezone', 'Mars/Base', '--job', 'x'],
      ['create', '--every', 'PT1M', '--job', 'x', '--misfire', 'sometimes'],
      ['edit', 'x', '--overlap', 'SKIP'],
      ['get', 'has space'],
      ['list', '--status', 'SLEEPING'],
      ['backfill', 'x', '--from', '2026-01-01T00:00:00Z'],
      ['create', '--file', 'missing.json'],
      ['list', '--bogus'],
    ]) {
      const r = await run(argv, f.fetch);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(f.calls).toEqual([]);
    const zone = await run(
      ['create', '--cron', '0 9 * * *', '--timezone', 'Mars/Base', '--job', 'x'],
      f.fetch,
    );
    expect(zone.stderr).toBe(
      'error: --timezone (timing.timezone): unknown time zone "Mars/Base" (expected an IANA id such as Europe/Riga)\n',
    );
  });

  it('create sends the built body; edit a PATCH; trigger, cancel, delete their bodies', async () => {
    const f = fakeFetch(
      { status: 201, body: schedule },
      { status: 200, body: { ...schedule, version: 2 } },
      {
        status: 200,
        body: {
          occurrence_id: 'o1',
          schedule_id: 'weekday-sync',
          schedule_version: 2,
          scheduled_for: '2026-01-01T02:00:00+02:00',
          fire_at: '2026-01-01T00:00:00Z',
          emitted_at: '2026-11-30T12:00:00Z',
          idempotency_key: 'k',
          target_ref: 'o1',
          payload_ref: null,
          status: 'RUNNING',
          attempt: 1,
          reason: 'ticket',
          trigger: 'MANUAL',
          duplicate_prevented: false,
          finished_at: null,
        },
      },
      { status: 200, body: { ...schedule, status: 'CANCELLED', next_run_at: null } },
      { status: 204 },
    );
    const created = await run(
      [
        'create',
        '--id',
        'weekday-sync',
        '--cron',
        '0 9 * * 1-5',
        '--timezone',
        'Europe/Riga',
        '--job',
        'source.sync',
      ],
      f.fetch,
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toBe(
      'created weekday-sync: ACTIVE, version 1, next run 2026-12-01 09:00:00 +02:00 (Europe/Riga)\n',
    );
    const edited = await run(
      ['edit', 'weekday-sync', '--expected-version', '1', '--overlap', 'skip'],
      f.fetch,
    );
    expect(edited.stdout).toMatch(/^edited weekday-sync: ACTIVE, version 2/);
    const triggered = await run(
      ['trigger', 'weekday-sync', '--at', '2026-01-01T00:00:00Z', '--reason', 'ticket'],
      f.fetch,
    );
    expect(triggered.stdout).toBe(
      'triggered weekday-sync: occurrence o1 for 2026-01-01 02:00:00 +02:00, RUNNING\n',
    );
    expect((await run(['cancel', 'weekday-sync', '--cancel-running'], f.fetch)).stdout).toMatch(
      /^cancelled weekday-sync: CANCELLED, version 1, no next run$/m,
    );
    const deleted = await run(['delete', 'weekday-sync', '--json'], f.fetch);
    expect(deleted).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(f.calls.map((c) => [c.method, c.url.replace('https://api.test:8080', ''), c.body])).toEqual([
      [
        'POST',
        '/v1/schedules',
        {
          schedule_id: 'weekday-sync',
          timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
          target: { type: 'JOB', job_type: 'source.sync' },
        },
      ],
      ['PATCH', '/v1/schedules/weekday-sync', { expected_version: 1, overlap: 'SKIP' }],
      [
        'POST',
        '/v1/schedules/weekday-sync/trigger',
        { scheduled_for: '2026-01-01T00:00:00Z', reason: 'ticket' },
      ],
      ['POST', '/v1/schedules/weekday-sync/cancel', { running: 'CANCEL' }],
      ['DELETE', '/v1/schedules/weekday-sync', undefined],
    ]);
  });

  it('list --all follows next_cursor; --json prints one page with every item', async () => {
    const second = {
      ...schedule,
      schedule_id: 'b',
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      next_run_at: null,
    };
    const f = fakeFetch(
      { status: 200, body: { items: [schedule], next_cursor: 'c1' } },
      { status: 200, body: { items: [second], next_cursor: null } },
    );
    const r = await run(['list', '--all', '--json', '--limit', '1', '--status', 'active'], f.fetch);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ items: [schedule, second], next_cursor: null });
    expect(f.calls.map((c) => c.url)).toEqual([
      'https://api.test:8080/v1/schedules?status=ACTIVE&limit=1',
      'https://api.test:8080/v1/schedules?status=ACTIVE&limit=1&cursor=c1',
    ]);
  });

  it('list: a table with the next run in the schedule zone; a hint when there is another page', async () => {
    const r = await run(
      ['list'],
      fakeFetch({ status: 200, body: { items: [schedule], next_cursor: 'abc' } }).fetch,
    );
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NEXT RUN \(local\)\s+ZONE\s+VERSION$/);
    expect(lines[2]).toMatch(
      /^weekday-sync\s+ACTIVE\s+CRON\s+2026-12-01 09:00:00 \+02:00\s+Europe\/Riga\s+1$/,
    );
    expect(lines[3]).toBe('(more: scheduler list --cursor abc, or --all)');
  });

  it('--help of every command shows an example and the exit codes', async () => {
    const commands = [
      'create',
      'list',
      'get',
      'describe',
      'edit',
      'pause',
      'resume',
      'trigger',
      'backfill',
      'cancel',
      'delete',
      'occurrences',
    ];
    for (const command of commands) {
      const r = await run([command, '--help'], fakeFetch().fetch);
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`Examples?:\\n  \\$ scheduler ${command}`));
      expect(r.stdout, command).toMatch(/401: the API key was refused \(set SCHEDULER_API_KEY/);
      expect(r.stdout, command).toMatch(/--url <url>/);
    }
    const top = await run(['--help'], fakeFetch().fetch);
    expect(top.stdout).toMatch(/Exit codes:/);
    for (const command of commands) expect(top.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });
});
