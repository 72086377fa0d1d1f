// Fire forecast: how many fires land in each minute of the next 24 hours (or of a chosen day), stacked by schedule, and the
// busiest minutes with the schedules in them (candidates for `jitter`, which spreads a schedule's fires
// deterministically). Each active schedule's runs come from POST /v1/preview of its own definition (pure
// calendar work, one request unit each, pages of 100 runs), a few at a time, within a request budget.

import { api, listSchedules } from './api.js';
import { h, message, replace, table } from './dom.js';
import { at, viewerZone } from './time.js';
import uPlot from './vendor/uPlot.esm.js';

const HOURS = 24;
const MINUTES = HOURS * 60;
/** At most this many preview requests per forecast (the tenant's budget is shared with its other callers). */
const REQUEST_BUDGET = 200;
const PAGES_PER_SCHEDULE = 15; // 1,500 runs: a schedule firing every minute fills the day
const CONCURRENCY = 4;
/** Schedules drawn as series of their own; the rest are stacked as one "others". */
const SERIES = 8;
const BUSIEST = 5;
const PALETTE = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#4b5563',
  '#9ca3af',
];
/** The definition fields a preview takes. */
const PREVIEW_FIELDS = [
  'timing',
  'timezone',
  'window',
  'exclusions',
  'starts_at',
  'ends_at',
  'max_count',
  'jitter',
  'dst',
  'business_days',
];

/** Per-minute fire counts of one schedule over [start, start + 24 h). */
async function countsOf(schedule, start, end, budget) {
  const counts = new Uint16Array(MINUTES);
  const body = { count: 100 };
  for (const field of PREVIEW_FIELDS)
    if (schedule[field] !== undefined && schedule[field] !== null) body[field] = schedule[field];
  // A preview's runs are strictly after `from`: a millisecond before the window, so a run at its first instant counts.
  let from = new Date(start - 1).toISOString();
  for (let page = 0; page < PAGES_PER_SCHEDULE; page++) {
    if (budget.left <= 0) return { counts, complete: false };
    budget.left -= 1;
    const { runs } = await api('POST', '/preview', { ...body, from });
    for (const run of runs) {
      const minute = Math.floor((Date.parse(run.fire_at) - start) / 60_000);
      if (minute >= 0 && minute < MINUTES) counts[minute] += 1;
    }
    const last = runs[runs.length - 1];
    if (runs.length < 100 || !last || Date.parse(last.fire_at) >= end) return { counts, complete: true };
    from = last.scheduled_for;
  }
  return { counts, complete: false };
}

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited(items, limit, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

function chart(container, xs, series) {
  // Stacked bars: series i is the sum of itself and every series after it, drawn in order, so each one's
  // own band shows above the next; the legend shows each schedule's own count.
  const cumulative = series.map((_, i) =>
    Array.from(xs, (_, m) => {
      let total = 0;
      for (let j = i; j < series.length; j++) total += series[j].counts[m];
      return total === 0 ? null : total;
    }),
  );
  const bars = uPlot.paths.bars({ size: [1, 12], align: 1 });
  const opts = {
    width: Math.max(300, container.clientWidth),
    height: 280,
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { label: 'fires per minute' }],
    legend: { live: true },
    series: [
      { label: 'time' },
      ...series.map((s, i) => ({
        label: s.label,
        fill: PALETTE[i % PALETTE.length],
        stroke: PALETTE[i % PALETTE.length],
        paths: bars,
        points: { show: false },
        value: (_u, _v, _si, idx) => (idx === null || idx === undefined ? '—' : String(s.counts[idx])),
      })),
    ],
  };
  const plot = new uPlot(opts, [xs, ...cumulative], container);
  const resize = () => plot.setSize({ width: Math.max(300, container.clientWidth), height: 280 });
  window.addEventListener('resize', resize);
  return () => window.removeEventListener('resize', resize);
}

let detach = null;

/** A day (`YYYY-MM-DD`) from the viewer's midnight, or the next 24 hours from now. */
function windowOf(day) {
  const midnight = /^\d{4}-\d{2}-\d{2}$/.test(day ?? '') ? new Date(`${day}T00:00:00`).getTime() : Number.NaN;
  const start = Number.isFinite(midnight) ? midnight : Math.ceil(Date.now() / 60_000) * 60_000;
  return { start, end: start + MINUTES * 60_000, day: Number.isFinite(midnight) ? day : null };
}

/** A date to forecast instead of the next 24 hours: its own route (#/forecast/YYYY-MM-DD). */
function dayPicker(day) {
  const input = h('input', { id: 'forecast-day', type: 'date', value: day ?? '' });
  return h(
    'div',
    { class: 'filters' },
    h('label', { for: 'forecast-day', text: 'Day (yours)' }),
    input,
    h('button', {
      type: 'button',
      id: 'forecast-go',
      text: 'Forecast that day',
      onclick: () => {
        window.location.hash = input.value ? `#/forecast/${input.value}` : '#/forecast';
      },
    }),
    day ? h('a', { href: '#/forecast', text: 'the next 24 hours' }) : null,
  );
}

export async function forecastPage(ctx, requestedDay) {
  detach?.();
  detach = null;
  const { start, end, day } = windowOf(requestedDay);
  const span = day ? `on ${day} (${viewerZone})` : `in the next ${HOURS} hours`;
  const progress = h('p', { class: 'loading', text: 'Listing your schedules…' });
  replace(ctx.main, h('h1', { text: 'Fire forecast' }), progress);
  const { items } = await listSchedules();
  const active = items.filter((s) => s.status === 'ACTIVE');
  const budget = { left: REQUEST_BUDGET };
  const results = [];
  const refused = [];
  let done = 0;
  await eachLimited(active, CONCURRENCY, async (schedule) => {
    try {
      const { counts, complete } = await countsOf(schedule, start, end, budget);
      results.push({ schedule, counts, complete });
    } catch (err) {
      refused.push(`${schedule.schedule_id}: ${err.message}`);
    }
    done += 1;
    if (ctx.current()) progress.textContent = `Previewing ${span}: ${done} of ${active.length} schedules…`;
  });
  if (!ctx.current()) return;

  const totals = new Uint32Array(MINUTES);
  for (const r of results) for (let m = 0; m < MINUTES; m++) totals[m] += r.counts[m];
  const firing = results
    .map((r) => ({ ...r, total: r.counts.reduce((a, b) => a + b, 0) }))
    .filter((r) => r.total > 0)
    .sort((a, b) => b.total - a.total || a.schedule.schedule_id.localeCompare(b.schedule.schedule_id));
  const own = firing.slice(0, SERIES).map((r) => ({ label: r.schedule.schedule_id, counts: r.counts }));
  if (firing.length > SERIES) {
    const others = new Uint16Array(MINUTES);
    for (const r of firing.slice(SERIES)) for (let m = 0; m < MINUTES; m++) others[m] += r.counts[m];
    own.push({ label: `${firing.length - SERIES} others`, counts: others });
  }
  const xs = Array.from({ length: MINUTES }, (_, m) => (start + m * 60_000) / 1000);
  const fires = totals.reduce((a, b) => a + b, 0);
  const busiest = Array.from(totals, (count, minute) => ({ count, minute }))
    .filter((b) => b.count > 1)
    .sort((a, b) => b.count - a.count || a.minute - b.minute)
    .slice(0, BUSIEST);

  const plotBox = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Fires per minute ${span}, stacked by schedule`,
  });
  replace(
    ctx.main,
    h('h1', { text: 'Fire forecast' }),
    dayPicker(day),
    h('p', {
      class: 'summary',
      text: `${fires} fires of ${firing.length} schedules ${span} (from ${at(new Date(start).toISOString(), viewerZone)}); ${active.length} active schedules previewed, paused ones left out.`,
    }),
    budget.left <= 0 || results.some((r) => !r.complete)
      ? message(
          'note',
          `Some schedules fire more often than this forecast asks for (${REQUEST_BUDGET} previews at most): their later minutes are left out.`,
        )
      : null,
    results.some((r) => r.schedule.jitter)
      ? message(
          'note',
          'Schedules with jitter are counted at the minute of their slot: a preview does not know the delay jitter gives each of their runs.',
        )
      : null,
    refused.length > 0 ? message('error', `Not previewed: ${refused.join('; ')}`) : null,
    fires === 0 ? message('note', `Nothing fires ${span}.`) : plotBox,
    h('h2', { text: 'Busiest minutes' }),
    busiest.length === 0
      ? message('note', 'No minute has more than one fire: nothing piles up.')
      : table(
          'Busiest minutes, with the schedules that could take jitter',
          [`Minute (${viewerZone})`, 'Fires', 'Schedules (jitter candidates: no jitter yet)'],
          busiest.map(({ count, minute }) => {
            const here = results.filter((r) => r.counts[minute] > 0);
            return [
              at(new Date(start + minute * 60_000).toISOString(), viewerZone),
              String(count),
              h(
                'ul',
                { class: 'plain' },
                here.map((r) =>
                  h(
                    'li',
                    {},
                    h('a', {
                      href: `#/schedules/${encodeURIComponent(r.schedule.schedule_id)}`,
                      text: r.schedule.schedule_id,
                    }),
                    ` ×${r.counts[minute]}`,
                    r.schedule.jitter
                      ? h('span', { class: 'muted', text: ` (jitter ${r.schedule.jitter})` })
                      : h('span', { class: 'candidate', text: ' — candidate for jitter' }),
                  ),
                ),
              ),
            ];
          }),
          'busiest',
        ),
  );
  if (fires > 0) detach = chart(plotBox, xs, own);
}
