import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';

// The package's `scheduler` bin (what `npx scheduler` / a global install runs), as a real process.
describe('bin/scheduler.mjs', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(repoRoot, 'bin/scheduler.mjs'), ...args], { encoding: 'utf8' });

  it('runs preview and prints the JSON array', () => {
    const r = run(
      'preview',
      '--rule',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
      '--timezone',
      'Europe/Riga',
      '--from',
      '2026-09-05T00:00:00Z',
      '--count',
      '2',
      '--json',
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).map((o: { at: string; local: string }) => [o.at, o.local])).toEqual([
      ['2026-09-05T06:00:00Z', '2026-09-05T09:00:00+03:00'],
      ['2026-09-06T06:00:00Z', '2026-09-06T09:00:00+03:00'],
    ]);
  });

  it('exits 2 with one line for a bad rule', () => {
    const r = run('preview', '--rule', 'FREQ=NOPE', '--timezone', 'Europe/Riga');
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: timing\.rule: /);
  });
});
