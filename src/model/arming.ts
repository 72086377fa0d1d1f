// When a schedule arms a slot: the workflow arms then (workflows/policy.ts), and the API starts a schedule
// created asleep so that it wakes then (api/client.ts). Pure and free of zod: it runs in workflow code.

/**
 * A stable spread in [0, 1), the same on every worker and in replay: FNV-1a over the key's UTF-16 code units,
 * then murmur3's finalizer, without which keys that differ in their last characters (`vs-000017`,
 * `vs-000018`) land close together.
 */
function spreadOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) / 0x1_0000_0000;
}

/**
 * When a slot is armed (the workflow's PATCHES.ARMED_HANDOFFS): between `leadMs` and half of it before its instant, at a
 * point fixed per schedule (`spreadKey`), so that schedules due at one instant arm over half the lead
 * instead of all at once.
 */
export const armAtMs = (fireAtMs: number, leadMs: number, spreadKey: string): number =>
  fireAtMs - leadMs + Math.floor(spreadOf(spreadKey) * (leadMs / 2));

/**
 * When a schedule that arms ahead next wakes, between the slot `fromMs` (the last of those that must begin
 * first) and the next armed one `toMs`: at a point fixed per schedule within the middle 80 % of that
 * spacing, never on an instant at which jobs begin. Schedules of one cadence would otherwise all wake on
 * the minute their jobs begin, each arming several more, and delay those jobs' first tasks.
 */
export const wakeBetweenMs = (fromMs: number, toMs: number, spreadKey: string): number =>
  fromMs + Math.floor((0.1 + 0.8 * spreadOf(spreadKey)) * (toMs - fromMs));

/**
 * How far ahead of its instant a schedule arms a slot: its lead, or how far it arms ahead when longer. No
 * lead: never armed, whatever the ahead.
 */
export const armWithinMs = (leadMs: number, aheadMs: number): number =>
  leadMs > 0 ? Math.max(leadMs, aheadMs) : 0;
