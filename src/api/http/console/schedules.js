// Schedules: the tenant's schedules with status, the rule in words (`explanation`), the next run in the
// schedule's zone and the viewer's, the last outcome (`last_occurrence`, read with each schedule: no
// request of its own); a search over ID, words and target, and a status filter.
import { listSchedules } from './api.js';
import { badge, h, message, replace, table } from './dom.js';
import { at, viewerZone, zoneOf } from './time.js';

const STATUSES = ['ALL', 'ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'];

/**
 * What a search matches: the ID, the words, the target's job type or event type, the pause note, the
 * labels, and the last outcome's status and reason (“failed” finds the schedules whose last run failed).
 */
function haystack(schedule) {
  const target = schedule.target ?? {};
  return [
    schedule.schedule_id,
    schedule.explanation,
    target.job_type,
    target.event_type,
    target.workflow_id,
    schedule.pause_note,
    schedule.last_occurrence?.status,
    schedule.last_occurrence?.reason,
    ...labelsOf(schedule),
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** `key=value` of each label. */
const labelsOf = (schedule) => Object.entries(schedule.labels ?? {}).map(([k, v]) => (v ? `${k}=${v}` : k));

/** The newest due occurrence: its status, when its slot was (its zone) and why, or a dash. */
function lastOutcome(schedule, zone) {
  const last = schedule.last_occurrence;
  if (!last) return h('span', { class: 'muted', text: last === null ? 'no run yet' : '—' });
  return h(
    'span',
    { class: 'last-outcome' },
    badge(last.status),
    h('br'),
    h('span', { class: 'muted', text: at(last.fire_at, zone) }),
    last.reason ? h('span', { class: 'reason', text: last.reason }) : null,
  );
}

function row(schedule) {
  const zone = zoneOf(schedule);
  return [
    h('a', { href: `#/schedules/${encodeURIComponent(schedule.schedule_id)}`, text: schedule.schedule_id }),
    badge(schedule.status),
    schedule.explanation ?? h('span', { class: 'muted', text: `${schedule.timing?.kind ?? ''} (no words)` }),
    h('span', {}, at(schedule.next_run_at, zone), h('br'), h('span', { class: 'muted', text: zone })),
    at(schedule.next_run_at, viewerZone),
    lastOutcome(schedule, zone),
    h(
      'span',
      { class: 'labels' },
      labelsOf(schedule).map((l) => h('code', { class: 'label', text: l })),
    ),
  ];
}

export async function schedulesPage(ctx) {
  const { items, complete } = await listSchedules();
  if (!ctx.current()) return;
  const search = h('input', {
    id: 'search',
    type: 'search',
    autocomplete: 'off',
    placeholder: 'ID, words, job type, label…',
  });
  const status = h(
    'select',
    { id: 'status-filter' },
    STATUSES.map((s) => h('option', { value: s, text: s === 'ALL' ? 'any status' : s })),
  );
  const results = h('div', { 'aria-live': 'polite' });
  const draw = () => {
    const words = search.value.trim().toLowerCase();
    const shown = items.filter(
      (s) => (status.value === 'ALL' || s.status === status.value) && (!words || haystack(s).includes(words)),
    );
    replace(
      results,
      h('p', { class: 'muted', text: `${shown.length} of ${items.length} schedules` }),
      shown.length === 0
        ? message('note', items.length === 0 ? 'No schedules yet: create one from words.' : 'None match.')
        : table(
            'Schedules',
            [
              'Schedule',
              'Status',
              'Rule',
              'Next run (its zone)',
              `Next run (yours: ${viewerZone})`,
              'Last outcome',
              'Labels',
            ],
            shown.map(row),
            'schedules',
          ),
    );
  };
  search.addEventListener('input', draw);
  status.addEventListener('change', draw);
  replace(
    ctx.main,
    h('h1', { text: 'Schedules' }),
    h(
      'div',
      { class: 'filters' },
      h('label', { for: 'search', text: 'Search' }),
      search,
      h('label', { for: 'status-filter', text: 'Status' }),
      status,
      h('a', { class: 'button', href: '#/create', text: 'Create from words' }),
    ),
    complete ? null : message('note', `Showing the first ${items.length} schedules.`),
    results,
  );
  draw();
}
