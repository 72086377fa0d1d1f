/**
 * `scheduler preview`: the next occurrences of a timing, computed locally (no server), under the timing in
 * words (its explanation; `--json` prints the runs only, as before).
 *
 *   preview --rule '<RRULE body or RFC 5545 block>' --timezone <IANA> [--from <ISO>] [--count N] [--json]
 *   preview --timing '<timing JSON>' [--options '<calendar options JSON>'] [--from <ISO>] [--count N] [--json]
 */
import type { Command } from 'commander';
import { CalendarError, type Slot } from '../calendar/index.js';
import { explanationOf } from '../model/explanation.js';
import { previewSlots, type SlotSpec } from '../model/slots.js';

export interface PreviewOptions {
  rule?: string;
  timezone?: string;
  timing?: string;
  options?: string;
  from?: string;
  count?: string;
  json?: boolean;
  scheduleId?: string;
}

export interface PreviewItem {
  at: string;
  local: string;
  scheduled_for: string;
  label?: string;
  adjustments?: Slot['adjustments'];
}

/** Thrown for bad CLI input; `main` prints it on one line and exits with code 2. */
export class UsageError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

function parseJson(field: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(field, `is not valid JSON (${(e as Error).message})`);
  }
}

/** Pure core of the command: `now` is passed in (only the CLI reads the clock). */
export function runPreview(
  opts: PreviewOptions,
  now: Date,
): { items: PreviewItem[]; timezone: string; explanation?: string } {
  const count = opts.count === undefined ? 10 : Number(opts.count);
  if (!Number.isInteger(count) || count < 1 || count > 10_000) {
    throw new UsageError('--count', `"${opts.count}" must be an integer between 1 and 10000`);
  }
  const from = opts.from ?? now.toISOString();
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(from) ||
    Number.isNaN(Date.parse(from))
  ) {
    throw new UsageError(
      '--from',
      `"${from}" must be an ISO 8601 instant with Z or an offset (e.g. 2026-09-05T11:00:00Z)`,
    );
  }
  let timing: unknown;
  if (opts.rule !== undefined && opts.timing !== undefined) {
    throw new UsageError('--timing', 'give either --rule or --timing, not both');
  }
  if (opts.rule !== undefined) {
    if (opts.timezone === undefined)
      throw new UsageError('--timezone', 'is required with --rule (an IANA zone such as Europe/Riga)');
    timing = { kind: 'RECURRENCE', rule: opts.rule, timezone: opts.timezone };
  } else if (opts.timing !== undefined) {
    timing = parseJson('--timing', opts.timing);
    if (
      opts.timezone !== undefined &&
      timing !== null &&
      typeof timing === 'object' &&
      !('timezone' in timing)
    ) {
      const kind = (timing as { kind?: unknown }).kind;
      if (kind === 'ONE_TIME' || kind === 'RECURRENCE' || kind === 'CRON' || kind === 'DEADLINE') {
        timing = { ...timing, timezone: opts.timezone };
      }
    }
  } else {
    throw new UsageError('--rule', 'give --rule (with --timezone) or --timing');
  }
  const options = opts.options === undefined ? undefined : parseJson('--options', opts.options);
  // `--from` is the preview's start and the definition's creation: a bare RRULE starts at its minute, as
  // it would for a schedule created then (the SDK's and the HTTP API's preview do the same).
  const { slots, timezone } = previewSlots({
    scheduleId: opts.scheduleId ?? 'preview',
    timing,
    options,
    from,
    count,
  });
  const items = slots.map((s) => {
    const item: PreviewItem = { at: s.fireAt, local: s.local, scheduled_for: s.scheduledFor };
    if (s.label !== undefined) item.label = s.label;
    if (s.adjustments.length > 0) item.adjustments = s.adjustments;
    return item;
  });
  // The calendar accepted the timing and options above: say them in words (none when the words cannot).
  const explanation = explanationOf({
    timing: timing as SlotSpec['timing'],
    ...((options ?? {}) as Omit<SlotSpec, 'timing'>),
  });
  return { items, timezone, ...(explanation !== undefined ? { explanation } : {}) };
}

const MARKS: Record<string, string> = {
  DST_GAP: 'DST-moved',
  DST_FOLD: 'DST-fold',
  WINDOW_DEFER: 'deferred',
  JITTER: 'jitter',
};

export function formatTable(items: PreviewItem[], timezone: string): string {
  if (items.length === 0) return '(no occurrences)';
  const rows = items.map((it, i) => [
    String(i + 1),
    it.at,
    it.local,
    [it.label, ...(it.adjustments ?? []).map((a) => `${MARKS[a.kind]}: ${a.note}`)]
      .filter(Boolean)
      .join('; '),
  ]);
  const head = ['#', 'at (UTC)', `local (${timezone})`, 'notes'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 3 ? cell : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [
    line(head),
    line(widths.map((w, c) => (c === 3 ? '-----' : '-'.repeat(w)))),
    ...rows.map(line),
  ].join('\n');
}

export function registerPreview(program: Command): Command {
  return program
    .command('preview')
    .description('print the next occurrences of a timing (no server needed)')
    .option(
      '--rule <rule>',
      'RRULE body (FREQ=…) or RFC 5545 block (DTSTART;TZID=…, RRULE, EXRULE, RDATE, EXDATE)',
    )
    .option('--timezone <zone>', 'IANA time zone for --rule (e.g. Europe/Riga)')
    .option(
      '--timing <json>',
      'timing JSON of any kind, e.g. {"kind":"CRON","expression":"0 9 * * 1-5","timezone":"Europe/Riga"}',
    )
    .option(
      '--options <json>',
      'calendar options JSON (window, exclusions, starts_at, ends_at, max_count, jitter, dst)',
    )
    .option('--from <instant>', 'ISO 8601 instant; occurrences strictly after it (default: now)')
    .option('--count <n>', 'number of occurrences', '10')
    .option('--schedule-id <id>', 'schedule id (seeds deterministic jitter)')
    .option('--json', 'print a JSON array of {at, local, …}')
    .action((opts: PreviewOptions) => {
      const { items, timezone, explanation } = runPreview(opts, new Date());
      process.stdout.write(
        opts.json
          ? `${JSON.stringify(items, null, 2)}\n`
          : `${explanation !== undefined ? `${explanation}\n\n` : ''}${formatTable(items, timezone)}\n`,
      );
    });
}

export function describeError(e: unknown): string | undefined {
  if (e instanceof CalendarError) return `error: ${e.field}: ${e.reason} (${e.code})`;
  if (e instanceof UsageError) return `error: ${e.field}: ${e.reason}`;
  return undefined;
}
