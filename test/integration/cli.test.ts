// The `scheduler` CLI against the real HTTP API (real dev server, scheduler worker, job worker): `main(argv)`
// runs in-process with its output captured, through a schedule's whole life; the package bin runs once as a
// real process. Exit codes and one-line errors are checked where the server (or its absence) produces them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { runPreview } from '../../src/cli/preview.js';
import { runCli } from '../helpers/cli.js';
import { hourHalfADayAway } from '../helpers/clock.js';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const KEY = 'key-cli-ops-0123456789abcdef';

let api: ApiStack;
let dir: string;

beforeAll(async () => {
  api = await startApiStack('cli', { keys: `${KEY}=acme:ops` });
  dir = mkdtempSync(join(tmpdir(), 'scheduler-cli-'));
});
afterAll(async () => {
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(argv, { env: { SCHEDULER_URL: api.base, SCHEDULER_API_KEY: KEY } });

/** Runs a command that must succeed and returns its stdout (as JSON with --json). */
async function ok(...argv: string[]) {
  const r = await cli(...argv);
  expect(r.stderr, argv.join(' ')).toBe('');
  expect(r.code, argv.join(' ')).toBe(0);
  return argv.includes('--json') ? JSON.parse(r.stdout) : r.stdout;
}

const ID = 'cli-weekday';
// Its weekday runs are at the hour in Riga half a day from now, whatever the hour, day or season (ten hours
// away at least); the edit moves them half an hour earlier. With a fixed 09:00, a file started on a weekday
// in the minutes before it had the first slot armed (counted as fired) before `describe` said "fired 0".
const RIGA_HOUR = hourHalfADayAway('Europe/Riga');
const EDITED_HOUR = (RIGA_HOUR + 23) % 24;
const WEEKDAYS = `0 ${RIGA_HOUR} * * 1-5`;
const EDITED = `30 ${EDITED_HOUR} * * 1-5`;
const hh = (hour: number) => String(hour).padStart(2, '0');
/** Riga's `hour` in UTC, as a regex: +02:00 in winter, +03:00 in summer. */
const utcHourOf = (hour: number) => `(?:${hh((hour + 22) % 24)}|${hh((hour + 21) % 24)})`;

describe('scheduler CLI over the HTTP API', () => {
  let createdAt: string;

  it('create from flags: a table line, then the same again is unchanged (200)', async () => {
    const line = await ok(
      'create',
      '--id',
      ID,
      '--cron',
      WEEKDAYS,
      '--timezone',
      'Europe/Riga',
      '--job',
      'recordedJob',
      '--payload',
      '{"source":"cli"}',
      '--misfire',
      'skip',
    );
    // At its hour in Riga: +02:00 in winter, +03:00 in summer. (Right after the start the workflow may not
    // have computed its first slot yet: the API then answers next_run_at null, shown as "no next run".)
    expect(line).toMatch(
      new RegExp(
        `^created cli-weekday: ACTIVE, version 1, (next run \\d{4}-\\d\\d-\\d\\d ${hh(RIGA_HOUR)}:00:00 \\+0[23]:00 \\(Europe/Riga\\)|no next run)\n$`,
      ),
    );
    const again = await ok(
      'create',
      '--id',
      ID,
      '--cron',
      WEEKDAYS,
      '--timezone',
      'Europe/Riga',
      '--job',
      'recordedJob',
      '--payload',
      '{"source":"cli"}',
      '--misfire',
      'SKIP',
      '--json',
    );
    expect(again).toMatchObject({
      contract: 'schedule.v1',
      schedule_id: ID,
      version: 1,
      misfire: 'SKIP',
      target: { type: 'JOB', job_type: 'recordedJob', payload: { source: 'cli' } },
    });
    createdAt = again.created_at;
  });

  it('list: JSON for scripts, a table with the next run in the schedule zone; the bin prints the same', async () => {
    const page = await eventually(
      'the new schedule to be listed',
      async () => {
        const listed = await ok('list', '--json');
        return listed.items.some((s: { schedule_id: string }) => s.schedule_id === ID) ? listed : undefined;
      },
      20_000,
    );
    expect(page.next_cursor).toBeNull();
    const table = (await ok('list', '--status', 'active', '--kind', 'cron')).split('\n');
    // Then the last outcome (none yet: "-") and the timing in words, as the API reads them.
    expect(table[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NEXT RUN \(local\)\s+ZONE\s+VERSION\s+LAST\s+IN WORDS$/);
    expect(table.find((l: string) => l.startsWith(ID))).toMatch(
      new RegExp(
        `^cli-weekday\\s+ACTIVE\\s+CRON\\s+\\d{4}-\\d\\d-\\d\\d ${hh(RIGA_HOUR)}:00:00 \\+0[23]:00\\s+Europe/Riga\\s+1\\s+-\\s+\\S.*$`,
      ),
    );

    // The package bin, as a real process (async: this process serves the API it calls).
    const bin = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(repoRoot, 'bin/scheduler.mjs'), 'list', '--json'],
        {
          cwd: repoRoot,
          env: { ...process.env, SCHEDULER_URL: api.base, SCHEDULER_API_KEY: KEY },
          timeout: 60_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(bin.stderr).toBe('');
    expect(bin.code).toBe(0);
    expect(JSON.parse(bin.stdout).items.map((s: { schedule_id: string }) => s.schedule_id)).toContain(ID);
  });

  it('describe: key fields, next runs in local time, counters', async () => {
    const out = await ok('describe', ID);
    expect(out).toMatch(/^schedule: +cli-weekday$/m);
    expect(out).toMatch(new RegExp(`^timing: +cron "0 ${RIGA_HOUR} \\* \\* 1-5" \\(CRON\\)$`, 'm'));
    expect(out).toMatch(/^zone: +Europe\/Riga$/m);
    expect(out).toMatch(/^target: +JOB recordedJob, payload \{"source":"cli"\}$/m);
    expect(out).toMatch(
      new RegExp(
        `^1 +\\d{4}-\\d\\d-\\d\\d ${hh(RIGA_HOUR)}:00:00 \\+0[23]:00 +\\d{4}-\\d\\d-\\d\\dT${utcHourOf(RIGA_HOUR)}:00:00Z`,
        'm',
      ),
    );
    expect(out).toMatch(/^Counters: fired 0,/m);
    const json = await ok('describe', ID, '--json');
    expect(json.next_runs.length).toBeGreaterThan(3);
  });

  it('describe shows the tz release of the buffered slots; recompute one, or all in a zone', async () => {
    expect(await ok('describe', ID)).toMatch(
      new RegExp(
        `^tz database: slots computed with ${process.versions.tz}; recomputed before firing after `,
        'm',
      ),
    );
    expect(await ok('recompute', ID, '--reason', 'tzdata check')).toMatch(
      new RegExp(
        `^recomputed cli-weekday: \\d+ buffered slots computed again with ${process.versions.tz}, 0 moved$`,
        'm',
      ),
    );
    const again = await cli('recompute', ID);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/at most once a minute/);
    const summary = await ok('recompute', '--zone', 'Europe/Riga', '--json');
    // Every schedule of the tenant in Riga but the one just recomputed (refused, left out).
    expect(summary).toMatchObject({ recomputed: summary.matched - 1, moved_slots: 0, failed: [] });
    expect(await ok('describe', ID)).toMatch(
      /^recomputes: 1 asked, 0 by the horizon; last .*\(tzdata check\): \d+ dropped, 0 moved/m,
    );
    const bad = await cli('recompute', '--zone', 'Europe/Rigaa');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: zone: unknown time zone "Europe\/Rigaa"/);
  });

  it('edit under the version read; a stale --expected-version is exit 4 with one line', async () => {
    const edited = await ok(
      'edit',
      ID,
      '--expected-version',
      '1',
      '--cron',
      EDITED,
      '--timezone',
      'Europe/Riga',
      '--json',
    );
    expect(edited).toMatchObject({
      version: 2,
      timing: { kind: 'CRON', expression: EDITED, timezone: 'Europe/Riga' },
      target: { job_type: 'recordedJob' }, // untouched
      misfire: 'SKIP',
    });
    const stale = await cli('edit', ID, '--expected-version', '1', '--overlap', 'SKIP');
    expect(stale.code).toBe(4);
    expect(stale.stdout).toBe('');
    expect(stale.stderr).toBe(
      'error: expected_version 1 but the schedule is at version 2: read it again and re-apply your change (VERSION_CONFLICT, field expected_version)\n',
    );
    const human = await ok('edit', ID, '--expected-version', '2', '--overlap', 'skip');
    expect(human).toMatch(
      new RegExp(
        `^edited cli-weekday: ACTIVE, version 3, (next run .* ${hh(EDITED_HOUR)}:30:00 \\+0[23]:00 \\(Europe/Riga\\)|no next run)$`,
        'm',
      ),
    );
  });

  it('pause with a note, resume', async () => {
    const paused = await ok('pause', ID, '--note', 'maintenance', '--json');
    expect(paused).toMatchObject({ status: 'PAUSED', pause_note: 'maintenance' });
    expect(await ok('get', ID)).toMatch(/^status: +PAUSED \(note: maintenance\)$/m);
    expect(await ok('resume', ID)).toMatch(/^resumed cli-weekday: ACTIVE, version 3/);
  });

  it('trigger (idempotent on --at), backfill a past week, occurrences', async () => {
    const manual = await ok('trigger', ID, '--at', '2026-01-01T00:00:00Z', '--reason', 'ticket 42', '--json');
    expect(manual).toMatchObject({
      trigger: 'MANUAL',
      reason: 'ticket 42',
      schedule_id: ID,
      schedule_version: 3,
    });
    const again = await ok('trigger', ID, '--at', '2026-01-01T00:00:00Z');
    expect(again).toMatch(new RegExp(`^triggered cli-weekday: occurrence ${manual.occurrence_id} for `));

    // A week before creation holds exactly five slots of the edited weekday rule: a week of the schedule's
    // calendar (7 × 24 h would take in a sixth in the week Riga's clocks go forward).
    const to = new Date(Date.parse(createdAt) - 60_000);
    const from = DateTime.fromJSDate(to, { zone: 'Europe/Riga' }).minus({ weeks: 1 }).toJSDate();
    const backfill = await ok(
      'backfill',
      ID,
      '--from',
      from.toISOString(),
      '--to',
      to.toISOString(),
      '--json',
    );
    expect(backfill.emitted.length + backfill.already_emitted.length + backfill.skipped.length).toBe(5);
    // The same backfill again runs no slot twice. A slot the first one skipped (overlap SKIP) may run now,
    // if the run that blocked it finished meanwhile: backfill fills what never ran.
    const repeat = await ok('backfill', ID, '--from', from.toISOString(), '--to', to.toISOString(), '--json');
    expect(repeat.already_emitted).toEqual(expect.arrayContaining(backfill.emitted));
    for (const id of repeat.emitted) expect(backfill.skipped).toContain(id);
    const text = await ok('backfill', ID, '--from', from.toISOString(), '--to', to.toISOString());
    expect(text).toMatch(/^backfilled cli-weekday .*: \d+ emitted, \d+ already emitted, \d+ skipped$/m);

    const page = await ok('occurrences', ID, '--limit', '256', '--json');
    const manualOne = page.items.find(
      (o: { occurrence_id: string }) => o.occurrence_id === manual.occurrence_id,
    );
    expect(manualOne).toMatchObject({ trigger: 'MANUAL', reason: 'ticket 42' });
    // Emitted or skipped (overlap SKIP while the manual run still runs), each backfilled slot is recorded.
    expect(page.items.filter((o: { trigger: string }) => o.trigger === 'BACKFILL')).toHaveLength(
      backfill.emitted.length + backfill.skipped.length,
    );
    const table = await ok('occurrences', ID, '--limit', '2');
    expect(table.split('\n')[0]).toMatch(
      /^SCHEDULED FOR \(local\)\s+STATUS\s+TRIGGER\s+V\s+OCCURRENCE\s+REASON$/,
    );
    expect(table).toMatch(/\(more: scheduler occurrences cli-weekday --cursor 2\)/);
  });

  it('cancel (still readable), delete (still readable by id, with deleted_at)', async () => {
    expect(await ok('cancel', ID, '--note', 'replaced')).toMatch(
      /^cancelled cli-weekday: CANCELLED, version 3, no next run$/m,
    );
    const deleted = await cli('delete', ID);
    expect(deleted).toEqual({ code: 0, stdout: `deleted ${ID}\n`, stderr: '' });
    expect((await ok('get', ID, '--json')).status).toBe('CANCELLED');
  });

  it('create --file: the whole CreateScheduleRequest from a JSON file', async () => {
    const file = join(dir, 'schedule.json');
    writeFileSync(
      file,
      JSON.stringify({
        schedule_id: 'cli-file',
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        target: { type: 'JOB', job_type: 'recordedJob' },
        overlap: 'SKIP',
      }),
    );
    const created = await ok('create', '--file', file, '--json');
    expect(created).toMatchObject({ schedule_id: 'cli-file', overlap: 'SKIP', timing: { every: 'PT1H' } });
    expect(await ok('delete', 'cli-file')).toBe('deleted cli-file\n');
  });

  it('apply -f a YAML file, list and bulk-pause by label; without --yes off a terminal nothing changes', async () => {
    const file = join(dir, 'schedules.yaml');
    const yaml = (zone: string) =>
      ['a', 'b', 'c']
        .map(
          (id) =>
            `schedule_id: yaml-${id}\nlabels: {managed-by: cli-test, team: ${id === 'c' ? 'other' : 'pay'}}\n` +
            `timing: {kind: CRON, expression: "${WEEKDAYS}", timezone: ${zone}}\ntarget: {type: JOB, job_type: recordedJob}\n`,
        )
        .join('---\n');
    writeFileSync(file, yaml('Europe/Riga'));
    const refused = await cli('apply', '-f', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: --yes: is needed when not on a terminal/);
    expect((await api.call('GET', '/v1/schedules/yaml-a', { key: KEY })).status).toBe(404);

    const applied = await ok('apply', '-f', file, '--yes');
    expect(applied).toMatch(/^create {4}yaml-a \[APPLIED\]$/m);
    expect(applied).toMatch(/^applied: 3 create$/m);
    expect(await ok('apply', '-f', file, '--yes')).toMatch(/^applied: 3 unchanged$/m);

    writeFileSync(file, yaml('Europe/Lisbon'));
    const plan = await ok('apply', '-f', file, '--dry-run', '--count', '2');
    expect(plan).toMatch(/^update {4}yaml-a v1: timing$/m);
    expect(plan).toMatch(new RegExp(`^ {10}before: \\S+ ${hh(RIGA_HOUR)}:00:00 \\+0[23]:00  `, 'm'));
    expect(plan).toMatch(new RegExp(`^ {10}after: {2}\\S+ ${hh(RIGA_HOUR)}:00:00 \\+0[01]:00  `, 'm'));
    expect(plan).toMatch(/^plan: 3 update$/m);
    expect((await api.call('GET', '/v1/schedules/yaml-a', { key: KEY })).body.version).toBe(1);

    await eventually(
      'listed by label',
      async () => {
        const listed = await ok('list', '--selector', 'managed-by=cli-test,team!=other', '--json');
        const ids = listed.items.map((s: { schedule_id: string }) => s.schedule_id).sort();
        return ids.join() === 'yaml-a,yaml-b' ? ids : undefined;
      },
      20_000,
    );
    const paused = await ok('bulk', 'pause', '--selector', 'managed-by=cli-test,team=pay', '--yes');
    expect(paused).toMatch(/^pause by "managed-by=cli-test,team=pay": 2 schedule\(s\) picked; 2 DONE$/m);
    expect((await api.call('GET', '/v1/schedules/yaml-c', { key: KEY })).body.status).toBe('ACTIVE');
    const deleted = await ok('bulk', 'delete', '--selector', 'managed-by=cli-test', '--yes');
    expect(deleted).toMatch(/3 schedule\(s\) picked; 3 DONE$/m);
  });

  it('errors: one line on stderr and the documented exit code', async () => {
    const missing = await cli('get', 'no-such-schedule');
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^error: .*no-such-schedule.* \(NOT_FOUND\)\n$/);

    // Refused locally, before a round trip: the flag and the field.
    const zone = await cli(
      'create',
      '--cron',
      '0 9 * * *',
      '--timezone',
      'Europe/Rigaa',
      '--job',
      'recordedJob',
    );
    expect(zone.code).toBe(2);
    expect(zone.stderr).toBe(
      'error: --timezone (timing.timezone): unknown time zone "Europe/Rigaa" (expected an IANA id such as Europe/Riga)\n',
    );
    // Refused by the server (422): its problem on one line.
    const expired = await cli('create', '--at', '2020-01-01T00:00:00Z', '--job', 'recordedJob');
    expect(expired.code).toBe(2);
    expect(expired.stderr).toMatch(/^error: .*expired.* \(VALIDATION, field timing\.at\)\n$/);

    // A key on the command line works as before, after one line saying it is visible in `ps`.
    const unauthorized = await cli('list', '--api-key', 'not-a-key-0123456789');
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toMatch(
      /^warning: --api-key is visible to other users in `ps`.*\nerror: .*\(UNAUTHORIZED\); hint: set SCHEDULER_API_KEY or --api-key .*\n$/,
    );

    // A closed port: connection refused is "unavailable".
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const down = await cli('list', '--url', `http://127.0.0.1:${port}`);
    expect(down.code).toBe(5);
    expect(down.stderr).toBe(
      `error: cannot reach the scheduler at http://127.0.0.1:${port}: connection refused (is it running? set --url or SCHEDULER_URL)\n`,
    );
  });
});

/** `scheduler preview … --json` as a real process (preview needs no server: nothing is passed to reach one). */
function previewProcess(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'preview', ...args, '--json'],
      { cwd: repoRoot, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('scheduler preview agrees with POST /v1/preview to the second', () => {
  // A `from` with seconds and milliseconds: a bare RRULE must still start at its minute on both sides
  // (the CLI once printed 09:00:33 for this rule where the API and the running schedule said 09:00:00).
  const from = '2026-12-01T21:33:33.250Z';
  const cases: Array<{
    name: string;
    timing: Record<string, unknown>;
    options?: Record<string, unknown>;
    from?: string;
  }> = [
    {
      name: 'bare RRULE',
      timing: { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Riga' },
    },
    {
      // 02:30 does not exist in Berlin on 28 March 2027: the moved slot and its note must agree too.
      name: 'cron across a DST gap',
      timing: { kind: 'CRON', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
      from: '2027-03-20T21:33:33.250Z',
    },
    { name: 'interval from the creation instant', timing: { kind: 'INTERVAL', every: 'PT10M' } },
    {
      name: 'hourly rule in a weekday window',
      timing: { kind: 'RECURRENCE', rule: 'FREQ=HOURLY', timezone: 'Australia/Lord_Howe' },
      options: { window: { from: '09:00', to: '17:00', days: ['MO', 'TU', 'WE', 'TH', 'FR'] } },
    },
  ];

  for (const { name, timing, options, from: start = from } of cases) {
    it(name, async () => {
      const args = ['--timing', JSON.stringify(timing), '--from', start, '--count', '12'];
      if (options) args.push('--options', JSON.stringify(options));
      const [cli, http] = await Promise.all([
        previewProcess(args),
        api.call('POST', '/v1/preview', { key: KEY, body: { timing, ...options, from: start, count: 12 } }),
      ]);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      expect(http.status).toBe(200);
      const items = JSON.parse(cli.stdout) as Array<Record<string, unknown>>;
      expect(items).toHaveLength(12);
      expect(
        items.map((i) => ({
          scheduled_for: i.scheduled_for,
          fire_at: i.at,
          local: i.local,
          ...(i.label !== undefined ? { label: i.label } : {}),
          adjustments: i.adjustments ?? [],
        })),
      ).toEqual(http.body.runs);
    });
  }

  const RULE = 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0';
  const ISSUE_TIMING = { kind: 'RECURRENCE', rule: RULE, timezone: 'Europe/Riga' };
  const ruleFlags = ['--rule', RULE, '--timezone', 'Europe/Riga', '--count', '2'];

  it('the rule of the issue from --rule and --timezone, from one instant on both sides', async () => {
    // Half a second before 09:00 in Riga on the day its clocks go forward (09:00 +03:00 is 06:00Z): that
    // 09:00 is the first run on both sides. One `from` for both: each side reading its own clock, they
    // differed whenever a 09:00 in Riga passed between the two reads.
    const start = '2026-03-29T05:59:59.500Z';
    const [cli, http] = await Promise.all([
      previewProcess([...ruleFlags, '--from', start]),
      api.call('POST', '/v1/preview', { key: KEY, body: { timing: ISSUE_TIMING, from: start, count: 2 } }),
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(http.status).toBe(200);
    const items = JSON.parse(cli.stdout) as Array<{ at: string; local: string }>;
    expect(items.map((i) => ({ fire_at: i.at, local: i.local }))).toEqual(
      http.body.runs.map((r: { fire_at: string; local: string }) => ({ fire_at: r.fire_at, local: r.local })),
    );
    expect(items.map((i) => i.local)).toEqual(['2026-03-29T09:00:00+03:00', '2026-03-30T09:00:00+03:00']);
  });

  it('without --from: each side counts from its own clock, read while it was asked', async () => {
    // Whatever the hour: each side's clock was read between `before` and `after`, and the runs after any
    // instant of that window are the runs after one of its ends (at most one 09:00 falls inside it).
    const before = new Date();
    const [cli, http] = await Promise.all([
      previewProcess(ruleFlags),
      api.call('POST', '/v1/preview', { key: KEY, body: { timing: ISSUE_TIMING, count: 2 } }),
    ]);
    const after = new Date();
    expect(cli.code, cli.stderr).toBe(0);
    expect(http.status).toBe(200);
    const localsFrom = (from: Date) =>
      runPreview(
        { rule: RULE, timezone: 'Europe/Riga', from: from.toISOString(), count: '2' },
        from,
      ).items.map((i) => i.local);
    const possible = [localsFrom(before), localsFrom(after)];
    const cliLocals = (JSON.parse(cli.stdout) as Array<{ local: string }>).map((i) => i.local);
    const httpLocals = (http.body.runs as Array<{ local: string }>).map((r) => r.local);
    expect(possible).toContainEqual(cliLocals);
    expect(possible).toContainEqual(httpLocals);
    for (const local of [...cliLocals, ...httpLocals]) expect(local).toMatch(/T09:00:00\+0[23]:00$/);
  });
});

describe('scheduler interpret and create --when against the real API', () => {
  const NOW = '2026-12-01T10:00:00Z';

  const run = (argv: string[]) =>
    runCli(argv, { env: { SCHEDULER_URL: api.base, SCHEDULER_API_KEY: KEY }, isTTY: false });

  it('interpret --json prints what POST /v1/interpret answers for the same text, zone and now', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['every 10 minutes', undefined],
      ['every weekday at 09:00 in Europe/Riga', undefined],
      ['every day at 09:00', 'Europe/Riga'],
      ['every day at 5', 'Europe/Riga'],
      ['blorf gleep', undefined],
      ['every day at 09:00', undefined],
    ];
    for (const [text, timezone] of cases) {
      const http = await api.call('POST', '/v1/interpret', {
        key: KEY,
        body: { text, now: NOW, count: 4, ...(timezone ? { timezone } : {}) },
      });
      const printed = await run([
        'interpret',
        text,
        '--now',
        NOW,
        '--count',
        '4',
        ...(timezone ? ['--timezone', timezone] : []),
        '--json',
      ]);
      expect(http.status, `${text}: ${JSON.stringify(http.body)}`).toBeLessThan(500);
      expect(printed.code, text).toBe(http.status === 200 ? 0 : 2);
      expect(JSON.parse(printed.stdout), text).toEqual(http.body);
    }
  });

  it('create --when without --yes, not on a terminal: shows what it read, refuses (exit 2), creates nothing', async () => {
    const r = await run([
      'create',
      '--id',
      'words-refused',
      '--when',
      'every 10 minutes',
      '--job',
      'recordedJob',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Understood: /);
    expect(r.stderr).toMatch(/^error: --yes: .*pass --yes/);
    expect((await api.call('GET', '/v1/schedules/words-refused', { key: KEY })).status).toBe(404);
  });

  it('create --when --yes creates the structured rule; describe shows authored_from and the explanation', async () => {
    const text = 'every weekday at 09:00 in Europe/Riga';
    const created = await run([
      'create',
      '--id',
      'words-standup',
      '--when',
      text,
      '--job',
      'recordedJob',
      '--yes',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Understood: /);
    expect(created.stdout).toMatch(/^created words-standup: ACTIVE, version 1/m);

    const described = await run(['describe', 'words-standup', '--json']);
    expect(described.code).toBe(0);
    const { schedule } = JSON.parse(described.stdout);
    const read = await api.call('POST', '/v1/interpret', { key: KEY, body: { text } });
    expect(schedule).toMatchObject({
      authored_from: text,
      timing: read.body.timing,
      explanation: read.body.explanation,
    });
    const human = await run(['describe', 'words-standup']);
    expect(human.stdout).toMatch(new RegExp(`^authored from: +${JSON.stringify(text)}$`, 'm'));
    expect(human.stdout).toContain(`in words:`);
    expect(human.stdout).toContain(read.body.explanation);
  });
});
