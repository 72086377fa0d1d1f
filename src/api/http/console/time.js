// Instants shown in a schedule's zone and in the viewer's own.

export const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const formats = new Map();
function formatIn(zone) {
  let format = formats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        weekday: 'short',
        day: '2-digit',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        timeZoneName: 'short',
      });
    } catch {
      format = formatIn('UTC');
    }
    formats.set(zone, format);
  }
  return format;
}

/** An ISO instant in `zone`, or a dash. */
export function at(iso, zone) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : formatIn(zone).format(date);
}

/** The zone a schedule's wall-clock words are in. */
export function zoneOf(schedule) {
  return schedule?.timing?.timezone ?? schedule?.timezone ?? 'UTC';
}

/** A duration in words: 850 ms, 4.2 s, 3 min 5 s, 2 h 10 min. */
export function duration(ms) {
  if (!Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)} min ${Math.round((a % 60_000) / 1000)} s`;
  return `${sign}${Math.floor(a / 3_600_000)} h ${Math.round((a % 3_600_000) / 60_000)} min`;
}
