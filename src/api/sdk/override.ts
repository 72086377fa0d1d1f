// A trigger's or backfill's payload override as the schedule records it: with a digest of its canonical
// JSON, which names its occurrences (`…~override-<digest>`), so the same override sent again (a retried
// request) is the same occurrence and another override of the same slot is another run.
import { createHash } from 'node:crypto';
import type { PayloadOverride } from '../../model/contracts.js';
import type { RecordedOverride } from '../../workflows/definitions.js';
import { canonicalJson } from './canonical-json.js';

/** 64 bits of sha256: a tenant colliding two of its own overrides only merges its own runs. */
const DIGEST_HEX = 16;

export function recordedOverride<R extends { override?: PayloadOverride }>(
  request: R,
): Omit<R, 'override'> & { override?: RecordedOverride } {
  const { override, ...rest } = request;
  if (!override) return rest;
  const digest = createHash('sha256').update(canonicalJson(override)).digest('hex').slice(0, DIGEST_HEX);
  return { ...rest, override: { ...override, digest } };
}
