/**
 * `apply -f`: the file of schedule.v1 documents as the POST /v1/apply body, checked here against the
 * contracts and the calendar so that a typo is pointed at (the document and the field) before anything is
 * sent. Pure: no I/O, no clock (`now` is passed in).
 */
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { ApplyRequest } from '../model/http.js';
import { UsageError } from './preview.js';
import { checkCalendar } from './requests.js';

/**
 * The body from the file's text: YAML or JSON, as a list, as `{schedules: [...]}`, or as YAML documents
 * separated by `---`.
 */
export function buildApplyRequest(
  fileText: string,
  flags: { prune?: string; dryRun?: boolean; force?: boolean; count?: string },
  now: Date,
): z.input<typeof ApplyRequest> {
  const documents = parseAllDocuments(fileText);
  const problem = documents.flatMap((d) => d.errors)[0];
  if (problem) throw new UsageError('--file', `is not YAML or JSON: ${problem.message.split('\n')[0]}`);
  const values = documents.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  const only = values.length === 1 ? values[0] : undefined;
  const schedules = Array.isArray(only)
    ? only
    : only && typeof only === 'object' && 'schedules' in only
      ? (only as { schedules: unknown }).schedules
      : values;
  const body: Record<string, unknown> = { schedules };
  if (flags.prune !== undefined) body.prune = flags.prune;
  if (flags.dryRun) body.dry_run = true;
  if (flags.force) body.force = true;
  if (flags.count !== undefined) {
    if (!/^\d+$/.test(flags.count) || Number(flags.count) > 10)
      throw new UsageError('--count', `"${flags.count}" must be an integer from 0 to 10`);
    body.preview_count = Number(flags.count);
  }
  const parsed = ApplyRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [top, index, ...rest] = issue.path.map(String);
    const where =
      top === 'schedules' && index !== undefined
        ? `--file (schedule ${Number(index) + 1}${rest.length ? `, ${rest.join('.')}` : ''})`
        : top === 'prune'
          ? '--prune'
          : top === 'preview_count'
            ? '--count'
            : '--file';
    throw new UsageError(where, issue.message);
  }
  parsed.data.schedules.forEach(({ schedule_id: _id, contract: _contract, ...spec }, i) => {
    try {
      checkCalendar(spec, false, now);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      throw new UsageError(`--file (schedule ${i + 1}, ${err.field})`, err.reason);
    }
  });
  return body as z.input<typeof ApplyRequest>;
}
