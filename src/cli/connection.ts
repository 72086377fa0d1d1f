/**
 * How the CLI reaches the HTTP API: the server URL, the API key and a timeout (flags, then environment,
 * then defaults), and one `fetch` per call that turns every failure into a typed error `main` maps to an
 * exit code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { DEV_API_KEY_FILE } from '../model/dev-api-key.js';
import type { Problem } from '../model/http.js';
import { UsageError } from './preview.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ConnectionFlags {
  url?: string;
  apiKey?: string;
  /** A file holding the key (its first line): unlike --api-key, out of `ps` and shell history. */
  apiKeyFile?: string;
  timeout?: string;
}

export interface Connection {
  /** Base URL without a trailing slash and without `/v1`. */
  url: string;
  apiKey: string | undefined;
  /** Where the key came from, for the 401 hint: `--api-key`, `SCHEDULER_API_KEY` or the key file's path. */
  keySource: string | undefined;
  timeoutMs: number;
  /** The development key file looked at when no key is given by flag or environment. */
  keyFile: string;
  /** One line each, for stderr: how this connection exposes the key. */
  warnings: string[];
}

/** The development key file `npm start` writes: `$SCHEDULER_DATA_DIR/dev-api-key`, else `<checkout>/.data/…`. */
export function devKeyFile(env: NodeJS.ProcessEnv): string {
  const dataDir = env.SCHEDULER_DATA_DIR ? resolve(env.SCHEDULER_DATA_DIR) : join(repoRoot, '.data');
  return join(dataDir, DEV_API_KEY_FILE);
}

/** The key a file holds (its first line, trimmed), or undefined when there is no file or it is empty. */
function readKeyFile(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const key = readFileSync(path, 'utf8').split(/\r?\n/)[0]!.trim();
  return key === '' ? undefined : key;
}

/** Flags win over the environment, the environment over defaults. Pure but for reading the key file. */
export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  readKey: (path: string) => string | undefined = readKeyFile,
): Connection {
  const rawUrl = flags.url ?? (env.SCHEDULER_URL || undefined) ?? DEFAULT_URL;
  const urlField = flags.url !== undefined ? '--url' : env.SCHEDULER_URL ? 'SCHEDULER_URL' : '--url';
  let parsed: URL;
  try {
    parsed = new URL(rawUrl);
  } catch {
    throw new UsageError(urlField, `"${rawUrl}" is not an absolute URL (e.g. ${DEFAULT_URL})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(urlField, `"${rawUrl}" must be an http or https URL (e.g. ${DEFAULT_URL})`);
  }
  // `npm start` prints the API as …:8080/v1: accept that too.
  const url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;

  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (flags.timeout !== undefined) {
    timeoutMs = Number(flags.timeout);
    if (!/^\d+$/.test(flags.timeout) || timeoutMs < 1 || timeoutMs > 3_600_000) {
      throw new UsageError('--timeout', `"${flags.timeout}" must be a number of milliseconds (1 to 3600000)`);
    }
  }

  let apiKey: string | undefined;
  let keySource: string | undefined;
  const warnings: string[] = [];
  const keyFile = devKeyFile(env);
  if (flags.apiKey !== undefined && flags.apiKeyFile !== undefined) {
    throw new UsageError('--api-key', 'give the key once: --api-key or --api-key-file, not both');
  }
  if (flags.apiKeyFile !== undefined) {
    let key: string | undefined;
    try {
      key = readKey(flags.apiKeyFile);
    } catch (err) {
      throw new UsageError(
        '--api-key-file',
        `cannot read ${flags.apiKeyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    if (key === undefined) {
      throw new UsageError(
        '--api-key-file',
        `${flags.apiKeyFile} is missing or empty (it holds the key alone)`,
      );
    }
    apiKey = key;
    keySource = flags.apiKeyFile;
  } else if (flags.apiKey !== undefined) {
    apiKey = flags.apiKey;
    keySource = '--api-key';
    warnings.push(
      'warning: --api-key is visible to other users in `ps` and stays in shell history: prefer SCHEDULER_API_KEY or --api-key-file',
    );
  } else if (env.SCHEDULER_API_KEY) {
    apiKey = env.SCHEDULER_API_KEY;
    keySource = 'SCHEDULER_API_KEY';
  } else {
    apiKey = readKey(keyFile);
    if (apiKey !== undefined) keySource = keyFile;
  }
  if (apiKey !== undefined && parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    warnings.push(
      `warning: the API key goes in clear text over http to ${parsed.host}, which is not this machine: use https`,
    );
  }
  return { url, apiKey, keySource, timeoutMs, keyFile, warnings };
}

/** `localhost`, 127.0.0.0/8 or ::1 (a URL's hostname: IPv6 in brackets). */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The server answered with an error status; `problem` is its RFC 9457 body when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly text: string,
    readonly keySource?: string,
    readonly retryAfter?: string,
  ) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

/** The server could not be reached or did not answer in time (exit 5). */
export class UnavailableError extends Error {
  override name = 'UnavailableError';
}

/** No key from --api-key(-file), SCHEDULER_API_KEY or the development key file (exit 1, like a 401). */
export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
  constructor(readonly keyFile: string) {
    super('no API key');
  }
}

export interface ApiResponse<T> {
  status: number;
  /** The parsed JSON body; undefined for 204. */
  body: T;
}

export type Fetch = typeof fetch;

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** Why `fetch` threw, in a few words (undici hides the reason in `cause`). */
function networkReason(err: unknown): string {
  for (let e = err as { code?: unknown; cause?: unknown; message?: string } | undefined; e; ) {
    if (typeof e.code === 'string') return NETWORK_CODES[e.code] ?? e.code;
    if (!e.cause) return e.message ?? String(e);
    e = e.cause as typeof e;
  }
  return String(err);
}

export class ApiClient {
  constructor(
    readonly connection: Connection,
    private readonly fetchImpl: Fetch = fetch,
  ) {}

  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options: { query?: Record<string, string | undefined>; body?: unknown } = {},
  ): Promise<ApiResponse<T>> {
    const { url, apiKey, timeoutMs, keySource, keyFile } = this.connection;
    if (apiKey === undefined) throw new MissingKeyError(keyFile);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) params.set(k, v);
    const target = `${url}${path}${params.size > 0 ? `?${params}` : ''}`;
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(target, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const name = (err as { name?: string })?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new UnavailableError(`no answer from ${url} within ${timeoutMs} ms (raise --timeout)`);
      }
      throw new UnavailableError(
        `cannot reach the scheduler at ${url}: ${networkReason(err)} (is it running? set --url or SCHEDULER_URL)`,
      );
    }
    let parsed: unknown;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!response.ok) {
      const problem = isProblem(parsed) ? parsed : undefined;
      throw new ApiError(
        response.status,
        problem,
        text,
        keySource,
        response.headers.get('retry-after') ?? undefined,
      );
    }
    if (text !== '' && parsed === undefined) {
      throw new Error(`the server at ${url} answered ${response.status} with a body that is not JSON`);
    }
    return { status: response.status, body: parsed as T };
  }
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).detail === 'string' &&
    typeof (body as Problem).status === 'number'
  );
}
