// Create from words: the text is read by POST /v1/interpret (creates nothing) into a structured timing,
// shown with its explanation, notes and next runs; the user then names the schedule and its job, and
// POST /v1/schedules creates exactly the reading shown (with the words kept as `authored_from`).
import { ApiError, api } from './api.js';
import { h, message, replace, table } from './dom.js';
import { at, viewerZone } from './time.js';

/** The reading's calendar fields that a schedule takes as they are. */
const OPTION_FIELDS = ['timezone', 'window', 'starts_at', 'ends_at', 'max_count', 'dst', 'business_days'];

function problemText(err) {
  if (!(err instanceof ApiError)) return err.message;
  const p = err.problem;
  const parts = [p.detail ?? err.message];
  if (p.code === 'UNREADABLE' && p.unread) parts.push(`(not read: ${[p.unread].flat().join(', ')})`);
  return parts.join(' ');
}

function readingsOf(err) {
  const readings = err instanceof ApiError ? err.problem.readings : null;
  if (!Array.isArray(readings) || readings.length === 0) return null;
  return h(
    'div',
    {},
    h('p', { text: 'The words can be read more than one way; say which:' }),
    h(
      'ul',
      {},
      readings.map((r) => h('li', { text: r.explanation ?? JSON.stringify(r) })),
    ),
  );
}

export async function createPage(ctx) {
  const text = h('textarea', { id: 'words', rows: 2, maxlength: 1000, required: true, spellcheck: 'false' });
  const zone = h('input', { id: 'zone', type: 'text', value: viewerZone, autocomplete: 'off' });
  const out = h('div', { 'aria-live': 'polite' });
  let reading = null;

  const readForm = h(
    'form',
    { class: 'card', method: 'post', action: '#', onsubmit: (event) => void read(event) },
    h('label', { for: 'words', text: 'When should it run? (English or Russian)' }),
    text,
    h('p', {
      class: 'muted',
      text: 'e.g. “every weekday at 9:00”, “the last business day of the month at 18:00”, “каждый час”',
    }),
    h('label', { for: 'zone', text: 'Time zone of the words (when they name none)' }),
    zone,
    h('button', { type: 'submit', id: 'read', text: 'Read it' }),
  );

  async function read(event) {
    event.preventDefault();
    reading = null;
    replace(out, h('p', { class: 'loading', text: 'Reading…' }));
    try {
      const body = { text: text.value.trim(), count: 5 };
      if (zone.value.trim()) body.timezone = zone.value.trim();
      reading = await api('POST', '/interpret', body);
    } catch (err) {
      replace(out, message('error', problemText(err)), readingsOf(err));
      return;
    }
    if (!ctx.current()) return;
    showReading();
  }

  function showReading() {
    const runZone = reading.timing?.timezone ?? reading.timezone ?? 'UTC';
    const id = h('input', {
      id: 'schedule-id',
      type: 'text',
      required: true,
      autocomplete: 'off',
      pattern: '[A-Za-z0-9][A-Za-z0-9._~\\-]*',
      maxlength: 200,
    });
    const jobType = h('input', {
      id: 'job-type',
      type: 'text',
      required: true,
      autocomplete: 'off',
      maxlength: 200,
    });
    const status = h('div', { 'aria-live': 'polite' });
    const createForm = h(
      'form',
      { class: 'card', method: 'post', action: '#', onsubmit: (event) => void create(event) },
      h('h2', { text: 'Create it' }),
      h('label', { for: 'schedule-id', text: 'Schedule ID (letters, digits, . _ ~ -)' }),
      id,
      h('label', { for: 'job-type', text: 'Job type to start (a JOB target; your job workers poll for it)' }),
      jobType,
      h('button', { type: 'submit', id: 'create', text: 'Create schedule' }),
      status,
    );
    async function create(event) {
      event.preventDefault();
      const body = { schedule_id: id.value.trim(), timing: reading.timing, authored_from: reading.text };
      for (const field of OPTION_FIELDS) if (reading[field] !== undefined) body[field] = reading[field];
      body.target = { type: 'JOB', job_type: jobType.value.trim() };
      replace(status, message('note', 'Creating…'));
      try {
        await api('POST', '/schedules', body);
      } catch (err) {
        replace(status, message('error', problemText(err)));
        return;
      }
      ctx.go(`#/schedules/${encodeURIComponent(body.schedule_id)}`);
    }
    replace(
      out,
      h(
        'section',
        { class: 'reading' },
        h('h2', { text: 'The reading' }),
        h('p', { class: 'explanation', text: reading.explanation }),
        reading.notes.length > 0
          ? h(
              'ul',
              { class: 'notes' },
              reading.notes.map((n) => h('li', { text: n })),
            )
          : null,
        table(
          'Next runs of this reading',
          [`In its zone (${runZone})`, `Yours (${viewerZone})`, 'Notes'],
          reading.next_runs.map((run) => [
            run.local ?? at(run.fire_at, runZone),
            at(run.fire_at, viewerZone),
            run.adjustments.map((a) => `${a.kind}: ${a.note}`).join('; '),
          ]),
          'next-runs',
        ),
        h(
          'details',
          {},
          h('summary', { text: 'The structured timing' }),
          h('pre', { text: JSON.stringify(reading.timing, null, 2) }),
        ),
      ),
      createForm,
    );
  }

  replace(ctx.main, h('h1', { text: 'Create from words' }), readForm, out);
  text.focus();
}
