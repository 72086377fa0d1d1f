/**
 * Human output of the schedule commands: tables and key/value blocks. Times are shown in the schedule's
 * zone with their UTC offset, so "09:00 +02:00" reads as the wall clock the schedule was written in.
 * Pure functions of the API's responses (`--json` bypasses all of this and prints the API's JSON). What
 * other owners of the tenant wrote is shown with its control characters escaped (terminalSafe).
 */
import { DateTime } from 'luxon';
import type { Timing } from '../calendar/timing.js';
import type {
  BackfillResult,
  BulkResult,
  NextRun,
  NotifyTarget,
  Occurrence,
  RecomputeResult,
  RecomputeSummary,
  Schedule,
  ScheduleDescription,
  Target,
} from '../model/contracts.js';
import type { ApplyChange, ApplyResult } from '../model/http.js';

/**
 * What a terminal acts on instead of showing: the C0 controls (ESC begins every ANSI, OSC and DCS sequence;
 * CR, BS and BEL rewrite the line or ring), DEL, the C1 controls (U+009B alone is a CSI, U+009D an OSC, on
 * terminals that honour them), and the Unicode controls that reorder or break what is shown (bidi marks,
 * embeddings, overrides and isolates; line and paragraph separators).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const SHOWN_AS: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escaped = (c: string) => {
  const code = c.charCodeAt(0);
  return (
    SHOWN_AS[c] ??
    (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
};

/**
 * One value someone else wrote (another owner of the tenant: a pause note, a reason, an event type, a
 * label, a URL), inert on a terminal: every control character is shown as its escape (`\x1b`, `\r`,
 * `\x9b`, `\n`), so that an escape sequence prints as text and no line can be forged or rewritten.
 * Escaped rather than stripped: the reader sees that something was there (stripping would hide the
 * attempt, and could join what is left into another meaning), and no sequence grammar has to be parsed
 * (without its ESC or C1 introducer, no sequence starts). Human output only: `--json` prints the API's
 * JSON as it came.
 */
export function terminalSafe(value: string): string {
  return value.replace(TERMINAL_CONTROLS, escaped);
}

/** Human output of several lines, inert on a terminal as terminalSafe makes a value, its line breaks kept. */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}

/** Columns padded to their widest cell; the last column is not padded. Cells are shown terminal-safe. */
export function table(head: string[], plainRows: string[][]): string {
  const rows = plainRows.map((row) => row.map(terminalSafe));
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The zone a schedule's times are shown in: its timing's zone, else its schedule-level zone, else UTC. */
export function zoneOf(schedule: Pick<Schedule, 'timing' | 'timezone'>): string {
  const timing = schedule.timing as { timezone?: string };
  return timing.timezone ?? schedule.timezone ?? 'UTC';
}

const LOCAL_FORMAT = 'yyyy-MM-dd HH:mm:ss ZZ';

/** An instant in `zone`, e.g. `2027-01-04 09:00:00 +02:00`; `-` for none. */
export function inZone(iso: string | null | undefined, zone: string): string {
  if (!iso) return '-';
  let dt = DateTime.fromISO(iso, { setZone: true }).setZone(zone);
  if (!dt.isValid) dt = DateTime.fromISO(iso, { setZone: true }).toUTC();
  return dt.isValid ? dt.toFormat(LOCAL_FORMAT) : iso;
}

/** An ISO string that carries its own offset (scheduled_for, local), in that offset. */
export function asWritten(iso: string | null | undefined): string {
  if (!iso) return '-';
  const dt = DateTime.fromISO(iso, { setZone: true });
  return dt.isValid ? dt.toFormat(LOCAL_FORMAT) : iso;
}

export function timingSummary(timing: Timing): string {
  switch (timing.kind) {
    case 'ONE_TIME':
      return `once at ${timing.at}`;
    case 'DELAY':
      return `after ${timing.delay}${timing.anchor ? ` from ${timing.anchor}` : ' from creation'}`;
    case 'INTERVAL':
      return `every ${timing.every}${timing.mode === 'FIXED_DELAY' ? ' (after each run ends)' : ''}${
        timing.anchor ? ` from ${timing.anchor}` : ''
      }`;
    case 'RECURRENCE':
      return `rule ${timing.rule.replace(/\s*\n\s*/g, ' | ')}`;
    case 'CRON':
      return `cron "${timing.expression}"`;
    case 'DEADLINE':
      return `deadline ${timing.at}${timing.reminders?.length ? `, reminders ${timing.reminders.join(', ')} before` : ''}`;
    case 'BUSINESS_DAY':
      return `business day ${timing.n} of every ${timing.period.toLowerCase()}${timing.months ? ` (months ${timing.months.join(', ')})` : ''} at ${timing.time}`;
  }
}

export function targetSummary(target: Target): string {
  const ref = target.payload_ref ? `, payload_ref ${target.payload_ref}` : '';
  const payload = target.payload ? `, payload ${JSON.stringify(target.payload)}` : '';
  switch (target.type) {
    case 'JOB':
      return `JOB ${target.job_type}${target.task_queue ? ` on ${target.task_queue}` : ''}${ref}${payload}${
        target.retry ? `, retried up to ${target.retry.attempts} runs` : ''
      }`;
    case 'EVENT':
      return `EVENT ${target.event_type} → ${target.sink_url}${ref}${payload}`;
    case 'WORKFLOW_SIGNAL':
      return `SIGNAL ${target.signal_name} → workflow ${target.workflow_id}${
        target.start ? ` (start ${target.start.workflow_type} on ${target.start.task_queue})` : ''
      }${ref}${payload}`;
  }
}

/**
 * `list`: id, status, kind, next run in the schedule's zone, zone, version, and (when the API says any)
 * the last outcome and the timing in words.
 */
export function formatScheduleList(items: Schedule[]): string {
  if (items.length === 0) return '(no schedules)';
  const lastRead = items.some((s) => s.last_occurrence !== undefined);
  const explained = items.some((s) => s.explanation !== undefined);
  return table(
    [
      'ID',
      'STATUS',
      'KIND',
      'NEXT RUN (local)',
      'ZONE',
      'VERSION',
      ...(lastRead ? ['LAST'] : []),
      ...(explained ? ['IN WORDS'] : []),
    ],
    items.map((s) => {
      const zone = zoneOf(s);
      const status = s.deleted_at ? `${s.status} (deleted)` : s.status;
      return [
        s.schedule_id,
        status,
        s.timing.kind,
        inZone(s.next_run_at, zone),
        zone,
        String(s.version),
        ...(lastRead ? [s.last_occurrence?.status ?? '-'] : []),
        ...(explained ? [s.explanation ?? '-'] : []),
      ];
    }),
  );
}

function keyValues(pairs: Array<[string, string | undefined | null]>): string {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined && p[1] !== null);
  const width = Math.max(...shown.map(([k]) => k.length)) + 1;
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width)} ${terminalSafe(v)}`).join('\n');
}

const notifySummary = (target: NotifyTarget): string =>
  target.type === 'EVENT'
    ? `POST ${target.sink_url}`
    : `signal ${target.signal_name} to ${target.workflow_id}`;

function onFailureSummary(hook: Schedule['on_failure']): string | undefined {
  if (!hook) return undefined;
  const actions = [hook.pause ? 'pause' : '', hook.notify ? `notify ${notifySummary(hook.notify)}` : '']
    .filter(Boolean)
    .join(', ');
  return `after ${hook.after_consecutive} in a row: ${actions}`;
}

/** What the failure hooks counted and did (describe). */
export function failureLines(f: ScheduleDescription['failures']): string[] {
  if (!f) return [];
  const state = f.paused_by_hook ? 'failing, paused by the hook' : f.failing ? 'failing' : 'ok';
  const notice = f.last_notice
    ? `; last notice ${f.last_notice.kind} at ${f.last_notice.at}: ${f.last_notice.delivered ? 'delivered' : 'NOT delivered'} (${f.last_notice.detail ?? '-'})`
    : '';
  return [`Failures in a row: ${f.consecutive_failures} (hook at ${f.after_consecutive}): ${state}${notice}`];
}

/** The newest due occurrence in a line: its status, its slot as written, its reason. */
function lastOutcome(last: Schedule['last_occurrence']): string | undefined {
  if (last === undefined) return undefined;
  if (last === null) return 'none yet';
  return `${last.status} (slot ${asWritten(last.scheduled_for)}, ${last.trigger})${last.reason ? `: ${last.reason}` : ''}`;
}

/** The key fields of a schedule (get, and the top of describe). */
export function formatSchedule(s: Schedule): string {
  const zone = zoneOf(s);
  const window = s.window
    ? `${s.window.days ? `${s.window.days.join(',')} ` : ''}${s.window.from}-${s.window.to}${
        s.window.timezone ? ` ${s.window.timezone}` : ''
      } (outside: ${s.window.outside ?? 'DEFER'})`
    : undefined;
  return keyValues([
    ['schedule', s.schedule_id],
    ['status', `${s.status}${s.pause_note ? ` (note: ${s.pause_note})` : ''}`],
    ['version', String(s.version)],
    ['timing', `${timingSummary(s.timing)} (${s.timing.kind})`],
    ['in words', s.explanation],
    ['authored from', s.authored_from !== undefined ? JSON.stringify(s.authored_from) : undefined],
    ['zone', zone],
    ['target', targetSummary(s.target)],
    ['next run', s.next_run_at ? `${inZone(s.next_run_at, zone)} (${s.next_run_at})` : '-'],
    ['last run', s.last_run_at ? inZone(s.last_run_at, zone) : '-'],
    ['last outcome', lastOutcome(s.last_occurrence)],
    [
      'policies',
      `misfire ${s.misfire} (late after ${s.max_lateness_s}s), overlap ${s.overlap}${
        s.misfire === 'CATCH_UP' ? `, catch_up_limit ${s.catch_up_limit}` : ''
      }${s.overlap === 'QUEUE' ? `, queue_limit ${s.queue_limit}` : ''}`,
    ],
    ['window', window],
    ['exclusions', s.exclusions?.length ? s.exclusions.join(', ') : undefined],
    ['starts at', s.starts_at],
    ['ends at', s.ends_at],
    ['max count', s.max_count !== undefined ? String(s.max_count) : undefined],
    ['jitter', s.jitter],
    [
      'labels',
      s.labels && Object.keys(s.labels).length > 0
        ? Object.entries(s.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')
        : undefined,
    ],
    ['on failure', onFailureSummary(s.on_failure)],
    ['on recovery', s.on_recovery ? `notify ${notifySummary(s.on_recovery.notify)}` : undefined],
    ['applied', s.applied_digest ? `by apply (digest ${s.applied_digest.slice(0, 12)})` : undefined],
    ['owner', `${s.tenant_id}/${s.owner_ref}`],
    ['owner revoked', s.owner_revoked_at ? inZone(s.owner_revoked_at, zone) : undefined],
    ['created', inZone(s.created_at, zone)],
    ['updated', inZone(s.updated_at, zone)],
    ['deleted', s.deleted_at ? inZone(s.deleted_at, zone) : undefined],
  ]);
}

const MARKS: Record<string, string> = {
  DST_GAP: 'DST-moved',
  DST_FOLD: 'DST-fold',
  WINDOW_DEFER: 'deferred',
  JITTER: 'jitter',
};

/** The notes of a next run: its label and every DST / window / jitter adjustment. */
export function runNotes(run: Pick<NextRun, 'label' | 'adjustments'>): string {
  return [run.label, ...run.adjustments.map((a) => `${MARKS[a.kind] ?? a.kind}: ${a.note}`)]
    .filter(Boolean)
    .join('; ');
}

export function formatNextRuns(runs: NextRun[], zone: string): string {
  if (runs.length === 0) return '(no further runs)';
  return table(
    ['#', `LOCAL (${zone})`, 'AT (UTC)', 'NOTES'],
    runs.map((r, i) => [String(i + 1), asWritten(r.local), r.fire_at, runNotes(r)]),
  );
}

/** Occurrences, newest first; each slot in the offset it was scheduled in. */
export function formatOccurrences(items: Occurrence[]): string {
  if (items.length === 0) return '(no occurrences)';
  return table(
    ['SCHEDULED FOR (local)', 'STATUS', 'TRIGGER', 'V', 'OCCURRENCE', 'REASON'],
    items.map((o) => [
      asWritten(o.scheduled_for),
      `${o.status}${o.duplicate_prevented ? ' (dup prevented)' : ''}`,
      o.trigger,
      String(o.schedule_version),
      o.occurrence_id,
      o.reason ?? '',
    ]),
  );
}

/** `describe`: the schedule, its next runs with DST/window notes, counters, running/queued, recent occurrences. */
export function formatDescription(d: ScheduleDescription, recent = 10): string {
  const zone = zoneOf(d.schedule);
  const c = d.counters;
  const newest = [...d.recent_occurrences]
    .sort((a, b) => b.scheduled_for.localeCompare(a.scheduled_for))
    .slice(0, recent);
  const more = d.recent_occurrences.length - newest.length;
  return [
    formatSchedule(d.schedule),
    '',
    'Next runs:',
    formatNextRuns(d.next_runs, zone),
    '',
    `Counters: fired ${c.fired}, caught up ${c.caught_up}, skipped ${c.skipped}, expired ${c.expired}, failed ${c.failed}, duplicates prevented ${c.duplicates_prevented}`,
    `Running: ${d.running.length ? d.running.join(', ') : 'none'}; queued: ${d.queued.length ? d.queued.join(', ') : 'none'}`,
    ...tzLines(d.tz),
    ...failureLines(d.failures),
    '',
    `Recent occurrences (newest first${more > 0 ? `; ${more} more: scheduler occurrences ${d.schedule.schedule_id}` : ''}):`,
    formatOccurrences(newest),
  ].join('\n');
}

/** Which tz database computed the buffered slots, and how they are kept fresh (schedules described since 0.6). */
export function tzLines(tz: ScheduleDescription['tz']): string[] {
  if (!tz) return [];
  const last = tz.last_recompute;
  return [
    `tz database: slots computed with ${tz.computed_with.length ? tz.computed_with.join(', ') : '-'}${
      tz.newer_seen
        ? `; a worker has ${tz.newer_seen.version} (since ${tz.newer_seen.seen_at}): scheduler recompute to apply it`
        : ''
    }${tz.trusted_until ? `; recomputed before firing after ${tz.trusted_until}` : ''}`,
    `recomputes: ${tz.recomputes} asked, ${tz.horizon_refreshes} by the horizon${
      last
        ? `; last ${last.at} (${last.reason}): ${last.dropped} dropped, ${last.moved} moved, ${last.tz_version ?? '-'}`
        : ''
    }`,
  ];
}

export function formatRecompute(id: string, r: RecomputeResult): string {
  if (!r.recomputed || !r.record) return `not recomputed ${id}: ${r.reason}`;
  const { dropped, moved, tz_version } = r.record;
  return `recomputed ${id}: ${dropped} buffered slots computed again with ${tz_version ?? '-'}, ${moved} moved`;
}

export function formatRecomputeSummary(r: RecomputeSummary): string {
  return [
    `recomputed ${r.recomputed} of ${r.matched} schedules: ${r.moved_slots} slots moved`,
    ...r.moved.map((m) => `  moved: ${m.schedule_id} (${m.moved} slots, ${m.tz_version ?? '-'})`),
    ...r.failed.map(
      (f) =>
        `  failed: ${f.schedule_id}: ${f.error} (recompute it alone: scheduler recompute ${f.schedule_id})`,
    ),
  ].join('\n');
}

const APPLY_VERBS: Record<ApplyChange['action'], string> = {
  CREATE: 'create',
  UPDATE: 'update',
  UNCHANGED: 'unchanged',
  DELETE: 'delete',
  CONFLICT: 'conflict',
};

/** An apply's plan or answer: a line per schedule, the next runs before → after for each change, the counts. */
export function formatApply(r: ApplyResult): string {
  const lines: string[] = [];
  for (const c of r.changes) {
    const version = c.version === null ? '' : ` v${c.version}`;
    const outcome = c.outcome === 'APPLIED' || c.outcome === 'FAILED' ? ` [${c.outcome}]` : '';
    const fields = c.fields.length > 0 ? `: ${c.fields.join(', ')}` : '';
    lines.push(`${APPLY_VERBS[c.action].padEnd(9)} ${c.schedule_id}${version}${fields}${outcome}`);
    if (c.reason) lines.push(`          ${c.reason}`);
    const moved = JSON.stringify(c.next_runs_before) !== JSON.stringify(c.next_runs_after);
    if (c.action !== 'UNCHANGED' && moved) {
      if (c.next_runs_before.length > 0)
        lines.push(`          before: ${c.next_runs_before.map(asWritten).join('  ')}`);
      if (c.next_runs_after.length > 0)
        lines.push(`          after:  ${c.next_runs_after.map(asWritten).join('  ')}`);
    }
  }
  const counts = new Map<string, number>();
  for (const c of r.changes) counts.set(APPLY_VERBS[c.action], (counts.get(APPLY_VERBS[c.action]) ?? 0) + 1);
  const summary = [...counts].map(([verb, n]) => `${n} ${verb}`).join(', ') || 'nothing declared';
  lines.push(
    `${r.dry_run ? 'plan' : 'applied'}: ${summary}${r.prune ? ` (pruning ${JSON.stringify(r.prune)})` : ''}`,
  );
  return lines.join('\n');
}

/** A bulk operation's answer: one line per schedule picked, then the counts. */
export function formatBulk(r: BulkResult): string {
  const verb = r.dry_run ? `would ${r.action}` : r.action;
  const counts = new Map<string, number>();
  for (const x of r.results) counts.set(x.outcome, (counts.get(x.outcome) ?? 0) + 1);
  const summary = [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
  return [
    ...r.results.map(
      (x) => `  ${x.schedule_id} (${x.status_before}): ${x.outcome}${x.reason ? ` — ${x.reason}` : ''}`,
    ),
    `${verb} by ${JSON.stringify(r.selector)}: ${r.matched} schedule(s) picked${summary ? `; ${summary}` : ''}`,
  ].join('\n');
}

/** One line after a change: what it is now. */
export function scheduleLine(verb: string, s: Schedule): string {
  const zone = zoneOf(s);
  const next = s.next_run_at ? `, next run ${inZone(s.next_run_at, zone)} (${zone})` : ', no next run';
  return `${verb} ${s.schedule_id}: ${s.status}, version ${s.version}${next}`;
}

export function occurrenceLine(verb: string, o: Occurrence): string {
  return `${verb} ${o.schedule_id}: occurrence ${o.occurrence_id} for ${asWritten(o.scheduled_for)}, ${o.status}${
    o.duplicate_prevented ? ' (already ran: duplicate prevented)' : ''
  }`;
}

export function formatBackfill(id: string, from: string, to: string, r: BackfillResult): string {
  const lines = [
    `backfilled ${id} ${from} .. ${to}: ${r.emitted.length} emitted, ${r.already_emitted.length} already emitted, ${r.skipped.length} skipped`,
  ];
  for (const [label, ids] of [
    ['emitted', r.emitted],
    ['already emitted', r.already_emitted],
    ['skipped', r.skipped],
  ] as const) {
    for (const occurrence of ids) lines.push(`  ${label}: ${occurrence}`);
  }
  return lines.join('\n');
}
