import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type CalendarOptions,
  compileCalendar,
  type Slot,
  type Timing,
} from '../../../src/calendar/index.js';

export const ORACLE = fileURLToPath(new URL('../../python/rrule_oracle.py', import.meta.url));

/** a small deterministic PRNG (mulberry32) so generated cases are reproducible */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function next(
  timing: Timing,
  after: string,
  count: number,
  options?: CalendarOptions,
  createdAt = '2020-01-01T00:00:00Z',
): Slot[] {
  return compileCalendar({ scheduleId: 'test', timing, options, createdAt }).nextSlots(after, count).slots;
}

export const rrule = (rule: string, timezone: string): Timing => ({ kind: 'RECURRENCE', rule, timezone });

/** `DTSTART;TZID=…` block for a wall-clock DTSTART `YYYY-MM-DDTHH:MM:SS` */
export function block(tz: string, dtstart: string, body: string, extra = ''): string {
  return `DTSTART;TZID=${tz}:${dtstart.replace(/[-:]/g, '')}\nRRULE:${body}${extra ? `\n${extra}` : ''}`;
}

export interface OracleCase {
  id: string;
  tz: string;
  dtstart: string;
  rule: string;
  after: string;
  count: number;
}

export function pythonAvailable(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import dateutil, zoneinfo'], { encoding: 'utf8' });
  if (r.error) return `python3 not runnable: ${r.error.message}`;
  if (r.status !== 0)
    return `python-dateutil missing (pip install -r test/python/requirements.txt): ${r.stderr}`;
  return undefined;
}

export function runOracle(
  cases: OracleCase[],
  budgetSeconds = 2,
): Record<string, string[] | { error?: string; timeout?: string; inconclusive?: string }> {
  const r = spawnSync('python3', [ORACLE, String(budgetSeconds)], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 240_000,
  });
  if (r.status !== 0) throw new Error(`oracle failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}
