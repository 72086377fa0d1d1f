/**
 * Every failure of a CLI command becomes ONE line on stderr and an exit code:
 *   0 ok · 2 bad input (local validation, 400, 413, 415, 422) · 3 not found (404) · 4 conflict (409)
 *   5 server unavailable (502/503/504, connection refused, timeout) · 1 anything else (401: check the key;
 *   403: a target the tenant policy does not allow)
 */
import { ApiError, MissingKeyError, UnavailableError } from './connection.js';
import { terminalSafe } from './format.js';
import { describeError } from './preview.js';

export const EXIT = { OK: 0, OTHER: 1, BAD_INPUT: 2, NOT_FOUND: 3, CONFLICT: 4, UNAVAILABLE: 5 } as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  2  bad input: a flag or field refused locally, or by the server (400, 413, 415, 422)
  3  not found (404): no such schedule for your tenant
  4  conflict (409): stale --expected-version, another definition under the same id, or an ended schedule
  5  server unavailable (503, 502, 504, connection refused, --timeout passed): retry later
  1  anything else, e.g. 401: the API key was refused (set SCHEDULER_API_KEY or --api-key), or
     403 FORBIDDEN_TARGET: the tenant policy does not allow that target (the line names the field)`;

/** The exit code for an HTTP error status. */
export function exitCodeForStatus(status: number): number {
  if (status === 400 || status === 413 || status === 415 || status === 422) return EXIT.BAD_INPUT;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 409) return EXIT.CONFLICT;
  if (status === 502 || status === 503 || status === 504) return EXIT.UNAVAILABLE;
  return EXIT.OTHER;
}

/** One line, no newlines inside (a detail could carry one), inert on a terminal (it may quote a colleague). */
const oneLine = (s: string) => terminalSafe(s.replace(/\s*\n\s*/g, ' ').trim());

/** `error: <detail> (<code>, field <field>)`, plus a hint for 401 and 429. */
export function apiErrorLine(err: ApiError): string {
  const p = err.problem;
  let line: string;
  if (p) {
    const tags = oneLine([p.code, p.field ? `field ${p.field}` : undefined].filter(Boolean).join(', '));
    line = `error: ${oneLine(p.detail)}${tags ? ` (${tags})` : ''}`;
  } else {
    const text = oneLine(err.text).slice(0, 200);
    line = `error: the server answered HTTP ${err.status}${text ? `: ${text}` : ''}`;
  }
  if (err.status === 401) {
    line += `; hint: set SCHEDULER_API_KEY or --api-key to a key the server accepts${
      err.keySource ? ` (this one came from ${err.keySource})` : ''
    }`;
  } else if (err.status === 429 && err.retryAfter) {
    line += `; retry in ${err.retryAfter} s`;
  } else if (exitCodeForStatus(err.status) === EXIT.UNAVAILABLE && err.retryAfter) {
    line += `; retry in ${err.retryAfter} s`;
  }
  return line;
}

/** What `main` prints and returns for an error thrown by a command (commander's own errors excluded). */
export function failure(err: unknown): { line: string; exitCode: number } {
  if (err instanceof ApiError) return { line: apiErrorLine(err), exitCode: exitCodeForStatus(err.status) };
  if (err instanceof UnavailableError) return { line: `error: ${err.message}`, exitCode: EXIT.UNAVAILABLE };
  if (err instanceof MissingKeyError) {
    return {
      line: `error: no API key: set SCHEDULER_API_KEY or --api-key-file (no development key at ${err.keyFile}; \`npm start\` writes one)`,
      exitCode: EXIT.OTHER,
    };
  }
  const usage = describeError(err);
  if (usage !== undefined) return { line: oneLine(usage), exitCode: EXIT.BAD_INPUT };
  return { line: `error: ${oneLine((err as Error)?.message ?? String(err))}`, exitCode: EXIT.OTHER };
}
