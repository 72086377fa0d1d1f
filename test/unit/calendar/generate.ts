/** Generator of random valid RRULE cases for the differential test. */
import { IANAZone } from 'luxon';
import type { OracleCase } from './helpers.js';

/** DST transitions 2019–2028 of a zone, straight from luxon/Intl (not from the engine) */
const transitionCache = new Map<string, Array<{ at: number; hour: number }>>();
export function transitions(tz: string): Array<{ at: number; hour: number }> {
  let out = transitionCache.get(tz);
  if (out) return out;
  out = [];
  const z = IANAZone.create(tz);
  const step = 6 * 3600_000;
  for (let t = Date.UTC(2019, 0, 1); t < Date.UTC(2029, 0, 1); t += step) {
    const a = z.offset(t);
    const b = z.offset(t + step);
    if (a === b) continue;
    let lo = t;
    let hi = t + step;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (z.offset(mid) === a) lo = mid;
      else hi = mid;
    }
    // the first wall-clock hour that is missing or repeated
    const wall = hi + Math.min(a, b) * 60_000;
    out.push({ at: hi, hour: new Date(wall).getUTCHours() });
  }
  transitionCache.set(tz, out);
  return out;
}

const ZONES = [
  'Europe/Riga',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Antarctica/Troll',
  'Asia/Kolkata',
  'UTC',
  'America/Sao_Paulo',
  'Europe/Berlin',
  'America/Santiago',
  'Asia/Tehran',
];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const FREQS: Array<[string, number]> = [
  ['YEARLY', 15],
  ['MONTHLY', 25],
  ['WEEKLY', 20],
  ['DAILY', 21],
  ['HOURLY', 10],
  ['MINUTELY', 7],
  ['SECONDLY', 2],
];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function generateCase(rnd: () => number, id: string): OracleCase {
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const tz = pick(ZONES);
  // a third of the cases aim at a DST transition: gaps and folds are where engines disagree
  const ts = transitions(tz);
  const near = ts.length > 0 && rnd() < 0.35 ? pick(ts) : undefined;
  const some = <T>(xs: readonly T[], lo: number, hi: number): T[] => {
    const n = int(lo, hi);
    const out: T[] = [];
    for (let i = 0; i < n * 3 && out.length < n; i++) {
      const x = pick(xs);
      if (!out.includes(x)) out.push(x);
    }
    return out;
  };
  const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  let r = rnd() * 100;
  let freq = 'DAILY';
  for (const [f, w] of FREQS) {
    if (r < w) {
      freq = f;
      break;
    }
    r -= w;
  }
  const sub = freq === 'HOURLY' || freq === 'MINUTELY' || freq === 'SECONDLY';
  const parts = [`FREQ=${freq}`];
  const ri = rnd();
  if (ri > 0.6) parts.push(`INTERVAL=${ri > 0.9 ? int(5, 13) : int(2, 4)}`);
  let hasBy = false;
  if (rnd() < (freq === 'YEARLY' ? 0.5 : 0.15)) {
    parts.push(`BYMONTH=${some(range(1, 12), 1, 3).join(',')}`);
    hasBy = true;
  }
  const weekno = freq === 'YEARLY' && rnd() < 0.15;
  if (weekno) {
    parts.push(`BYWEEKNO=${some([...range(1, 53), -1, -2], 1, 3).join(',')}`);
    hasBy = true;
  }
  if (freq !== 'WEEKLY' && rnd() < (freq === 'MONTHLY' || freq === 'YEARLY' ? 0.3 : 0.1)) {
    parts.push(`BYMONTHDAY=${some([...range(1, 31), -1, -2, -3, -7], 1, 3).join(',')}`);
    hasBy = true;
  }
  if ((freq === 'YEARLY' || sub) && rnd() < 0.1) {
    parts.push(
      `BYYEARDAY=${some([1, 2, 32, 59, 60, 100, 200, 365, 366, -1, -2, -100, -366], 1, 3).join(',')}`,
    );
    hasBy = true;
  }
  if (rnd() < 0.4) {
    const ordinals = (freq === 'MONTHLY' || freq === 'YEARLY') && !weekno && rnd() < 0.5;
    const days = some(DAYS, 1, 4).map((d) => {
      if (!ordinals) return d;
      const n =
        freq === 'YEARLY' && rnd() < 0.3 ? pick([1, 2, 10, 20, 52, -1, -10]) : pick([1, 2, 3, 4, 5, -1, -2]);
      return `${n}${d}`;
    });
    parts.push(`BYDAY=${days.join(',')}`);
    hasBy = true;
  }
  if (rnd() < 0.4) {
    const hours = some(range(0, 23), 1, 3);
    if (near && !hours.includes(near.hour)) hours.push(near.hour);
    parts.push(`BYHOUR=${hours.join(',')}`);
    hasBy = true;
  }
  if (rnd() < 0.3) {
    parts.push(`BYMINUTE=${some([0, 15, 30, 45, 7, 59], 1, 3).join(',')}`);
    hasBy = true;
  }
  if (rnd() < 0.1) {
    parts.push(`BYSECOND=${some([0, 30, 59], 1, 2).join(',')}`);
    hasBy = true;
  }
  if (hasBy && rnd() < 0.15) parts.push(`BYSETPOS=${some([1, 2, 3, -1, -2], 1, 2).join(',')}`);
  if (rnd() < 0.2) parts.push(`WKST=${pick(DAYS)}`);
  const spanMs =
    (freq === 'SECONDLY' ? 0.1 : freq === 'MINUTELY' ? 3 : freq === 'HOURLY' ? 60 : 1100) * 86_400_000;
  let dtstart: string;
  let after: string;
  const minute = pick([0, 0, 0, 30, 15, 59]);
  const second = rnd() < 0.8 ? 0 : int(0, 59);
  if (near) {
    // DTSTART some time before the transition, at the transition's wall hour; `after` just before it
    const margin = freq === 'SECONDLY' ? 3_600_000 : freq === 'MINUTELY' ? 86_400_000 : 3 * 86_400_000;
    const back = Math.floor(rnd() * Math.min(spanMs, 400 * 86_400_000)) + margin;
    const d = new Date(near.at - back);
    dtstart = `${d.toISOString().slice(0, 10)}T${pad(near.hour)}:${pad(minute)}:${pad(second)}`;
    after = new Date(near.at - Math.floor(rnd() * Math.min(margin, 2 * 86_400_000)))
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  } else {
    const year = int(2019, 2027);
    dtstart = `${year}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(minute)}:${pad(second)}`;
    after = new Date(Date.parse(`${dtstart}Z`) + Math.floor((rnd() - 0.05) * spanMs))
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  }
  const rc = rnd();
  if (rc < 0.12) parts.push(`COUNT=${int(1, 40)}`);
  else if (rc < 0.22) {
    // at least a day after DTSTART in any zone, so UNTIL is never before DTSTART
    const base = Math.max(Date.parse(after), Date.parse(`${dtstart}Z`) + 86_400_000);
    const u = new Date(base + int(1, 400) * 86_400_000 * (sub ? 0.01 : 1));
    parts.push(
      `UNTIL=${u
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}`,
    );
  }
  return { id, tz, dtstart, rule: parts.join(';'), after, count: int(1, 8) };
}
