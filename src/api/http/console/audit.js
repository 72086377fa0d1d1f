// A schedule's audit for a chosen range (GET /v1/schedules/{id}/audit): every slot its definitions called
// for, with what became of it; the counts, and the slots that were not on time with their reasons.
import { api, schedulePath } from './api.js';
import { h, message, replace, table } from './dom.js';
import { at, duration } from './time.js';

const HOUR = 3_600_000;
const QUIET = new Set(['ON_TIME', 'REMOVED']);

/** `datetime-local` value (the viewer's wall clock) ↔ an instant. */
const toLocalInput = (ms) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};
const fromLocalInput = (value) => new Date(value).toISOString();

function result(audit, zone) {
  const counts = Object.entries(audit.counts)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(' · ');
  const notable = audit.slots.filter((s) => !QUIET.has(s.outcome));
  return [
    h('p', { id: 'audit-counts', text: `${audit.slots.length} slots: ${counts || 'none in the range'}` }),
    (audit.counts.UNEXPLAINED ?? 0) > 0
      ? message('error', 'Some slots were decided with no record: report this (a bug by definition).')
      : null,
    audit.slots.length === 0
      ? null
      : notable.length === 0
        ? message('note', 'Every slot ran on time (or was removed by the calendar’s own options).')
        : table(
            'Slots not on time',
            ['Slot (its zone)', 'Version', 'Outcome', 'Lateness', 'Reason'],
            notable.map((s) => [
              at(s.scheduled_for, zone),
              s.version === null ? '—' : String(s.version),
              s.outcome,
              s.lateness_s === null ? '' : duration(s.lateness_s * 1000),
              s.reason ?? '',
            ]),
            'audit',
          ),
    audit.reach.ledger_since
      ? h('p', { class: 'muted', text: `The ledger let go of records up to ${audit.reach.ledger_since}.` })
      : null,
  ];
}

/** The audit form and its answer, for the schedule `id` shown in `zone`. */
export function auditSection(id, zone) {
  const now = Date.now();
  const from = h('input', { id: 'audit-from', type: 'datetime-local', value: toLocalInput(now - 24 * HOUR) });
  const to = h('input', { id: 'audit-to', type: 'datetime-local', value: toLocalInput(now) });
  const answer = h('div', { 'aria-live': 'polite' });
  const run = async () => {
    replace(answer, message('note', 'Auditing…'));
    try {
      const query = new URLSearchParams({ from: fromLocalInput(from.value), to: fromLocalInput(to.value) });
      const audit = await api('GET', `${schedulePath(id, 'audit')}?${query}`);
      replace(answer, ...result(audit, zone));
    } catch (err) {
      replace(answer, message('error', `Audit failed: ${err.message}`));
    }
  };
  return h(
    'section',
    {},
    h('h2', { text: 'Audit' }),
    h(
      'div',
      { class: 'filters' },
      h('label', { for: 'audit-from', text: 'From' }),
      from,
      h('label', { for: 'audit-to', text: 'To' }),
      to,
      h('button', { type: 'button', id: 'audit-run', text: 'Audit', onclick: run }),
    ),
    answer,
  );
}
