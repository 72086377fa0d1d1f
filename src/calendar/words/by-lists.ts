// The lists of a rule (BYHOUR, BYMINUTE, …) and of a cron field as the explainer (explain.ts) reads them:
// each value once. A stored rule may name a value thousands of times (`BYHOUR=2,2,…`: the parser refuses a
// repeat only in a definition entering — created, edited, previewed — so that older schedules keep
// running), and the explainer multiplies hours by minutes. On distinct values that product is at most what
// a day holds, 24 × 60 times, whatever the text repeats: the explanation of any stored rule costs a bounded
// amount of work, on the API's event loop where every GET, list and describe computes it.

/**
 * The distinct integers of a comma-separated list, in the order first named; undefined when an item is
 * not an integer in [min, max] (the words do not say a list the parser would refuse).
 */
export function distinctValues(list: string | undefined, min: number, max: number): number[] | undefined {
  if (list === undefined) return undefined;
  const values = new Set<number>();
  for (const item of list.split(',')) {
    if (!/^[+-]?\d{1,3}$/.test(item)) return undefined;
    const n = Number(item);
    if (n < min || n > max) return undefined;
    values.add(n);
  }
  return [...values];
}

/** The times of day (minutes since midnight) `hours` × `minutes` name, hour by hour: the one product the explainer builds. */
export function timesOfDay(hours: readonly number[], minutes: readonly number[]): number[] {
  return hours.flatMap((h) => minutes.map((m) => h * 60 + m));
}
