// A few calls at a time: the SDK's tenant-wide operations (recompute, bulk, apply) ask one schedule per call,
// each a workflow task on the worker all tenants share, so they never ask them all at once.

/** `fn` on every item, `n` at a time, the answers in the items' order. */
export async function inTurns<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += n) out.push(...(await Promise.all(items.slice(i, i + n).map(fn))));
  return out;
}

/** Schedules in the order of their IDs: the order a tenant-wide answer lists them in. */
export const byScheduleId = (a: { schedule_id: string }, b: { schedule_id: string }): number =>
  a.schedule_id < b.schedule_id ? -1 : a.schedule_id > b.schedule_id ? 1 : 0;
