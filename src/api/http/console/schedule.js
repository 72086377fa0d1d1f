// A schedule: its status and rule in words, pause / resume / trigger (each confirmed), the next runs with
// their DST and window notes, the recent occurrences with their lateness (emitted_at − fire_at) drawn as
// bars and their reasons, and the definition as the API returns it.
import { ApiError, api, schedulePath } from './api.js';
import { auditSection } from './audit.js';
import { badge, h, message, replace, table } from './dom.js';
import { at, duration, viewerZone, zoneOf } from './time.js';

function notFound(ctx, id) {
  replace(
    ctx.main,
    h('h1', { class: 'not-found', text: '404: no such schedule' }),
    message(
      'error',
      'No schedule ',
      h('code', { text: id }),
      ' for your key: it does not exist, or it is not your tenant’s.',
    ),
    h('p', {}, h('a', { href: '#/schedules', text: 'Back to your schedules' })),
  );
}

function nextRuns(description, zone) {
  const runs = description.next_runs ?? [];
  if (runs.length === 0) return message('note', 'No next runs.');
  return table(
    'Next runs',
    ['In its zone', `Yours (${viewerZone})`, 'Label', 'Notes'],
    runs.map((run) => [
      run.local ?? at(run.fire_at, zone),
      at(run.fire_at, viewerZone),
      run.label ?? '',
      run.adjustments.length === 0
        ? ''
        : h(
            'ul',
            { class: 'notes' },
            run.adjustments.map((a) => h('li', {}, h('strong', { text: `${a.kind}: ` }), a.note)),
          ),
    ]),
    'next-runs',
  );
}

/** Lateness of an emitted occurrence, or null (not emitted, or a time the browser cannot read). */
const lateness = (occurrence) => {
  if (!occurrence.emitted_at) return null;
  const ms = Date.parse(occurrence.emitted_at) - Date.parse(occurrence.fire_at);
  return Number.isFinite(ms) ? ms : null;
};

function occurrences(description, zone) {
  const list = description.recent_occurrences ?? [];
  if (list.length === 0) return message('note', 'No occurrences yet.');
  const longest = Math.max(1, ...list.map((o) => Math.max(0, lateness(o) ?? 0)));
  return table(
    'Recent occurrences (newest first)',
    ['Slot (its zone)', 'Status', 'Trigger', 'Lateness', 'Reason'],
    list.map((o) => {
      const late = lateness(o);
      const bar = h('span', { class: 'bar' }, h('span', { class: 'fill' }));
      // A size through the CSSOM (the CSP allows no style attribute).
      bar.firstChild.style.width = `${late === null ? 0 : (100 * Math.max(0, late)) / longest}%`;
      return [
        at(o.fire_at, zone),
        badge(o.status),
        o.trigger,
        late === null
          ? h('span', { class: 'muted', text: 'not emitted' })
          : h('span', { class: 'lateness' }, bar, h('span', { text: duration(late) })),
        o.reason ?? '',
      ];
    }),
    'occurrences',
  );
}

/** What the failure hooks counted and did (a schedule with on_failure or on_recovery). */
function failures(description) {
  const f = description.failures;
  if (!f) return null;
  const state = f.paused_by_hook ? 'failing: paused by on_failure' : f.failing ? 'failing' : 'ok';
  const notice = f.last_notice
    ? ` · last notice ${f.last_notice.kind} ${f.last_notice.delivered ? 'delivered' : `not delivered (${f.last_notice.detail ?? ''})`}`
    : '';
  return h('p', {
    id: 'failures',
    class: f.failing ? 'failing' : 'muted',
    text: `Failures in a row: ${f.consecutive_failures} of ${f.after_consecutive} — ${state}${notice}`,
  });
}

function actions(schedule, refresh) {
  const id = schedule.schedule_id;
  const status = h('div', { 'aria-live': 'polite' });
  const note = h('input', { id: 'pause-note', type: 'text', maxlength: 500, autocomplete: 'off' });
  const run = async (verb, action, body) => {
    if (!window.confirm(`${verb} schedule ${id}?`)) return;
    replace(status, message('note', `${verb}…`));
    try {
      await api('POST', schedulePath(id, action), body);
    } catch (err) {
      replace(status, message('error', `${verb} failed: ${err.message}`));
      return;
    }
    await refresh(`${verb}: done.`);
  };
  const buttons = [];
  if (schedule.status === 'ACTIVE') {
    buttons.push(
      h('label', { for: 'pause-note', text: 'Pause note (optional)' }),
      note,
      h('button', {
        type: 'button',
        id: 'pause',
        text: 'Pause',
        onclick: () => run('Pause', 'pause', note.value.trim() ? { note: note.value.trim() } : {}),
      }),
    );
  }
  if (schedule.status === 'PAUSED')
    buttons.push(
      h('button', {
        type: 'button',
        id: 'resume',
        text: 'Resume',
        onclick: () => run('Resume', 'resume', {}),
      }),
    );
  if (schedule.status === 'ACTIVE' || schedule.status === 'PAUSED')
    buttons.push(
      h('button', {
        type: 'button',
        id: 'trigger',
        text: 'Trigger now',
        onclick: () => run('Trigger', 'trigger', { reason: 'triggered from the console' }),
      }),
    );
  return h('div', { class: 'actions' }, buttons, status);
}

export async function schedulePage(ctx, id, done) {
  let description;
  try {
    description = await api('GET', schedulePath(id, 'describe'));
  } catch (err) {
    if (!ctx.current()) return;
    if (err instanceof ApiError && err.status === 404) return notFound(ctx, id);
    throw err;
  }
  if (!ctx.current()) return;
  const schedule = description.schedule;
  const zone = zoneOf(schedule);
  const refresh = async (said) => {
    if (ctx.current()) await schedulePage(ctx, id, said);
  };
  const c = description.counters;
  replace(
    ctx.main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/schedules', text: 'Schedules' }), ' / '),
    h('h1', { class: 'schedule-id', text: schedule.schedule_id }),
    h(
      'p',
      { class: 'status-line' },
      'Status: ',
      h('span', { id: 'status' }, badge(schedule.status)),
      schedule.pause_note ? h('span', { class: 'pause-note' }, ' — ', schedule.pause_note) : null,
      ` · version ${schedule.version} · zone ${zone}`,
    ),
    done ? message('note', done) : null,
    actions(schedule, refresh),
    h(
      'section',
      {},
      h('h2', { text: 'Rule' }),
      h('p', { class: 'explanation', text: schedule.explanation ?? '(the words cannot say this rule)' }),
      schedule.authored_from
        ? h('p', { class: 'muted' }, 'Written as: ', h('q', { text: schedule.authored_from }))
        : null,
    ),
    failures(description),
    h('section', {}, h('h2', { text: 'Next runs' }), nextRuns(description, zone)),
    h(
      'section',
      {},
      h('h2', { text: 'Occurrences' }),
      c
        ? h('p', {
            class: 'muted',
            text: `fired ${c.fired} · caught up ${c.caught_up} · skipped ${c.skipped} · expired ${c.expired} · failed ${c.failed} · duplicates prevented ${c.duplicates_prevented}`,
          })
        : null,
      occurrences(description, zone),
    ),
    auditSection(schedule.schedule_id, zone),
    h(
      'section',
      {},
      h('h2', { text: 'Definition' }),
      h('pre', { class: 'definition', tabindex: 0, text: JSON.stringify(schedule, null, 2) }),
    ),
  );
}
