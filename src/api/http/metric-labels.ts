// Label values of the API's metrics come from closed sets fixed by the code, never from what a caller sent:
// each distinct value is a time series held for the life of the process and repeated in every scrape, so a
// caller-chosen value (an unknown JSON key, a query parameter name) would grow memory and /metrics output
// without bound (security review M1).
import { z } from 'zod';
import { CreateScheduleRequest, PatchScheduleRequest, PreviewRequest } from '../../model/http.js';

/** A failing field that is not one of the definition's own: an unknown key, wherever it was. */
export const UNKNOWN_FIELD_LABEL = 'unknown_field';
/** The request parts other than the body that Fastify validates; their field names are not labels. */
const REQUEST_PARTS = ['querystring', 'params', 'headers'] as const;

/** The keys one level inside a schema: an object's, or every option's of a union (timing, target). */
function childKeys(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    return childKeys(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(childKeys);
  return [];
}

/** Top-level field → the fields inside it, of every body a definition route takes (create, edit, preview). */
const definitionFields = new Map<string, Set<string>>();
for (const request of [CreateScheduleRequest, PatchScheduleRequest, PreviewRequest]) {
  for (const [key, schema] of Object.entries(request.shape as Record<string, z.ZodType>)) {
    const inner = definitionFields.get(key) ?? new Set<string>();
    for (const child of childKeys(schema)) inner.add(child);
    definitionFields.set(key, inner);
  }
}

/**
 * Every value `definitionFieldLabel` can return: `body`, the request parts, `unknown_field`, each
 * definition field, and each field one level inside one (`timing.timezone`, `target.sink_url`).
 */
export const DEFINITION_FIELD_LABELS: ReadonlySet<string> = new Set([
  'body',
  ...REQUEST_PARTS,
  UNKNOWN_FIELD_LABEL,
  ...[...definitionFields].flatMap(([key, inner]) => [key, ...[...inner].map((child) => `${key}.${child}`)]),
]);

/**
 * The `field` label of `scheduler_invalid_rules_rejected_total` for a problem's `field` (null: the body as a
 * whole). A definition field keeps its first segment, and its second when that names a field the schema
 * has (`timing.timezone`); array indices, deeper paths and unknown keys inside a known field are cut off
 * (`exclusions.3` → `exclusions`, `timing.every_day` → `timing`); a query, path or header field is its part
 * alone (`querystring`); an unknown top-level key is `unknown_field`.
 */
export function definitionFieldLabel(field: string | null | undefined): string {
  if (!field) return 'body';
  const [first, second] = field.split('.');
  if ((REQUEST_PARTS as readonly string[]).includes(first!)) return first!;
  const inner = definitionFields.get(first!);
  if (!inner) return UNKNOWN_FIELD_LABEL;
  return second !== undefined && inner.has(second) ? `${first}.${second}` : first!;
}

/** The methods the API has routes for; anything else Node's parser accepted is counted as `other`. */
const METHOD_LABELS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/** The `method` label of `scheduler_http_requests_total`. */
export function methodLabel(method: string): string {
  return METHOD_LABELS.has(method) ? method : 'other';
}
