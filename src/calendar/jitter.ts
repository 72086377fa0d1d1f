/**
 * Deterministic jitter: a hash of (schedule id, slot identity) mapped into [0, max). Never random,
 * so a Temporal replay computes the same fire time. Granularity: whole seconds when max ≥ 1 s.
 */

/** cyrb53: a fast, well-mixed 53-bit string hash (public domain). */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** jitter in ms, 0 ≤ j < maxMs, from schedule id and the slot's `scheduledFor`. */
export function jitterMs(scheduleId: string, scheduledFor: string, maxMs: number): number {
  if (maxMs <= 0) return 0;
  const frac = hash53(`${scheduleId}\u0000${scheduledFor}`) / 2 ** 53;
  const j = Math.floor(frac * maxMs);
  return maxMs >= 1000 ? Math.floor(j / 1000) * 1000 : j;
}
