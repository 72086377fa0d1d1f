// The console's only way to the product: the /v1 API of this origin, with the tenant's key from
// sessionStorage (this tab only, gone when it closes) as `Authorization: Bearer`. The key is never put in a
// URL, never logged, never sent anywhere else. A 429 or 503 is retried as its Retry-After says, a few times,
// as any careful client does; other answers are the caller's to show.

const KEY = 'durable-scheduler.console.key';

export const keyStore = {
  get: () => sessionStorage.getItem(KEY),
  set: (key) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

/** A problem answer (RFC 9457) of the API, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem ?? {};
  }
}

const RETRIES = 3;
const MAX_WAIT_S = 30;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `/v1${path}`; resolves the JSON answer (null for none), rejects with an ApiError. */
export async function api(method, path, body) {
  const key = keyStore.get();
  if (!key) throw new ApiError(401, { detail: 'no API key entered' });
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(`/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json, application/problem+json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch (err) {
      throw new ApiError(0, { detail: `the API did not answer: ${err.message}` });
    }
    if ((response.status === 429 || response.status === 503) && attempt < RETRIES) {
      const after = Number(response.headers.get('retry-after'));
      await sleep(Math.min(Number.isFinite(after) && after > 0 ? after : 1, MAX_WAIT_S) * 1000);
      continue;
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { detail: text.slice(0, 200) };
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }
}

/** `/schedules/<id>` with the ID as one escaped path segment. */
export const schedulePath = (id, action = '') =>
  `/schedules/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

/** Every schedule of the tenant (pages of 100, at most `maxPages`), deleted ones left out. */
export async function listSchedules(maxPages = 10) {
  const items = [];
  let cursor = null;
  for (let page = 0; page < maxPages; page++) {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const answer = await api('GET', `/schedules?${query}`);
    items.push(...answer.items);
    cursor = answer.next_cursor;
    if (!cursor) return { items, complete: true };
  }
  return { items, complete: false };
}
