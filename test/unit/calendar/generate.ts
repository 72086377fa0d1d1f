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

/** the random helpers every generator draws from `rnd` with */
function draw(rnd: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
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
  return { int, pick, some, range };
}

function pickFreq(rnd: () => number, freqs: Array<[string, number]> = FREQS): string {
  const total = freqs.reduce((a, [, w]) => a + w, 0);
  let r = rnd() * total;
  let freq = 'DAILY';
  for (const [f, w] of freqs) {
    if (r < w) {
      freq = f;
      break;
    }
    r -= w;
  }
  return freq;
}

const isSubDaily = (freq: string) => freq === 'HOURLY' || freq === 'MINUTELY' || freq === 'SECONDLY';

/** FREQ and the BYxxx parts of a random rule (no COUNT/UNTIL); `nearHour` is a DST transition's hour */
function ruleBody(rnd: () => number, freq: string, nearHour: number | undefined): string[] {
  const { int, pick, some, range } = draw(rnd);
  const sub = isSubDaily(freq);
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
    if (nearHour !== undefined && !hours.includes(nearHour)) hours.push(nearHour);
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
  return parts;
}

/** sometimes a COUNT, sometimes a UTC UNTIL at least a day after DTSTART (so never before it) */
function ruleEnd(rnd: () => number, freq: string, dtstart: string, after: string): string | undefined {
  const { int } = draw(rnd);
  const rc = rnd();
  if (rc < 0.12) return `COUNT=${int(1, 40)}`;
  if (rc < 0.22) {
    const base = Math.max(Date.parse(after), Date.parse(`${dtstart}Z`) + 86_400_000);
    const u = new Date(base + int(1, 400) * 86_400_000 * (isSubDaily(freq) ? 0.01 : 1));
    return `UNTIL=${icsUtc(u.getTime())}`;
  }
  return undefined;
}

/** `20270101T090000Z` */
const icsUtc = (t: number) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
/** `2027-01-01T09:00:00` → `20270101T090000` */
const icsWall = (wall: string) => wall.replace(/[-:]/g, '');
const isoSeconds = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');

export function generateCase(rnd: () => number, id: string): OracleCase {
  const { int, pick } = draw(rnd);
  const tz = pick(ZONES);
  // a third of the cases aim at a DST transition: gaps and folds are where engines disagree
  const ts = transitions(tz);
  const near = ts.length > 0 && rnd() < 0.35 ? pick(ts) : undefined;
  const freq = pickFreq(rnd);
  const parts = ruleBody(rnd, freq, near?.hour);
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
    after = isoSeconds(near.at - Math.floor(rnd() * Math.min(margin, 2 * 86_400_000)));
  } else {
    const year = int(2019, 2027);
    dtstart = `${year}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(minute)}:${pad(second)}`;
    after = isoSeconds(Date.parse(`${dtstart}Z`) + Math.floor((rnd() - 0.05) * spanMs));
  }
  const end = ruleEnd(rnd, freq, dtstart, after);
  if (end !== undefined) parts.push(end);
  return { id, tz, dtstart, rule: parts.join(';'), after, count: int(1, 8) };
}

// ---------------------------------------------------------------------------------------------
// recurrence sets: several RRULEs, EXRULEs, RDATEs (also PERIODs), EXDATEs, in several zones

/** the zones of the set cases: DST of an hour, of 30 minutes (Lord Howe), at midnight (Santiago), historic (Tehran) */
export const SET_ZONES = [
  'Europe/Riga',
  'America/New_York',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Tehran',
  'Europe/London',
  'Pacific/Chatham',
  'UTC',
];
/** sub-daily rules stay rare and coarse: dateutil's rruleset is slow on them */
const SET_FREQS: Array<[string, number]> = [
  ['YEARLY', 10],
  ['MONTHLY', 25],
  ['WEEKLY', 30],
  ['DAILY', 30],
  ['HOURLY', 5],
];

export interface SetCase extends OracleCase {
  /** the RFC 5545 block: what the engine compiles and the oracle reads line by line */
  block: string;
  /** every RDATE/EXDATE wall time with its zone (a DST policy reads the ones in a gap or fold) */
  walls: Array<{ zone: string; wall: string }>;
}

/**
 * A random recurrence set: 1–3 RRULEs (each its own COUNT/UNTIL), maybe EXRULEs, RDATEs in the
 * rule's zone, another zone or UTC (some as PERIODs, both forms), and EXDATEs. Half of the cases
 * sit on a DST transition of the rule's zone; the other-zone values often sit on one of theirs.
 * `occurrences` gives the first slots of the set without exclusions, so that EXDATEs can hit them.
 */
export function generateSetCase(
  rnd: () => number,
  id: string,
  occurrences: (block: string, tz: string, after: string, count: number) => number[],
): SetCase {
  const { int, pick, some } = draw(rnd);
  const tz = pick(SET_ZONES);
  const ts = transitions(tz);
  const near = ts.length > 0 && rnd() < 0.5 ? pick(ts) : undefined;
  const minute = pick([0, 0, 30, 15, 45]);
  let dtstart: string;
  let after: string;
  if (near) {
    const d = new Date(near.at - int(3, 120) * 86_400_000);
    dtstart = `${d.toISOString().slice(0, 10)}T${pad(near.hour)}:${pad(minute)}:00`;
    after = isoSeconds(near.at - int(0, 2 * 24) * 3_600_000);
  } else {
    dtstart = `${int(2019, 2027)}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(minute)}:00`;
    after = isoSeconds(Date.parse(`${dtstart}Z`) + int(-2, 200) * 86_400_000);
  }
  const rules = Array.from({ length: int(1, 3) }, () => {
    const freq = pickFreq(rnd, SET_FREQS);
    const parts = ruleBody(rnd, freq, near?.hour);
    const end = ruleEnd(rnd, freq, dtstart, after);
    if (end !== undefined) parts.push(end);
    return parts.join(';');
  });
  // an EXRULE shares DTSTART (so its time of day) with the RRULEs: a filter on days removes some
  const exrules: string[] = [];
  if (rnd() < 0.5) {
    for (let i = int(1, 2); i > 0; i--) {
      const r = rnd();
      const parts =
        r < 0.4
          ? ['FREQ=DAILY', `BYDAY=${some(DAYS, 1, 3).join(',')}`]
          : r < 0.6
            ? ['FREQ=MONTHLY', `BYMONTHDAY=${some([1, 2, 5, 10, 15, 28, -1], 1, 3).join(',')}`]
            : ruleBody(rnd, pickFreq(rnd, SET_FREQS), near?.hour);
      if (rnd() < 0.3) parts.push(`COUNT=${int(1, 30)}`);
      exrules.push(parts.join(';'));
    }
  }
  // a wall time near `after` in `zone`: on one of its DST transitions a third of the time
  const wallNear = (zone: string): string => {
    const zt = transitions(zone).filter((t) => Math.abs(t.at - Date.parse(after)) < 20 * 86_400_000);
    if (zt.length > 0 && rnd() < 0.5) {
      const t = pick(zt);
      return `${wallIn(zone, t.at).slice(0, 10)}T${pad(t.hour)}:${pad(pick([0, 15, 30, 45]))}:00`;
    }
    const t = Date.parse(after) + int(-2, 12) * 86_400_000;
    return `${new Date(t).toISOString().slice(0, 10)}T${pad(int(0, 23))}:${pad(pick([0, 30, 15]))}:00`;
  };
  const other = () => pick(SET_ZONES.filter((z) => z !== tz && z !== 'UTC'));
  const lines: string[] = [`DTSTART;TZID=${tz}:${icsWall(dtstart)}`, ...rules.map((r) => `RRULE:${r}`)];
  const walls: SetCase['walls'] = [];
  for (const r of exrules) lines.push(`EXRULE:${r}`);
  if (rnd() < 0.6) {
    for (let i = int(1, 3); i > 0; i--) {
      const k = rnd();
      const zone = k < 0.4 ? tz : other();
      const w = wallNear(zone);
      if (k <= 0.85) walls.push({ zone, wall: w });
      const value = k > 0.85 ? icsUtc(Date.parse(`${w}Z`)) : icsWall(w);
      const tzid = k > 0.85 ? '' : `;TZID=${zone}`;
      if (rnd() < 0.35) {
        // a PERIOD: its start is the occurrence; start/end or start/duration
        const endPart =
          rnd() < 0.5
            ? pick(['PT1H', 'PT30M', 'P1D', 'PT2H15M', 'P1W'])
            : k > 0.85
              ? icsUtc(Date.parse(`${w}Z`) + 5_400_000)
              : icsWall(new Date(Date.parse(`${w}Z`) + 5_400_000).toISOString().slice(0, 19));
        lines.push(`RDATE;VALUE=PERIOD${tzid}:${value}/${endPart}`);
      } else lines.push(`RDATE${tzid}:${value}`);
    }
  }
  const count = int(1, 10);
  if (rnd() < 0.6) {
    // EXDATEs that hit: some of the set's own first slots, written in its zone, another zone or UTC
    let hits: number[] = [];
    try {
      hits = occurrences(lines.join('\n'), tz, after, count + 2);
    } catch {
      // a set the engine refuses: the case says so itself
    }
    const chosen = hits.filter(() => rnd() < 0.4);
    const exdates: string[] = [];
    const exdate = (zone: string, wall: string) => {
      walls.push({ zone, wall });
      exdates.push(`EXDATE;TZID=${zone}:${icsWall(wall)}`);
    };
    for (const t of chosen) {
      const k = rnd();
      if (k < 0.5) exdate(tz, wallIn(tz, t));
      else if (k < 0.8) {
        const zone = other();
        exdate(zone, wallIn(zone, t));
      } else exdates.push(`EXDATE:${icsUtc(t)}`);
    }
    if (rnd() < 0.3) exdate(tz, wallNear(tz));
    lines.push(...exdates);
  }
  return { id, tz, dtstart, rule: '', block: lines.join('\n'), walls, after, count };
}

/** true when a wall time (`YYYY-MM-DDTHH:MM:SS`) does not exist or occurs twice in a zone (luxon) */
export function dstAffected(zone: string, wall: string): boolean {
  const z = IANAZone.create(zone);
  const w = Date.parse(`${wall}Z`);
  const offsets = new Set([z.offset(w - 30 * 3_600_000), z.offset(w), z.offset(w + 30 * 3_600_000)]);
  const valid = [...offsets].filter((o) => z.offset(w - o * 60_000) === o);
  return valid.length !== 1;
}

/** the wall clock (`YYYY-MM-DDTHH:MM:SS`) of an instant in a zone, from luxon (not from the engine) */
function wallIn(zone: string, instant: number): string {
  const offsetMin = IANAZone.create(zone).offset(instant);
  return new Date(instant + offsetMin * 60_000).toISOString().slice(0, 19);
}
