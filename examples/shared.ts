// What every example shares: where the scheduler and Temporal are (from the environment, with the
// defaults of `npm start`) and one small helper for the HTTP API that prints its RFC 9457 problems.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devKeyFile } from '../src/cli/connection.js';

/** The checkout (examples/ sits at its root). */
export const repoRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));

export const temporalAddress = process.env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
export const temporalNamespace = process.env.TEMPORAL_NAMESPACE || 'default';
export const schedulerUrl = (process.env.SCHEDULER_URL || 'http://127.0.0.1:8080')
  .replace(/\/+$/, '')
  .replace(/\/v1$/, '');

/**
 * The API key: SCHEDULER_API_KEY, else the development key `npm start` wrote to its data directory
 * (`$SCHEDULER_DATA_DIR/dev-api-key`, by default `.data/dev-api-key` in the checkout).
 */
export function apiKey(): string {
  if (process.env.SCHEDULER_API_KEY) return process.env.SCHEDULER_API_KEY;
  const file = devKeyFile(process.env);
  if (!existsSync(file)) {
    throw new Error(
      `no API key: set SCHEDULER_API_KEY, or run \`npm start\` first (it writes its development key to ${file})`,
    );
  }
  return readFileSync(file, 'utf8').trim();
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; code?: string; field?: string } | undefined,
    text: string,
  ) {
    super(`HTTP ${status}: ${problem?.detail ?? problem?.title ?? text}`);
    this.name = 'ApiError';
  }
}

/** One call to the scheduler's HTTP API (`path` starts with /v1/…); returns the parsed JSON body. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${schedulerUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    throw new Error(
      `the scheduler API at ${schedulerUrl} is not reachable (${(err as Error).cause ?? (err as Error).message}): is \`npm start\` running? (set SCHEDULER_URL otherwise)`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    let problem: ApiError['problem'];
    try {
      problem = JSON.parse(text);
    } catch {
      problem = undefined;
    }
    throw new ApiError(response.status, problem, text);
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Runs an example's `main`, printing a failure as one line (and exit code 1) instead of a stack. */
export function run(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
