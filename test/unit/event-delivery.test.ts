// Real sockets against real local servers: what is under test is where connections go, so nothing between
// undici and the kernel is mocked. The stand-ins are the resolver, to make a name answer what a hostile DNS
// would, and in one test the deadline, so that no assertion waits on a real timer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createEventDelivery,
  type EventDelivery,
  EventDeliveryError,
  type EventDeliveryRequest,
  type ResolvedAddress,
} from '../../src/activities/event-delivery.js';

interface Sink {
  port: number;
  url: string;
  /** TCP connections accepted: 0 means nothing reached the server at all. */
  connections: number;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function startSink(
  respond: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
  host = '127.0.0.1',
  port = 0,
): Promise<Sink> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      sink.requests.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      respond(req, res);
    });
  });
  server.on('connection', () => sink.connections++);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  const sink: Sink = {
    port: bound,
    url: `http://${host}:${bound}`,
    connections: 0,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  opened.push(sink);
  return sink;
}

/** A resolver that answers `answers[n]` to its n-th question (the last one from then on), and counts. */
function scriptedResolver(...answers: string[][]) {
  const resolver = {
    questions: [] as string[],
    resolve: async (hostname: string): Promise<ResolvedAddress[]> => {
      resolver.questions.push(hostname);
      const addresses = answers[Math.min(resolver.questions.length, answers.length) - 1]!;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
  return resolver;
}

function delivery(options: Parameters<typeof createEventDelivery>[0] = {}): EventDelivery {
  const created = createEventDelivery(options);
  opened.push(created);
  return created;
}

const event = (url: string, overrides: Partial<EventDeliveryRequest> = {}): EventDeliveryRequest => ({
  url,
  body: JSON.stringify({ specversion: '1.0', id: 'occ-1' }),
  headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': 'key-1' },
  allowPrivate: false,
  timeoutMs: 5_000,
  ...overrides,
});

const SECRET = 's3cret-token';

async function failure(promise: Promise<unknown>): Promise<EventDeliveryError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EventDeliveryError);
  const failed = err as EventDeliveryError;
  // Whatever went wrong, the query's values reach neither the tenant nor the log.
  expect(failed.message).not.toContain(SECRET);
  expect(failed.detail).not.toContain(SECRET);
  return failed;
}

describe('event delivery: where it connects', () => {
  it('refuses a loopback IP literal unless the sink is allowed private addresses', async () => {
    const sink = await startSink();
    const resolver = scriptedResolver(['203.0.113.1']);
    const sinks = delivery({ resolve: resolver.resolve });

    const refused = await failure(sinks.deliver(event(`${sink.url}/hook?token=${SECRET}`)));
    expect(refused.kind).toBe('address-refused');
    expect(refused.message).toBe('sink address not allowed (private, loopback or other non-public network)');
    expect(refused.message).not.toContain('127.0.0.1');
    expect(sink.connections).toBe(0);

    const delivered = await sinks.deliver(event(`${sink.url}/hook?token=${SECRET}`, { allowPrivate: true }));
    expect(delivered).toEqual({ status: 200 });
    expect(sink.requests).toEqual([
      {
        method: 'POST',
        url: `/hook?token=${SECRET}`,
        headers: expect.objectContaining({ 'idempotency-key': 'key-1' }),
        body: '{"specversion":"1.0","id":"occ-1"}',
      },
    ]);
    // An address is checked as it is; it is never resolved.
    expect(resolver.questions).toEqual([]);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]:1/',
    'http://0x7f.1:1/',
    'http://[fd00::1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
  ])('refuses %s before any connection', async (url) => {
    const refused = await failure(delivery().deliver(event(url)));
    expect(refused.kind).toBe('address-refused');
  });

  it('refuses http://localhost: a name that resolves to loopback is no opt-in', async () => {
    const sink = await startSink();
    const refused = await failure(
      delivery().deliver(event(`http://localhost:${sink.port}/?token=${SECRET}`)),
    );
    expect(refused.kind).toBe('address-refused');
    expect(refused.detail).toMatch(/localhost resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(sink.connections).toBe(0);
  });

  it('refuses a name with any non-public answer, even after a public one', async () => {
    const sink = await startSink();
    // One answer, public address first and loopback second.
    const mixed = scriptedResolver(['93.184.216.34', '127.0.0.1']);
    const refused = await failure(
      delivery({ resolve: mixed.resolve }).deliver(event(`http://sink.test:${sink.port}/?token=${SECRET}`)),
    );
    expect(refused.kind).toBe('address-refused');
    expect(refused.message).not.toMatch(/127\.0\.0\.1|93\.184/);
    expect(sink.connections).toBe(0);
    expect(mixed.questions).toEqual(['sink.test']);
  });

  it('connects to the addresses of its one resolution: a second answer cannot redirect it', async () => {
    const checked = await startSink();
    // Same port, another loopback address: where a second lookup would send the request.
    const other = await startSink(undefined, '127.0.0.2', checked.port);
    const resolver = scriptedResolver(['127.0.0.1'], ['127.0.0.2']);
    const result = await delivery({ resolve: resolver.resolve }).deliver(
      event(`http://sink.test:${checked.port}/`, { allowPrivate: true }),
    );
    expect(result.status).toBe(200);
    expect(resolver.questions).toEqual(['sink.test']);
    expect(checked.requests).toHaveLength(1);
    expect(other.connections).toBe(0);
  });

  it('resolves and checks again for every new connection, not for a pooled one', async () => {
    const keepsAlive = await startSink();
    const resolver = scriptedResolver(['127.0.0.1']);
    const sinks = delivery({ resolve: resolver.resolve });
    const pooled = event(`http://pooled.test:${keepsAlive.port}/`, { allowPrivate: true });
    await sinks.deliver(pooled);
    // undici hands the connection back to its pool a turn of the event loop after the body ends; a request
    // sent before that opens another connection (which would resolve and check for itself).
    await new Promise((resolve) => setImmediate(resolve));
    await sinks.deliver(pooled);
    expect(keepsAlive.connections).toBe(1);
    expect(resolver.questions).toEqual(['pooled.test']);

    const closes = await startSink((_req, res) => res.setHeader('connection', 'close').end('ok'));
    const fresh = event(`http://fresh.test:${closes.port}/`, { allowPrivate: true });
    await sinks.deliver(fresh);
    await sinks.deliver(fresh);
    expect(closes.connections).toBe(2);
    expect(resolver.questions).toEqual(['pooled.test', 'fresh.test', 'fresh.test']);
  });

  it('keeps connections for private-allowed sinks apart from the others', async () => {
    const sink = await startSink();
    const resolver = scriptedResolver(['127.0.0.1']);
    const sinks = delivery({ resolve: resolver.resolve });
    const url = `http://shared.test:${sink.port}/`;
    await sinks.deliver(event(url, { allowPrivate: true }));
    // The same origin, now for a sink without the opt-in: the pooled connection is not lent to it.
    const refused = await failure(sinks.deliver(event(url)));
    expect(refused.kind).toBe('address-refused');
    expect(sink.requests).toHaveLength(1);
  });
});

describe('event delivery: what it answers', () => {
  it('returns a redirect as its status and never follows it', async () => {
    const elsewhere = await startSink();
    const redirecting = await startSink((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.url}/stolen` }).end(),
    );
    const result = await delivery().deliver(event(`${redirecting.url}/`, { allowPrivate: true }));
    expect(result).toEqual({ status: 302 });
    expect(redirecting.requests).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
  });

  it('answers with the status without reading an endless body', async () => {
    const endless = await startSink((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = () => {
        while (res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    });
    const result = await delivery().deliver(event(`${endless.url}/`, { allowPrivate: true }));
    expect(result).toEqual({ status: 200 });
  });

  it('a sink that never answers times out with a coarse message', async () => {
    let holding!: () => void;
    const requestHeld = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const silent = await startSink(() => holding());
    // The deadline is ours to fire: the test asks which one the attempt set, and ends it once the sink holds
    // the request, instead of timing how long a real 300 ms timer took on a busy machine.
    const deadlines: number[] = [];
    const expiry = new AbortController();
    const sinks = delivery({
      deadline: (timeoutMs) => {
        deadlines.push(timeoutMs);
        return expiry.signal;
      },
    });
    const attempt = failure(
      sinks.deliver(event(`${silent.url}/?token=${SECRET}`, { allowPrivate: true, timeoutMs: 300 })),
    );
    await requestHeld;
    expect(deadlines).toEqual([300]);
    expiry.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    const timedOut = await attempt;
    expect(timedOut.kind).toBe('timeout');
    expect(timedOut.message).toBe('sink did not answer within 0.3 s');
    expect(silent.requests).toHaveLength(1);
  });

  it('without an injected deadline, a real timer ends the attempt', async () => {
    const silent = await startSink(() => {});
    // Not timed: a deadline that never fired would hang here, and the test's timeout is the hang detector.
    const timedOut = await failure(
      delivery().deliver(event(`${silent.url}/?token=${SECRET}`, { allowPrivate: true, timeoutMs: 50 })),
    );
    expect(timedOut.kind).toBe('timeout');
    expect(timedOut.message).toBe('sink did not answer within 0.05 s');
  });

  it('a closed port is unreachable, and the message names neither the port nor the error', async () => {
    const gone = await startSink();
    const { port, url } = gone;
    await gone.close();
    const unreachable = await failure(
      delivery().deliver(event(`${url}/?token=${SECRET}`, { allowPrivate: true })),
    );
    expect(unreachable.kind).toBe('unreachable');
    expect(unreachable.message).toBe('sink unreachable');
    expect(unreachable.message).not.toContain(String(port));
    expect(unreachable.message).not.toContain('ECONNREFUSED');
    // The operator's detail keeps the cause, with the URL redacted.
    expect(unreachable.detail).toContain('ECONNREFUSED');
    expect(unreachable.detail).toContain(`POST ${url}/?token=REDACTED`);
  });

  it('a name that does not resolve is unreachable', async () => {
    const resolve = async () => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND nowhere.test`), { code: 'ENOTFOUND' });
    };
    const unreachable = await failure(
      delivery({ resolve }).deliver(event(`http://nowhere.test/?k=${SECRET}`)),
    );
    expect(unreachable.kind).toBe('unreachable');
    expect(unreachable.message).toBe('sink unreachable');
    expect(unreachable.detail).toContain('ENOTFOUND');
  });

  it.each([
    `not a url?token=${SECRET}`,
    `ftp://files.example/?token=${SECRET}`,
    `https://user:${SECRET}@sink.example/`,
  ])('refuses %s as an invalid URL', async (url) => {
    const invalid = await failure(delivery().deliver(event(url)));
    expect(invalid.kind).toBe('invalid-url');
  });
});
