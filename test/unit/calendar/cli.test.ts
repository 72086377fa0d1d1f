/** The `preview` command, run as a real process. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function cli(args: string[], viaNpm = false) {
  const r = viaNpm
    ? spawnSync('npm', ['run', '-s', 'cli', '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
    : spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scheduler preview', () => {
  it('prints the first N occurrences strictly after --from as JSON (npm run -s cli)', () => {
    const r = cli(
      [
        'preview',
        '--rule',
        'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0',
        '--timezone',
        'Europe/Riga',
        '--from',
        '2026-03-27T00:00:00Z',
        '--count',
        '3',
        '--json',
      ],
      true,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const items = JSON.parse(r.stdout) as Array<{ at: string; local: string }>;
    // Friday 27 March 09:00 EET (+2); Riga moves to EEST (+3) on Sunday 29 March 2026
    expect(items.map((i) => [i.at, i.local])).toEqual([
      ['2026-03-27T07:00:00Z', '2026-03-27T09:00:00+02:00'],
      ['2026-03-30T06:00:00Z', '2026-03-30T09:00:00+03:00'],
      ['2026-03-31T06:00:00Z', '2026-03-31T09:00:00+03:00'],
    ]);
  });

  it('a block with DTSTART;TZID wins over --from; DTSTART is an occurrence only if it matches', () => {
    const rule = 'DTSTART;TZID=America/New_York:19970902T090000\nRRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13';
    const r = cli([
      'preview',
      '--rule',
      rule,
      '--timezone',
      'America/New_York',
      '--from',
      '1997-01-01T00:00:00Z',
      '--count',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((i: { local: string }) => i.local)).toEqual([
      '1998-02-13T09:00:00-05:00',
      '1998-03-13T09:00:00-05:00',
    ]);
  });

  it('--timing accepts any kind', () => {
    const r = cli([
      'preview',
      '--timing',
      '{"kind":"CRON","expression":"0 9 * * 1-5","timezone":"UTC"}',
      '--from',
      '2027-01-01T09:00:00Z',
      '--count',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    // 2027-01-01 is a Friday: strictly after 09:00 → Monday 4th, Tuesday 5th
    expect(JSON.parse(r.stdout).map((i: { at: string }) => i.at)).toEqual([
      '2027-01-04T09:00:00Z',
      '2027-01-05T09:00:00Z',
    ]);
  });

  it('--from defaults to now', () => {
    const before = Date.now();
    const r = cli(['preview', '--rule', 'FREQ=MINUTELY', '--timezone', 'UTC', '--count', '2', '--json']);
    expect(r.code).toBe(0);
    const items = JSON.parse(r.stdout) as Array<{ at: string }>;
    expect(items).toHaveLength(2);
    expect(Date.parse(items[0]!.at)).toBeGreaterThan(before - 1000);
    expect(Date.parse(items[0]!.at)).toBeLessThan(before + 120_000);
  });

  it('without --json prints a table that marks DST-moved and deferred slots', () => {
    const r = cli([
      'preview',
      '--rule',
      'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
      '--timezone',
      'America/New_York',
      '--from',
      '2027-03-13T12:00:00Z',
      '--count',
      '2',
    ]);
    expect(r.code).toBe(0);
    // The timing in words on top, a blank line, then the table.
    const [explanation, blank, ...lines] = r.stdout.trim().split('\n');
    expect(explanation).toMatch(/^every day at 02:30 in America\/New_York/);
    expect(blank).toBe('');
    expect(lines[0]).toMatch(/at \(UTC\).*local \(America\/New_York\)/);
    expect(lines[2]).toMatch(
      /2027-03-14T07:30:00Z\s+2027-03-14T03:30:00-04:00\s+DST-moved: 02:30 does not exist on 2027-03-14/,
    );
    expect(lines[3]).not.toMatch(/DST/);
    const w = cli([
      'preview',
      '--timing',
      '{"kind":"CRON","expression":"0 20 * * *","timezone":"UTC"}',
      '--options',
      '{"window":{"from":"09:00","to":"18:00"}}',
      '--from',
      '2027-01-01T00:00:00Z',
      '--count',
      '1',
    ]);
    expect(w.stdout).toMatch(/2027-01-02T09:00:00Z.*deferred/);
  });

  it.each([
    [
      ['preview', '--rule', 'FREQ=DAILY', '--timezone', 'Mars/Base', '--json'],
      /timing\.timezone: unknown time zone "Mars\/Base"/,
    ],
    [
      ['preview', '--rule', 'FREQ=DAILY', '--timezone', '+02:00', '--json'],
      /timing\.timezone: .*fixed UTC offset/,
    ],
    [
      ['preview', '--rule', 'FREQ=DAILY;BYHOUR=25', '--timezone', 'UTC', '--json'],
      /timing\.rule: BYHOUR: 25 is out of range/,
    ],
    [
      ['preview', '--rule', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', '--timezone', 'UTC'],
      /timing\.rule: .*never fire/,
    ],
    [['preview', '--rule', 'FREQ=DAILY', '--json'], /--timezone: is required/],
    [['preview', '--timing', '{not json', '--json'], /--timing: is not valid JSON/],
    [['preview', '--rule', 'FREQ=DAILY', '--timezone', 'UTC', '--count', 'many'], /--count/],
    [
      ['preview', '--rule', 'FREQ=DAILY', '--timezone', 'UTC', '--from', 'yesterday'],
      /--from: "yesterday" must be an ISO 8601 instant/,
    ],
    [
      ['preview', '--rule', 'FREQ=DAILY', '--timezone', 'UTC', '--from', '2027-01-01T00:00:00'],
      /--from: .* must be an ISO 8601 instant/,
    ],
    [['preview', '--bogus'], /unknown option/],
  ])('bad input %j → one line on stderr, exit 2, no stack', (args, message) => {
    const r = cli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
