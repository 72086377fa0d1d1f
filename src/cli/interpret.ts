/**
 * `scheduler interpret`: a schedule said in words → the structured timing, read locally (no server), the
 * same JSON POST /v1/interpret answers for the same text, `--timezone` and `--now`.
 *
 *   interpret "<text>" [--timezone <IANA>] [--region <LV|DE-BY>] [--now <instant>] [--count N] [--json]
 *
 * `--json` prints the API's 200 body, or on a 422 its problem body (on stdout, exit 2). `create --when`
 * reads its words with {@link readWords} too.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { Problem, type Problem as ProblemBody } from '../model/http.js';
import {
  InterpretError,
  type InterpretProblem,
  type InterpretReading,
  InterpretRequest,
  InterpretResult,
  interpret,
} from '../model/interpret.js';
import { formatTable, type PreviewItem, UsageError } from './preview.js';

export interface InterpretFlags {
  timezone?: string;
  region?: string;
  now?: string;
  count?: string;
  json?: boolean;
}

/** The path whose answers these are: a problem's `instance`. */
export const INTERPRET_PATH = '/v1/interpret';

/** What reading the words came to, as the API answers it: 200 and the result, or 422 and the problem. */
export type WordsAnswer = { status: 200; body: InterpretResult } | { status: 422; body: ProblemBody };

/** The flags a request names, for usage errors (`--count`, not `count`). */
const FLAGS: Record<string, string> = {
  text: '<text>',
  timezone: '--timezone',
  region: '--region',
  now: '--now',
  count: '--count',
};

/** The request the flags make: checked against POST /v1/interpret's contract (a bad flag is exit 2). */
export function buildInterpretRequest(text: string, flags: InterpretFlags): InterpretRequest {
  const body: Record<string, unknown> = { text };
  if (flags.timezone !== undefined) body.timezone = flags.timezone;
  if (flags.region !== undefined) body.region = flags.region;
  if (flags.now !== undefined) body.now = flags.now;
  if (flags.count !== undefined) {
    if (!/^\d+$/.test(flags.count))
      throw new UsageError('--count', `"${flags.count}" must be an integer from 1 to 100`);
    body.count = Number(flags.count);
  }
  const parsed = InterpretRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    const reason =
      field === 'now'
        ? `"${flags.now}" must be an ISO 8601 instant with Z or an offset (e.g. 2026-09-05T11:00:00Z)`
        : issue.message;
    throw new UsageError(FLAGS[field] ?? (field || 'request'), reason);
  }
  return body as InterpretRequest;
}

/**
 * The 422 problem POST /v1/interpret answers for `problem` (src/api/http/problems.ts renders the same
 * from the SDK's InterpretProblemError; test/unit/interpret-plumbing.test.ts keeps the two equal).
 */
export function interpretProblemBody(problem: InterpretProblem): ProblemBody {
  return unprocessable(problem.field, problem.reason, {
    code: problem.code,
    field: problem.field,
    ...(problem.code === 'AMBIGUOUS' ? { readings: problem.readings } : {}),
    ...(problem.code === 'UNREADABLE' ? { unread: problem.unread } : {}),
  });
}

function unprocessable(field: string | null, reason: string, extra: Partial<ProblemBody>): ProblemBody {
  return {
    type: '/problems/unprocessable',
    title: 'Unprocessable definition',
    status: 422,
    detail: field ? `${field}: ${reason}` : reason,
    instance: INTERPRET_PATH,
    code: 'VALIDATION',
    field: null,
    ...extra,
  };
}

/**
 * Reads the words here (the CLI's thread; `wallNow` is `now` when the request gives none) and answers as
 * the API does, its body encoded by the same schemas (same fields, same order).
 */
export function readWords(request: InterpretRequest, wallNow: Date): WordsAnswer {
  try {
    return { status: 200, body: z.encode(InterpretResult, interpret(request, wallNow)) };
  } catch (err) {
    // the reader answers a reading the calendar refuses as UNREADABLE too (src/model/interpret.ts)
    if (!(err instanceof InterpretError)) throw err;
    return { status: 422, body: z.encode(Problem, interpretProblemBody(err.problem)) };
  }
}

/** The zone a reading's runs are shown in: its timing's, else its own, else UTC. */
function zoneOfReading(reading: InterpretReading): string {
  return (reading.timing as { timezone?: string }).timezone ?? reading.timezone ?? 'UTC';
}

/** A reading as a person reads it: the explanation, the structured timing, the notes, the next runs. */
export function formatReading(reading: InterpretReading | InterpretResult): string {
  const { timing, explanation, notes, next_runs, ...rest } = reading;
  const { text: _text, language: _language, ...options } = rest as Partial<InterpretResult>;
  const items: PreviewItem[] = next_runs.map((run) => ({
    at: run.fire_at,
    local: run.local,
    scheduled_for: run.scheduled_for,
    ...(run.label !== undefined ? { label: run.label } : {}),
    ...(run.adjustments.length > 0
      ? { adjustments: run.adjustments as NonNullable<PreviewItem['adjustments']> }
      : {}),
  }));
  return [
    explanation,
    `  timing:  ${JSON.stringify(timing)}`,
    ...(Object.keys(options).length > 0 ? [`  options: ${JSON.stringify(options)}`] : []),
    ...notes.map((note) => `  note:    ${note}`),
    '',
    formatTable(items, zoneOfReading(reading)),
  ].join('\n');
}

/** A 422 as a person reads it: the readings of an ambiguous text, the unread words marked under the text. */
export function formatProblem(text: string, problem: ProblemBody): string {
  if (problem.readings?.length) {
    return [
      `"${text}" reads ${problem.readings.length} ways: ${problem.detail}`,
      ...problem.readings.flatMap((reading, i) => ['', `Reading ${i + 1}: ${formatReading(reading)}`]),
    ].join('\n');
  }
  if (problem.unread?.length) {
    const marks = Array.from({ length: text.length }, () => ' ');
    for (const { word, offset } of problem.unread) {
      for (let i = offset; i < Math.min(offset + word.length, text.length); i++) marks[i] = '^';
    }
    const words = problem.unread.map((u) => `"${u.word}" at ${u.offset}`).join(', ');
    // One line each (a text with a newline would break the marks: shown escaped).
    const shown = text.replace(/[\r\n\t]/g, ' ');
    return [`  ${shown}`, `  ${marks.join('').trimEnd()}`, `not read: ${words}`].join('\n');
  }
  return '';
}

/** The one error line of a 422, for stderr (the exit code is 2). */
export function problemError(problem: ProblemBody): UsageError {
  const field = problem.field ?? 'text';
  const reason = problem.detail.startsWith(`${field}: `)
    ? problem.detail.slice(field.length + 2)
    : problem.detail;
  return new UsageError(field, `${reason} (${problem.code})`);
}

export function registerInterpret(program: Command, io: { stdout: (s: string) => void; now: () => Date }) {
  return program
    .command('interpret <text>')
    .description(
      'read a schedule said in words (English or Russian) into a structured timing, with its next runs (no server needed)',
    )
    .option('--timezone <zone>', 'IANA zone for wall-clock words when the text names none (e.g. Europe/Riga)')
    .option(
      '--region <region>',
      "whose public holidays close a business day when the text names no country (LV, DE-BY); default: the zone's country",
    )
    .option(
      '--now <instant>',
      'the instant relative words count from ("tomorrow", "in 20 minutes"); default now',
    )
    .option('--count <n>', 'next runs to show, 1 to 100', '5')
    .option('--json', "print POST /v1/interpret's JSON (on a 422 its problem JSON, exit 2)")
    .action((text: string, flags: InterpretFlags) => {
      const request = buildInterpretRequest(text, flags);
      const answer = readWords(request, io.now());
      if (flags.json) {
        io.stdout(`${JSON.stringify(answer.body, null, 2)}\n`);
        if (answer.status === 422) throw problemError(answer.body);
        return;
      }
      if (answer.status === 200) {
        io.stdout(`${formatReading(answer.body)}\n`);
        return;
      }
      const shown = formatProblem(text, answer.body);
      if (shown) io.stdout(`${shown}\n`);
      throw problemError(answer.body);
    });
}
