/**
 * The dev server's own account of a burst: its persistence calls by operation (count and time spent),
 * read from its Prometheus endpoint before and after. This is where the server's work per fire goes on
 * either side (the Go server has no CPU profiler exposed by the CLI; its persistence calls are the cost
 * that a fire adds, SQLite's one writer being what a burst waits on).
 */
export interface PersistenceCall {
  operation: string;
  requests: number;
  seconds: number;
}

type Totals = Map<string, { requests: number; seconds: number }>;

const LABEL = /operation="([^"]+)"/;

/** Sums the persistence counters of one /metrics text by operation (every other label folded in). */
export function persistenceTotals(text: string): Totals {
  const totals: Totals = new Map();
  const add = (op: string, field: 'requests' | 'seconds', v: number) => {
    const t = totals.get(op) ?? { requests: 0, seconds: 0 };
    t[field] += v;
    totals.set(op, t);
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const op = LABEL.exec(line)?.[1];
    if (!op) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    const name = line.slice(0, line.search(/[{ ]/));
    if (name === 'persistence_requests' || name === 'persistence_requests_total') add(op, 'requests', value);
    else if (name === 'persistence_latency_sum' || name === 'persistence_latency_seconds_sum')
      add(op, 'seconds', value);
  }
  return totals;
}

export async function scrapePersistence(metricsPort: number): Promise<Totals> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (!res.ok) throw new Error(`metrics: HTTP ${res.status}`);
  return persistenceTotals(await res.text());
}

/** What happened between two scrapes, largest time first. */
export function persistenceDelta(before: Totals, after: Totals): PersistenceCall[] {
  return [...after.entries()]
    .map(([operation, a]) => {
      const b = before.get(operation) ?? { requests: 0, seconds: 0 };
      return { operation, requests: a.requests - b.requests, seconds: a.seconds - b.seconds };
    })
    .filter((c) => c.requests > 0)
    .sort((x, y) => y.seconds - x.seconds || y.requests - x.requests);
}

/** One line: the persistence calls per fire, in all and by operation (the `top` that took longest). */
export function persistencePerFire(calls: readonly PersistenceCall[], fires: number, top = 12): string {
  const total = calls.reduce((a, c) => a + c.requests, 0);
  const ms = calls.reduce((a, c) => a + c.seconds, 0) * 1000;
  const byOperation = calls
    .slice(0, top)
    .map(
      (c) =>
        `${c.operation} ${(c.requests / fires).toFixed(2)} (${((1000 * c.seconds) / fires).toFixed(1)} ms)`,
    )
    .join(', ');
  return `${(total / fires).toFixed(1)} (${(ms / fires).toFixed(1)} ms); by operation: ${byOperation}`;
}
