// The `scheduler` CLI's flags → HTTP request bodies (src/cli/requests.ts): pure, no server. Every body is
// checked against the model's contracts; a bad flag is a UsageError naming the flag and the field it fills.
import { describe, expect, it } from 'vitest';
import { buildApplyRequest } from '../../src/cli/apply-file.js';
import { UsageError } from '../../src/cli/preview.js';
import {
  buildAuditQuery,
  buildBackfillRequest,
  buildBulkRequest,
  buildCancelRequest,
  buildCreateRequest,
  buildListQuery,
  buildOccurrencesQuery,
  buildPatchRequest,
  buildPauseRequest,
  buildTriggerRequest,
  checkScheduleId,
  parseSeconds,
} from '../../src/cli/requests.js';
import { CreateScheduleRequest, PatchScheduleRequest } from '../../src/model/http.js';

const NOW = new Date('2026-11-30T12:00:00Z');

/** The line `main` would print for the error `fn` throws. */
function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return `${(err as UsageError).field}: ${(err as UsageError).reason}`;
  }
  throw new Error('expected a UsageError');
}

describe('create: flags → CreateScheduleRequest', () => {
  it('cron in a zone, a JOB on a task queue, policies', () => {
    const body = buildCreateRequest(
      {
        id: 'weekday-sync',
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Riga',
        job: 'source.sync',
        taskQueue: 'jobs',
        payloadRef: 'state://sources/crm',
        misfire: 'FIRE_ONCE',
        overlap: 'SKIP',
        maxLateness: 'PT5M',
      },
      undefined,
      NOW,
    );
    expect(body).toEqual({
      schedule_id: 'weekday-sync',
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
      target: {
        type: 'JOB',
        job_type: 'source.sync',
        task_queue: 'jobs',
        payload_ref: 'state://sources/crm',
      },
      misfire: 'FIRE_ONCE',
      overlap: 'SKIP',
      max_lateness_s: 300,
    });
    expect(CreateScheduleRequest.safeParse(body).success).toBe(true);
  });

  it('sends only what was given: no defaults, no id unless --id', () => {
    const body = buildCreateRequest({ every: 'PT10M', job: 'tick' }, undefined, NOW);
    expect(body).toEqual({
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      target: { type: 'JOB', job_type: 'tick' },
    });
  });

  it.each([
    [
      { rule: 'FREQ=DAILY;BYHOUR=9', timezone: 'UTC' },
      { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=9', timezone: 'UTC' },
    ],
    [
      { at: '2027-09-05T14:00', timezone: 'Europe/Riga' },
      { kind: 'ONE_TIME', at: '2027-09-05T14:00', timezone: 'Europe/Riga' },
    ],
    [{ at: '2027-09-05T11:00:00Z' }, { kind: 'ONE_TIME', at: '2027-09-05T11:00:00Z' }],
    [{ delay: 'PT20M' }, { kind: 'DELAY', delay: 'PT20M' }],
    [
      { delay: 'PT48H', anchor: '2026-11-30T10:00:00Z' },
      { kind: 'DELAY', delay: 'PT48H', anchor: '2026-11-30T10:00:00Z' },
    ],
    [
      { deadline: '2027-01-15T17:00', timezone: 'Europe/Berlin', reminder: ['PT24H', 'PT1H,PT10M'] },
      {
        kind: 'DEADLINE',
        at: '2027-01-15T17:00',
        timezone: 'Europe/Berlin',
        reminders: ['PT24H', 'PT1H', 'PT10M'],
      },
    ],
  ])('timing flags %j → %j', (flags, timing) => {
    expect(buildCreateRequest({ ...flags, job: 'j' }, undefined, NOW).timing).toEqual(timing);
  });

  it('--timezone with --every / --delay is the schedule-level zone (windows, exclusions)', () => {
    const body = buildCreateRequest({ every: 'PT1H', timezone: 'Europe/Riga', job: 'j' }, undefined, NOW);
    expect(body.timing).toEqual({ kind: 'INTERVAL', every: 'PT1H' });
    expect(body.timezone).toBe('Europe/Riga');
  });

  it('EVENT and WORKFLOW_SIGNAL targets, with an inline payload', () => {
    const event = buildCreateRequest(
      {
        every: 'PT2S',
        event: 'heartbeat.tick',
        sink: 'http://127.0.0.1:9999/events',
        payload: '{"source":"cli"}',
      },
      undefined,
      NOW,
    );
    expect(event.target).toEqual({
      type: 'EVENT',
      event_type: 'heartbeat.tick',
      sink_url: 'http://127.0.0.1:9999/events',
      payload: { source: 'cli' },
    });
    const signal = buildCreateRequest(
      { every: 'PT1H', signal: 'remind', workflowId: 'contract-42' },
      undefined,
      NOW,
    );
    expect(signal.target).toEqual({
      type: 'WORKFLOW_SIGNAL',
      signal_name: 'remind',
      workflow_id: 'contract-42',
    });
  });

  it('--file: the whole request as given; --id overrides its schedule_id', () => {
    const file = JSON.stringify({
      schedule_id: 'from-file',
      timing: { kind: 'CRON', expression: '0 9 * * *', timezone: 'UTC' },
      target: { type: 'JOB', job_type: 'x' },
      window: { from: '09:00', to: '17:00' },
    });
    expect(buildCreateRequest({}, file, NOW)).toEqual(JSON.parse(file));
    expect(buildCreateRequest({ id: 'renamed' }, file, NOW).schedule_id).toBe('renamed');
  });

  it.each([
    [{ cron: '0 9 * * *', job: 'x' }, /^--timezone: is required with --cron/],
    [{ rule: 'FREQ=DAILY', job: 'x' }, /^--timezone: is required with --rule/],
    [{ job: 'x' }, /^timing: give one of --cron, --rule, --every, --at, --delay or --deadline/],
    [
      { every: 'PT1M', cron: '* * * * *', timezone: 'UTC', job: 'x' },
      /^--every: give one timing, not both --cron and --every/,
    ],
    [{ every: 'PT1M' }, /^target: give one of --job/],
    [
      { every: 'PT1M', job: 'x', event: 'e', sink: 'http://h/' },
      /^--event: give one target, not both --job and --event/,
    ],
    [{ every: 'PT1M', event: 'e' }, /^--sink: is required with --event/],
    [{ every: 'PT1M', signal: 's' }, /^--workflow-id: is required with --signal/],
    [{ every: 'PT1M', job: 'x', sink: 'http://h/' }, /^--sink: goes with --event/],
    [{ every: 'PT1M', event: 'e', sink: 'http://h/', taskQueue: 'q' }, /^--task-queue: goes with --job/],
    [{ every: 'PT1M', payload: '{}' }, /^--payload: goes with a target/],
    [{ every: 'PT1M', job: 'x', payload: '{nope' }, /^--payload: is not valid JSON/],
    [{ every: 'PT1M', job: 'x', payload: '[1,2]' }, /^--payload: must be a JSON object/],
    [{ every: 'PT1M', job: 'x', reminder: ['PT1H'] }, /^--reminder: goes with --deadline/],
    [
      { cron: '0 9 * * *', timezone: 'UTC', anchor: '2026-01-01T00:00:00Z', job: 'x' },
      /^--anchor: goes with --every or --delay/,
    ],
    [
      { every: 'PT1M', job: 'x', maxLateness: 'P1M' },
      /^--max-lateness: "P1M" must be seconds or an ISO 8601 duration/,
    ],
    [
      { cron: '0 9 * * *', timezone: 'Europe/Rigaa', job: 'x' },
      /^--timezone \(timing\.timezone\): unknown time zone "Europe\/Rigaa"/,
    ],
    [{ cron: '0 25 * * *', timezone: 'UTC', job: 'x' }, /^--cron \(timing\.expression\): /],
    [
      { rule: 'FREQ=DAILY;BYHOUR=25', timezone: 'UTC', job: 'x' },
      /^--rule \(timing\.rule\): BYHOUR: 25 is out of range/,
    ],
    [{ every: 'P1M', job: 'x' }, /^--every \(timing\.every\): "P1M" has years or months/],
    [
      { at: '2027-01-01T09:00', job: 'x' },
      /^--timezone \(timing\.timezone\): .*is a local time: a timezone is required/,
    ],
    [{ id: 'bad id', every: 'PT1M', job: 'x' }, /^--id \(schedule_id\): letters, digits/],
    [{ every: 'PT1M', event: 'e', sink: 'ftp://h/x' }, /^--sink \(target\.sink_url\): /],
  ])('bad flags %j → %s', (flags, line) => {
    expect(usage(() => buildCreateRequest(flags, undefined, NOW))).toMatch(line);
  });

  it('--file errors name the field (no flag) and refuse mixing with definition flags', () => {
    const file = (body: unknown) => JSON.stringify(body);
    expect(usage(() => buildCreateRequest({}, '{oops', NOW))).toMatch(/^--file: is not valid JSON/);
    expect(usage(() => buildCreateRequest({}, '[]', NOW))).toMatch(/^--file: must hold a JSON object/);
    expect(
      usage(() =>
        buildCreateRequest(
          {},
          file({
            timing: { kind: 'CRON', expression: '0 9 * * *', timezone: 'Mars/Base' },
            target: { type: 'JOB', job_type: 'x' },
          }),
          NOW,
        ),
      ),
    ).toMatch(/^timing\.timezone: unknown time zone "Mars\/Base"/);
    expect(
      usage(() =>
        buildCreateRequest(
          {},
          file({
            timing: { kind: 'DELAY', delay: 'PT1M' },
            target: { type: 'JOB', job_type: 'x' },
            owner_ref: 'me',
          }),
          NOW,
        ),
      ),
      // A server-owned field of a schedule.v1 view says what sets it.
    ).toMatch(/^owner_ref: is the API key’s owner .*: leave it out of the request/);
    expect(usage(() => buildCreateRequest({ cron: '* * * * *' }, '{}', NOW))).toMatch(
      /^--cron: --file holds the whole request/,
    );
  });
});

describe('edit: flags → PatchScheduleRequest (only the fields given)', () => {
  it('expected_version plus the given fields, nothing else', () => {
    const body = buildPatchRequest(
      { expectedVersion: '3', cron: '30 8 * * 1-5', timezone: 'Europe/Riga' },
      undefined,
      NOW,
    );
    expect(body).toEqual({
      expected_version: 3,
      timing: { kind: 'CRON', expression: '30 8 * * 1-5', timezone: 'Europe/Riga' },
    });
    expect(
      buildPatchRequest({ expectedVersion: '1', overlap: 'SKIP', maxLateness: '90' }, undefined, NOW),
    ).toEqual({
      expected_version: 1,
      overlap: 'SKIP',
      max_lateness_s: 90,
    });
    expect(
      buildPatchRequest({ expectedVersion: '2', job: 'other', payload: '{"a":1}' }, undefined, NOW),
    ).toEqual({
      expected_version: 2,
      target: { type: 'JOB', job_type: 'other', payload: { a: 1 } },
    });
    expect(PatchScheduleRequest.safeParse(body).success).toBe(true);
  });

  it('--file: a PATCH body (null clears); --expected-version fills or overrides its version', () => {
    expect(buildPatchRequest({ expectedVersion: '4' }, '{"exclusions": null}', NOW)).toEqual({
      expected_version: 4,
      exclusions: null,
    });
    expect(buildPatchRequest({}, '{"expected_version": 2, "overlap": "QUEUE"}', NOW)).toEqual({
      expected_version: 2,
      overlap: 'QUEUE',
    });
  });

  it.each([
    [{ overlap: 'SKIP' }, /^--expected-version: is required/],
    [{ expectedVersion: 'two', overlap: 'SKIP' }, /^--expected-version: "two" must be the version you read/],
    [{ expectedVersion: '0', overlap: 'SKIP' }, /^--expected-version: "0"/],
    [{ expectedVersion: '1' }, /^edit: nothing to change/],
    [{ expectedVersion: '1', timezone: 'UTC' }, /^--timezone: an edit replaces the timing whole/],
    [{ expectedVersion: '1', payload: '{}' }, /^--payload: an edit replaces the target whole/],
    [
      { expectedVersion: '1', cron: '0 9 * * *', timezone: 'Nowhere/Land' },
      /^--timezone \(timing\.timezone\): unknown time zone/,
    ],
  ])('bad edit %j → %s', (flags, line) => {
    expect(usage(() => buildPatchRequest(flags, undefined, NOW))).toMatch(line);
  });

  it('a --file PATCH with a bad field names it', () => {
    expect(usage(() => buildPatchRequest({ expectedVersion: '1' }, '{"overlap": "SOMETIMES"}', NOW))).toMatch(
      /^overlap: /,
    );
    expect(usage(() => buildPatchRequest({ expectedVersion: '1' }, '{"owner_ref": "x"}', NOW))).toMatch(
      /^owner_ref: is the API key’s owner/,
    );
    expect(usage(() => buildPatchRequest({ expectedVersion: '1' }, '{"colour": "x"}', NOW))).toBe(
      'colour: unknown field: remove it',
    );
  });
});

describe('the other commands', () => {
  it('list: only the given query parameters; --kind is timing_kind', () => {
    expect(buildListQuery({})).toEqual({});
    expect(
      buildListQuery({ status: 'ACTIVE', kind: 'CRON', limit: '5', cursor: 'abc', includeDeleted: true }),
    ).toEqual({ status: 'ACTIVE', timing_kind: 'CRON', limit: '5', cursor: 'abc', include_deleted: 'true' });
    expect(usage(() => buildListQuery({ limit: '500' }))).toBe(
      '--limit: "500" must be an integer from 1 to 100',
    );
    expect(usage(() => buildListQuery({ limit: 'many' }))).toMatch(/^--limit: "many"/);
  });

  it('occurrences: limit up to 256, a numeric cursor', () => {
    expect(buildOccurrencesQuery({ limit: '256', cursor: '50' })).toEqual({ limit: '256', cursor: '50' });
    expect(usage(() => buildOccurrencesQuery({ limit: '257' }))).toMatch(
      /^--limit: "257" must be an integer from 1 to 256/,
    );
    expect(usage(() => buildOccurrencesQuery({ cursor: 'abc' }))).toMatch(/^--cursor: /);
  });

  it('pause, trigger, backfill, cancel bodies', () => {
    expect(buildPauseRequest({})).toEqual({});
    expect(buildPauseRequest({ note: 'quarter close' })).toEqual({ note: 'quarter close' });
    expect(buildTriggerRequest({})).toEqual({});
    expect(buildTriggerRequest({ at: '2026-01-01T00:00:00Z', reason: 'ticket 42' })).toEqual({
      scheduled_for: '2026-01-01T00:00:00Z',
      reason: 'ticket 42',
    });
    expect(buildBackfillRequest({ from: '2026-11-02T00:00:00Z', to: '2026-11-07T00:00:00+02:00' })).toEqual({
      from: '2026-11-02T00:00:00Z',
      to: '2026-11-07T00:00:00+02:00',
    });
    expect(buildTriggerRequest({ payload: '{"region":"eu"}', payloadRef: 'state://x' })).toEqual({
      override: { payload: { region: 'eu' }, payload_ref: 'state://x' },
    });
    expect(
      buildBackfillRequest({
        from: '2026-11-02T00:00:00Z',
        to: '2026-11-03T00:00:00Z',
        payloadRef: 'state://y',
      }),
    ).toMatchObject({ override: { payload_ref: 'state://y' } });
    expect(buildCancelRequest({})).toEqual({});
    expect(buildCancelRequest({ note: 'replaced', cancelRunning: true })).toEqual({
      note: 'replaced',
      running: 'CANCEL',
    });
  });

  it.each([
    [() => buildTriggerRequest({ at: 'now' }), /^--at: must be an ISO 8601 instant/],
    [() => buildTriggerRequest({ at: '2026-01-01T00:00:00' }), /^--at: must be an ISO 8601 instant/],
    [() => buildBackfillRequest({ to: '2026-01-01T00:00:00Z' }), /^--from: is required/],
    [() => buildTriggerRequest({ payload: '[1]' }), /^--payload: must be a JSON object/],
    [
      () => buildTriggerRequest({ payload: JSON.stringify({ blob: 'x'.repeat(17_000) }) }),
      /^--payload: the payload is larger than 16 KiB/,
    ],
    [() => buildTriggerRequest({ payloadRef: '' }), /^--payload-ref: /],
    [() => buildBackfillRequest({ from: '2026-01-01T00:00:00Z' }), /^--to: is required/],
    [
      () => buildBackfillRequest({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }),
      /^--to: from must be before to/,
    ],
    [() => buildPauseRequest({ note: 'x'.repeat(501) }), /^--note: /],
    [() => checkScheduleId('no/slashes'), /^<id>: "no\/slashes" is not a schedule id/],
  ])('%#: bad input → one line naming the flag', (fn, line) => {
    expect(usage(fn)).toMatch(line);
  });

  it('--max-lateness: seconds or a duration', () => {
    expect(parseSeconds('--max-lateness', '0')).toBe(0);
    expect(parseSeconds('--max-lateness', 'PT90S')).toBe(90);
    expect(parseSeconds('--max-lateness', 'P1D')).toBe(86_400);
    expect(usage(() => parseSeconds('--max-lateness', 'PT0.5S'))).toMatch(/whole seconds/);
    expect(usage(() => parseSeconds('--max-lateness', 'soon'))).toMatch(/^--max-lateness: "soon"/);
  });
});

describe('labels and bulk operations: flags → requests', () => {
  it('--label key=value, repeated, → labels; checked against the label syntax', () => {
    const body = buildCreateRequest(
      { every: 'PT10M', job: 'tick', label: ['team=payments', 'env=', 'example.com/tier=gold'] },
      undefined,
      NOW,
    );
    expect(body.labels).toEqual({ team: 'payments', env: '', 'example.com/tier': 'gold' });
    expect(
      usage(() => buildCreateRequest({ every: 'PT10M', job: 'j', label: ['team'] }, undefined, NOW)),
    ).toBe('--label: "team" must be key=value (e.g. team=payments)');
    expect(
      usage(() => buildCreateRequest({ every: 'PT10M', job: 'j', label: ['a=1', 'a=2'] }, undefined, NOW)),
    ).toBe('--label: "a" is given twice');
    expect(
      usage(() =>
        buildCreateRequest({ every: 'PT10M', job: 'j', label: ['team=pay ments'] }, undefined, NOW),
      ),
    ).toMatch(/^--label \(labels\.team\): a value is empty, or 1 to 63/);
  });

  it('--on-failure, --pause-on-failure and --notify-sink → on_failure and on_recovery', () => {
    const sink = 'https://alerts.example/hooks';
    const body = buildCreateRequest(
      { every: 'PT10M', job: 'tick', onFailure: '5', pauseOnFailure: true, notifySink: sink },
      undefined,
      NOW,
    ) as Record<string, unknown>;
    expect(body.on_failure).toEqual({
      after_consecutive: 5,
      pause: true,
      notify: { type: 'EVENT', sink_url: sink },
    });
    expect(body.on_recovery).toEqual({ notify: { type: 'EVENT', sink_url: sink } });
    // A sink alone: told when it starts failing (after the server's default of 3) and when it recovers.
    const notified = buildCreateRequest(
      { every: 'PT10M', job: 'j', notifySink: sink },
      undefined,
      NOW,
    ) as Record<string, unknown>;
    expect(notified.on_failure).toEqual({ notify: { type: 'EVENT', sink_url: sink } });
    expect(
      usage(() => buildCreateRequest({ every: 'PT10M', job: 'j', onFailure: '2' }, undefined, NOW)),
    ).toBe('--on-failure: goes with --pause-on-failure or --notify-sink (what to do then)');
    expect(
      usage(() =>
        buildCreateRequest(
          { every: 'PT10M', job: 'j', onFailure: 'two', pauseOnFailure: true },
          undefined,
          NOW,
        ),
      ),
    ).toBe('--on-failure: "two" is not a count of failures (1, 2, 3, …)');
  });

  it('audit: --from required, --to defaults to now, instants and --late-after checked', () => {
    expect(buildAuditQuery({ from: '2026-11-29T18:00:00Z' }, NOW)).toEqual({
      from: '2026-11-29T18:00:00Z',
      to: NOW.toISOString(),
    });
    expect(
      buildAuditQuery({ from: '2026-11-29T18:00:00Z', to: '2026-11-30T08:00:00+02:00', lateAfter: '5' }, NOW),
    ).toEqual({
      from: '2026-11-29T18:00:00Z',
      to: '2026-11-30T08:00:00+02:00',
      late_after_s: '5',
    });
    expect(usage(() => buildAuditQuery({}, NOW))).toBe(
      '--from: is required (the first instant of the range)',
    );
    expect(usage(() => buildAuditQuery({ from: 'yesterday' }, NOW))).toMatch(
      /^--from: must be an ISO 8601 instant/,
    );
    expect(
      usage(() => buildAuditQuery({ from: '2026-12-08T00:00:00Z', to: '2026-12-07T00:00:00Z' }, NOW)),
    ).toBe('--to: from must be before to');
    expect(usage(() => buildAuditQuery({ from: '2026-11-29T00:00:00Z', lateAfter: '-1' }, NOW))).toMatch(
      /^--late-after: /,
    );
  });

  it('an edit with --label replaces the labels whole', () => {
    expect(buildPatchRequest({ expectedVersion: '3', label: ['team=shipping'] }, undefined, NOW)).toEqual({
      expected_version: 3,
      labels: { team: 'shipping' },
    });
  });

  it('list --selector is checked before it is sent, pointing at the character', () => {
    expect(buildListQuery({ selector: 'team=payments,env!=dev' })).toEqual({
      selector: 'team=payments,env!=dev',
    });
    expect(usage(() => buildListQuery({ selector: 'team=payments,,' }))).toBe(
      '--selector: at character 15: a key is expected',
    );
  });

  it('bulk <action> --selector: the body, and what is refused', () => {
    expect(buildBulkRequest('pause', { selector: 'team=payments', dryRun: true, note: 'freeze' })).toEqual({
      action: 'pause',
      selector: 'team=payments',
      dry_run: true,
      note: 'freeze',
    });
    expect(buildBulkRequest('cancel', { selector: 'app=legacy', cancelRunning: true })).toEqual({
      action: 'cancel',
      selector: 'app=legacy',
      running: 'CANCEL',
    });
    expect(usage(() => buildBulkRequest('pause', {}))).toMatch(/^--selector: is required/);
    expect(usage(() => buildBulkRequest('pause', { selector: ' ' }))).toMatch(
      /^--selector: a bulk operation needs a selector/,
    );
    expect(usage(() => buildBulkRequest('purge', { selector: 'a=b' }))).toMatch(/^<action>: /);
  });
});

describe('apply -f: a YAML or JSON file → the POST /v1/apply body', () => {
  const doc = (id: string) =>
    `schedule_id: ${id}\ntiming: {kind: INTERVAL, every: PT1H}\ntarget: {type: JOB, job_type: tick}\nlabels: {managed-by: repo}\n`;

  it('takes a list, {schedules: [...]}, YAML documents separated by ---, and JSON', () => {
    const list = `- ${doc('a').replace(/\n(?=.)/g, '\n  ')}- ${doc('b').replace(/\n(?=.)/g, '\n  ')}`;
    const wrapped = `schedules:\n${list.replace(/^/gm, '  ')}`;
    const stream = `${doc('a')}---\n${doc('b')}`;
    const json = JSON.stringify([
      {
        schedule_id: 'a',
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        target: { type: 'JOB', job_type: 'tick' },
        labels: { 'managed-by': 'repo' },
      },
      {
        schedule_id: 'b',
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        target: { type: 'JOB', job_type: 'tick' },
        labels: { 'managed-by': 'repo' },
      },
    ]);
    for (const text of [list, wrapped, stream, json]) {
      const body = buildApplyRequest(text, { prune: 'managed-by=repo', dryRun: true }, NOW);
      expect(body.schedules.map((s) => s.schedule_id)).toEqual(['a', 'b']);
      expect(body.schedules[1]).toMatchObject({
        labels: { 'managed-by': 'repo' },
        timing: { every: 'PT1H' },
      });
      expect(body).toMatchObject({ prune: 'managed-by=repo', dry_run: true });
    }
  });

  it('points at the document and the field of a mistake, before anything is sent', () => {
    expect(usage(() => buildApplyRequest(`${doc('a')}---\n${doc('a')}`, {}, NOW))).toBe(
      '--file (schedule 2, schedule_id): a is declared twice',
    );
    expect(usage(() => buildApplyRequest(doc('a').replace('PT1H', 'an hour'), {}, NOW))).toMatch(
      /^--file \(schedule 1, timing\.every\): /,
    );
    expect(usage(() => buildApplyRequest('timing: {kind: INTERVAL', {}, NOW))).toMatch(
      /^--file: is not YAML or JSON: /,
    );
    expect(usage(() => buildApplyRequest(doc('a').replace('schedule_id: a\n', ''), {}, NOW))).toMatch(
      /^--file \(schedule 1, schedule_id\): /,
    );
    expect(usage(() => buildApplyRequest(`${doc('a')}version: 3\n`, {}, NOW))).toMatch(
      /^--file \(schedule 1/,
    );
    expect(usage(() => buildApplyRequest(doc('a'), { prune: 'managed-by=repo,' }, NOW))).toMatch(
      /^--prune: at character/,
    );
    expect(usage(() => buildApplyRequest(doc('a'), { count: '11' }, NOW))).toBe(
      '--count: "11" must be an integer from 0 to 10',
    );
  });
});
