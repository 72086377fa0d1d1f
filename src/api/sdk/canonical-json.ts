// One spelling per value, for the hashes and comparisons of definitions. Not safe-stable-stringify: it
// orders integer-like keys as strings ("10" before "2") where JSON.stringify of a rebuilt object puts
// them first in numeric order, so target payloads with such keys would hash differently, and every
// definition hash stored in a running schedule's memo (idempotent create) must keep matching.

/** JSON with the keys of every object sorted (by code unit, not locale): one spelling per value. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
