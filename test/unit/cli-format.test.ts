// The `scheduler` CLI's human output (src/cli/format.ts): times in the schedule's zone with their offset,
// next runs with DST and window notes, counters, recent occurrences. Pure functions of API responses.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { formatAudit, formatTenantAudit } from '../../src/cli/audit-format.js';
import {
  failureLines,
  formatApply,
  formatBackfill,
  formatBulk,
  formatDescription,
  formatOccurrences,
  formatSchedule,
  formatScheduleList,
  inZone,
  terminalSafe,
  zoneOf,
} from '../../src/cli/format.js';
import type { Occurrence, Schedule, ScheduleDescription } from '../../src/model/contracts.js';
import { runCli } from '../helpers/cli.js';

const base: Schedule = {
  contract: 'schedule.v1',
  schedule_id: 'nightly',
  tenant_id: 'acme',
  owner_ref: 'ops',
  status: 'ACTIVE',
  version: 3,
  timing: { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30', timezone: 'America/New_York' },
  target: { type: 'JOB', job_type: 'nightly.compact', task_queue: 'jobs' },
  misfire: 'FIRE_ONCE',
  max_lateness_s: 60,
  catch_up_limit: 100,
  overlap: 'SKIP',
  queue_limit: 10,
  window: { from: '01:00', to: '05:00' },
  next_run_at: '2027-03-14T07:30:00Z',
  last_run_at: '2027-03-13T07:30:00Z',
  created_at: '2027-03-01T00:00:00Z',
  updated_at: '2027-03-02T00:00:00Z',
  pause_note: null,
  owner_revoked_at: null,
  deleted_at: null,
};

const occurrence = (over: Partial<Occurrence>): Occurrence => ({
  occurrence_id: 'nightly:2027-03-13T07:30:00Z',
  schedule_id: 'nightly',
  schedule_version: 3,
  scheduled_for: '2027-03-13T02:30:00-05:00',
  fire_at: '2027-03-13T07:30:00Z',
  emitted_at: '2027-03-13T07:30:00Z',
  idempotency_key: 'k',
  target_ref: 'x',
  payload_ref: null,
  status: 'COMPLETED',
  attempt: 1,
  reason: null,
  trigger: 'SCHEDULE',
  duplicate_prevented: false,
  finished_at: '2027-03-13T07:31:00Z',
  ...over,
});

describe('times in the schedule zone', () => {
  it('zone: the timing zone, else the schedule-level zone, else UTC', () => {
    expect(zoneOf(base)).toBe('America/New_York');
    expect(zoneOf({ timing: { kind: 'INTERVAL', every: 'PT1H' }, timezone: 'Europe/Riga' })).toBe(
      'Europe/Riga',
    );
    expect(zoneOf({ timing: { kind: 'INTERVAL', every: 'PT1H' } })).toBe('UTC');
  });

  it('an instant with the zone offset of that date', () => {
    expect(inZone('2027-03-14T07:30:00Z', 'America/New_York')).toBe('2027-03-14 03:30:00 -04:00');
    expect(inZone('2027-03-13T07:30:00Z', 'America/New_York')).toBe('2027-03-13 02:30:00 -05:00');
    expect(inZone(null, 'UTC')).toBe('-');
  });

  it('list: one row per schedule, deleted ones marked', () => {
    const out = formatScheduleList([
      base,
      {
        ...base,
        schedule_id: 'gone',
        status: 'CANCELLED',
        deleted_at: '2027-03-03T00:00:00Z',
        next_run_at: null,
        timing: { kind: 'INTERVAL', every: 'PT1H' },
      },
    ]).split('\n');
    expect(out[2]).toMatch(
      /^nightly\s+ACTIVE\s+RECURRENCE\s+2027-03-14 03:30:00 -04:00\s+America\/New_York\s+3$/,
    );
    expect(out[3]).toMatch(/^gone\s+CANCELLED \(deleted\)\s+INTERVAL\s+-\s+UTC\s+3$/);
    expect(formatScheduleList([])).toBe('(no schedules)');
  });

  it('list: the timing in words as a last column when the API says any; describe shows it and authored_from', () => {
    const worded = { ...base, explanation: 'every day at 02:30 in America/New_York' };
    const out = formatScheduleList([worded, { ...base, schedule_id: 'older' }]).split('\n');
    expect(out[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NEXT RUN \(local\)\s+ZONE\s+VERSION\s+IN WORDS$/);
    expect(out[2]).toMatch(/\s3\s+every day at 02:30 in America\/New_York$/);
    expect(out[3]).toMatch(/\s3\s+-$/);
    const shown = formatSchedule({ ...worded, authored_from: 'every day at 2:30am in New York' });
    expect(shown).toMatch(/^in words: +every day at 02:30 in America\/New_York$/m);
    expect(shown).toMatch(/^authored from: +"every day at 2:30am in New York"$/m);
    expect(formatSchedule(base)).not.toMatch(/in words|authored from/);
  });
});

describe('the last outcome', () => {
  const last = {
    occurrence_id: 'nightly:2027-03-13T07:30:00Z',
    scheduled_for: '2027-03-13T02:30:00-05:00',
    fire_at: '2027-03-13T07:30:00Z',
    emitted_at: null,
    status: 'SKIPPED' as const,
    reason: 'misfire: 3600 s late',
    trigger: 'SCHEDULE' as const,
  };

  it('list: a LAST column when the API read it, "-" for a schedule that has not run', () => {
    const out = formatScheduleList([
      { ...base, last_occurrence: last },
      { ...base, schedule_id: 'new', last_occurrence: null },
    ]).split('\n');
    expect(out[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NEXT RUN \(local\)\s+ZONE\s+VERSION\s+LAST$/);
    expect(out[2]).toMatch(/\s3\s+SKIPPED$/);
    expect(out[3]).toMatch(/^new\s.*\s3\s+-$/);
    expect(formatScheduleList([base]).split('\n')[0]).not.toMatch(/LAST/);
  });

  it('get: its status, its slot as written, how it was triggered and why', () => {
    expect(formatSchedule({ ...base, last_occurrence: last })).toMatch(
      /^last outcome: +SKIPPED \(slot 2027-03-13 02:30:00 -05:00, SCHEDULE\): misfire: 3600 s late$/m,
    );
    expect(formatSchedule({ ...base, last_occurrence: null })).toMatch(/^last outcome: +none yet$/m);
    expect(formatSchedule(base)).not.toMatch(/last outcome/);
  });
});

describe('describe', () => {
  const description: ScheduleDescription = {
    schedule: { ...base, status: 'PAUSED', pause_note: 'quarter close' },
    next_runs: [
      {
        scheduled_for: '2027-03-14T03:30:00-04:00',
        fire_at: '2027-03-14T07:30:00Z',
        local: '2027-03-14T03:30:00-04:00',
        adjustments: [
          { kind: 'DST_GAP', note: '02:30 does not exist on 2027-03-14 (DST gap), moved to 03:30' },
        ],
      },
      {
        scheduled_for: '2027-03-15T02:30:00-04:00',
        fire_at: '2027-03-15T06:30:00Z',
        local: '2027-03-15T02:30:00-04:00',
        adjustments: [],
      },
      {
        scheduled_for: '2027-03-16T02:30:00-04:00',
        fire_at: '2027-03-16T06:30:00Z',
        local: '2027-03-16T02:30:00-04:00',
        label: 'reminder PT1H',
        adjustments: [{ kind: 'WINDOW_DEFER', note: 'outside the window, deferred to 05:00' }],
      },
    ],
    recent_occurrences: [
      occurrence({}),
      occurrence({
        occurrence_id: 'nightly:manual',
        scheduled_for: '2027-03-13T10:00:00-05:00',
        trigger: 'MANUAL',
        status: 'RUNNING',
        reason: 'ticket 42',
      }),
    ],
    running: ['nightly:manual'],
    queued: [],
    counters: { fired: 7, caught_up: 1, skipped: 2, expired: 0, failed: 0, duplicates_prevented: 1 },
  };

  it('key fields, next runs with local time and DST/window notes, counters, recent occurrences', () => {
    const out = formatDescription(description);
    expect(out).toMatch(/^schedule: +nightly$/m);
    expect(out).toMatch(/^status: +PAUSED \(note: quarter close\)$/m);
    expect(out).toMatch(/^timing: +rule FREQ=DAILY;BYHOUR=2;BYMINUTE=30 \(RECURRENCE\)$/m);
    expect(out).toMatch(/^zone: +America\/New_York$/m);
    expect(out).toMatch(/^target: +JOB nightly\.compact on jobs$/m);
    expect(out).toMatch(/^policies: +misfire FIRE_ONCE \(late after 60s\), overlap SKIP$/m);
    expect(out).toMatch(/^window: +01:00-05:00 \(outside: DEFER\)$/m);
    expect(out).toMatch(
      /^1 +2027-03-14 03:30:00 -04:00 +2027-03-14T07:30:00Z +DST-moved: 02:30 does not exist on 2027-03-14/m,
    );
    expect(out).toMatch(/^2 +2027-03-15 02:30:00 -04:00 +2027-03-15T06:30:00Z$/m);
    expect(out).toMatch(/^3 .*reminder PT1H; deferred: outside the window/m);
    expect(out).toMatch(
      /^Counters: fired 7, caught up 1, skipped 2, expired 0, failed 0, duplicates prevented 1$/m,
    );
    expect(out).toMatch(/^Running: nightly:manual; queued: none$/m);
    // newest first
    const recent = out.slice(out.indexOf('Recent occurrences'));
    expect(recent.indexOf('nightly:manual')).toBeLessThan(recent.indexOf('nightly:2027-03-13T07:30:00Z'));
    expect(recent).toMatch(/2027-03-13 10:00:00 -05:00 +RUNNING +MANUAL +3 +nightly:manual +ticket 42/);
  });

  it('occurrences and backfill', () => {
    expect(formatOccurrences([])).toBe('(no occurrences)');
    expect(formatOccurrences([occurrence({ duplicate_prevented: true })])).toMatch(
      /2027-03-13 02:30:00 -05:00 +COMPLETED \(dup prevented\) +SCHEDULE/,
    );
    expect(
      formatBackfill('nightly', '2027-03-01T00:00:00Z', '2027-03-03T00:00:00Z', {
        emitted: ['a'],
        already_emitted: ['b'],
        skipped: [],
      }),
    ).toBe(
      'backfilled nightly 2027-03-01T00:00:00Z .. 2027-03-03T00:00:00Z: 1 emitted, 1 already emitted, 0 skipped\n  emitted: a\n  already emitted: b',
    );
  });
});

describe('what another owner of the tenant wrote reaches the terminal inert', () => {
  // A colleague's pause note: set the window title (OSC 0, ended by BEL), clear the screen (CSI 2J), go
  // back to the line's start to print over it (CR), a forged line of its own (LF), and a one-byte C1 CSI
  // (U+009B) that some terminals honour like ESC [.
  const hostile = 'all good\u001b]0;pwned\u0007\u001b[2J\rstatus: ACTIVE\nowner: acme/you\u009b31m';
  const shownAs = String.raw`all good\x1b]0;pwned\x07\x1b[2J\rstatus: ACTIVE\nowner: acme/you\x9b31m`;
  /** Anything a terminal would act on: every C0 control but the line feeds of the output itself, DEL, C1. */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
  const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  const described: ScheduleDescription = {
    schedule: {
      ...base,
      status: 'PAUSED',
      pause_note: hostile,
      target: { type: 'EVENT', event_type: `tick${hostile}`, sink_url: 'https://hooks.acme.example/' },
    },
    next_runs: [
      {
        scheduled_for: '2027-03-14T03:30:00-04:00',
        fire_at: '2027-03-14T07:30:00Z',
        local: '2027-03-14T03:30:00-04:00',
        label: hostile,
        adjustments: [],
      },
    ],
    recent_occurrences: [occurrence({ status: 'FAILED', reason: hostile })],
    running: [],
    queued: [],
    counters: { fired: 1, caught_up: 0, skipped: 0, expired: 0, failed: 1, duplicates_prevented: 0 },
  };
  const plain = (d: ScheduleDescription): ScheduleDescription =>
    JSON.parse(JSON.stringify(d).replaceAll(JSON.stringify(hostile).slice(1, -1), 'x'));

  it('a value: every control character shown as its escape, nothing acted on', () => {
    expect(terminalSafe(hostile)).toBe(shownAs);
    expect(terminalSafe('\u202eevil\u2028x\u007f\u0000')).toBe(String.raw`\u202eevil\u2028x\x7f\x00`);
    // Text without controls, any script, is shown as it is.
    expect(terminalSafe('Zahlung fällig — 支払い ✓')).toBe('Zahlung fällig — 支払い ✓');
  });

  it('describe: the note, the event type, a label and a reason are shown escaped, on the lines they belong to', () => {
    const out = formatDescription(described);
    expect(out).not.toMatch(ACTED_ON);
    const value = (key: string) =>
      out
        .split('\n')
        .find((line) => line.startsWith(`${key}:`))
        ?.replace(/^[a-z ]+: +/, '');
    expect(value('status')).toBe(`PAUSED (note: ${shownAs})`);
    expect(out).toMatch(/^target: +EVENT tick.*\\x9b31m → https:\/\/hooks\.acme\.example\/$/m);
    expect(out.split('\n').filter((line) => line.includes(shownAs))).toHaveLength(4);
    // No line was forged: the output has the lines it has with harmless text in the same places.
    expect(out.split('\n')).toHaveLength(formatDescription(plain(described)).split('\n').length);
  });

  it('the CLI over real HTTP: human output and error lines inert; --json as the API sent it', async () => {
    const server = createServer((req, res) => {
      const json = (status: number, body: unknown, type = 'application/json') =>
        res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
      if (req.url === '/v1/schedules/nightly/describe') return json(200, described);
      if (req.url === '/v1/schedules/nightly') return json(200, described.schedule);
      return json(
        409,
        {
          type: '/problems/conflict',
          title: 'Conflict',
          status: 409,
          detail: `paused: ${hostile}`,
          code: 'CONFLICT',
          field: null,
        },
        'application/problem+json',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        SCHEDULER_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        SCHEDULER_API_KEY: 'test-key',
      };
      for (const command of [
        ['describe', 'nightly'],
        ['get', 'nightly'],
      ]) {
        const human = await runCli(command, { env });
        expect(human.code).toBe(0);
        expect(human.stdout).not.toMatch(ACTED_ON);
        expect(human.stdout).toContain(shownAs);
      }
      const json = await runCli(['get', 'nightly', '--json'], { env });
      expect(JSON.parse(json.stdout).pause_note).toBe(hostile);

      const refused = await runCli(['resume', 'nightly'], { env });
      expect(refused.code).toBe(4);
      // One line, as every error (its line feed a space, as before), and inert.
      expect(refused.stderr).toBe(`error: paused: ${shownAs.replace('\\n', ' ')} (CONFLICT)\n`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('apply and bulk answers', () => {
  it("apply: a line per schedule, a change's next runs before → after, the counts", () => {
    const text = formatApply({
      dry_run: true,
      prune: 'managed-by=repo',
      changes: [
        {
          schedule_id: 'report',
          action: 'UPDATE',
          version: 2,
          fields: ['timing'],
          next_runs_before: ['2027-03-26T09:00:00+02:00', '2027-03-29T09:00:00+03:00'],
          next_runs_after: ['2027-03-26T09:00:00-04:00', '2027-03-29T09:00:00-04:00'],
          outcome: 'PLANNED',
          reason: null,
        },
        {
          schedule_id: 'same',
          action: 'UNCHANGED',
          version: 1,
          fields: [],
          next_runs_before: ['2027-03-26T10:00:00Z'],
          next_runs_after: ['2027-03-26T10:00:00Z'],
          outcome: 'PLANNED',
          reason: null,
        },
        {
          schedule_id: 'old',
          action: 'DELETE',
          version: 4,
          fields: [],
          next_runs_before: ['2027-03-26T11:00:00Z'],
          next_runs_after: [],
          outcome: 'PLANNED',
          reason: 'not in the file, picked by managed-by=repo',
        },
      ],
    });
    expect(text.split('\n')).toEqual([
      'update    report v2: timing',
      '          before: 2027-03-26 09:00:00 +02:00  2027-03-29 09:00:00 +03:00',
      '          after:  2027-03-26 09:00:00 -04:00  2027-03-29 09:00:00 -04:00',
      'unchanged same v1',
      'delete    old v4',
      '          not in the file, picked by managed-by=repo',
      '          before: 2027-03-26 11:00:00 +00:00',
      'plan: 1 update, 1 unchanged, 1 delete (pruning "managed-by=repo")',
    ]);
  });

  it('bulk: a line per schedule with its outcome and reason, then the counts', () => {
    const text = formatBulk({
      action: 'pause',
      selector: 'team=payments',
      dry_run: false,
      matched: 2,
      results: [
        { schedule_id: 'a', status_before: 'ACTIVE', outcome: 'DONE', reason: null },
        { schedule_id: 'b', status_before: 'PAUSED', outcome: 'UNCHANGED', reason: 'already paused' },
      ],
    });
    expect(text.split('\n')).toEqual([
      '  a (ACTIVE): DONE',
      '  b (PAUSED): UNCHANGED — already paused',
      'pause by "team=payments": 2 schedule(s) picked; 1 DONE, 1 UNCHANGED',
    ]);
  });
});

describe('get: labels, apply and retries', () => {
  it('shows the labels, whether apply manages it, and the retry budget of a JOB', () => {
    const text = formatSchedule({
      ...base,
      labels: { team: 'payments', env: 'prod' },
      applied_digest: 'ab'.repeat(32),
      target: {
        type: 'JOB',
        job_type: 'settle',
        retry: { attempts: 5, initial_interval_s: 0.1, backoff: 2 },
      },
    });
    expect(text).toMatch(/^labels: +team=payments, env=prod$/m);
    expect(text).toMatch(/^applied: +by apply \(digest abababababab\)$/m);
    expect(text).toMatch(/^target: +JOB settle, retried up to 5 runs$/m);
  });
});

describe('get and describe: failure hooks', () => {
  it('shows what the hooks do, and in describe what they counted and sent', () => {
    const schedule: Schedule = {
      ...base,
      status: 'PAUSED',
      pause_note: 'paused by on_failure after 3 failed occurrences in a row (last: handoff failed: x)',
      on_failure: {
        after_consecutive: 3,
        pause: true,
        notify: { type: 'EVENT', sink_url: 'https://alerts.example/hooks' },
      },
      on_recovery: { notify: { type: 'WORKFLOW_SIGNAL', workflow_id: 'pager', signal_name: 'page' } },
    };
    const text = formatSchedule(schedule);
    expect(text).toMatch(
      /^on failure: +after 3 in a row: pause, notify POST https:\/\/alerts\.example\/hooks$/m,
    );
    expect(text).toMatch(/^on recovery: +notify signal page to pager$/m);
    expect(failureLines(undefined)).toEqual([]);
    expect(
      failureLines({
        consecutive_failures: 3,
        after_consecutive: 3,
        failing: true,
        paused_by_hook: true,
        last_notice: {
          notice_id: 'notice/acme/x/failing/1',
          kind: 'FAILING',
          at: '2026-12-07T10:30:00.000Z',
          delivered: false,
          detail: 'on_failure.notify.sink_url: refused',
        },
      }),
    ).toEqual([
      'Failures in a row: 3 (hook at 3): failing, paused by the hook; last notice FAILING at 2026-12-07T10:30:00.000Z: NOT delivered (on_failure.notify.sink_url: refused)',
    ]);
  });
});

describe('audit', () => {
  it('shows the counts, the reach, and the slots not on time (all with --all)', () => {
    const audit = {
      schedule_id: 'nightly',
      from: '2026-12-06T18:00:00.000Z',
      to: '2026-12-07T08:00:00.000Z',
      reach: { ledger_since: null, definitions_since: '2026-12-01T00:00:00.000Z' },
      counts: { ON_TIME: 1, MISSED: 1 },
      slots: [
        {
          scheduled_for: '2026-12-06T20:00:00+02:00',
          version: 1,
          outcome: 'ON_TIME' as const,
          reason: null,
          occurrence_id: 'o1',
          lateness_s: 0.23,
        },
        {
          scheduled_for: '2026-12-06T21:00:00+02:00',
          version: 1,
          outcome: 'MISSED' as const,
          reason: 'late by 3600 s (max_lateness_s=60); misfire SKIP',
          occurrence_id: 'o2',
          lateness_s: null,
        },
      ],
      other_runs: [],
    };
    const text = formatAudit(audit, false);
    expect(text.split('\n')[0]).toBe(
      'nightly 2026-12-06T18:00:00.000Z .. 2026-12-07T08:00:00.000Z: 2 slot(s): 1 ON_TIME, 1 MISSED',
    );
    expect(text).toMatch(/^ledger: complete; definitions known since 2026-12-01T00:00:00.000Z$/m);
    expect(text).toMatch(/2026-12-06 21:00:00 \+02:00 +1 +MISSED +late by 3600 s/);
    expect(text).not.toMatch(/ON_TIME +0\.2s/);
    expect(formatAudit(audit, true)).toMatch(/2026-12-06 20:00:00 \+02:00 +1 +ON_TIME +0\.2s/);
    expect(
      formatTenantAudit({
        from: audit.from,
        to: audit.to,
        schedules_read: 3,
        counts: { ON_TIME: 5, MISSED: 1 },
        schedules: [{ schedule_id: 'nightly', counts: audit.counts, not_on_time: [audit.slots[1]!] }],
        unread: [{ schedule_id: 'gone', reason: 'the scheduler worker did not answer' }],
      }).split('\n'),
    ).toEqual([
      '2026-12-06T18:00:00.000Z .. 2026-12-07T08:00:00.000Z: 3 schedule(s) read: 5 ON_TIME, 1 MISSED',
      'nightly: 1 ON_TIME, 1 MISSED',
      expect.stringMatching(/^SCHEDULED FOR/),
      expect.stringMatching(/^-/),
      expect.stringMatching(/MISSED/),
      'not read: gone: the scheduler worker did not answer',
    ]);
  });
});
