// Real sockets against real local servers: what is under test is where connections go, so nothing between
// undici and the kernel is mocked. The stand-ins are the resolver, to make a name answer what a hostile DNS
// would (a scripted function, or the real c-ares resolver pointed at a local DNS server that answers some
// names and never answers the others), and the deadline, so that no assertion waits on a real timer.
import { createSocket, type RemoteInfo } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIPv6 } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createEventDelivery,
  type EventDelivery,
  EventDeliveryError,
  type EventDeliveryRequest,
  MAX_DELIVERIES_PER_TENANT,
  MAX_DELIVERIES_PER_TENANT_HOST,
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
  tenant: 'acme',
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

interface DnsServer {
  /** `127.0.0.1:<port>`, for Resolver#setServers. */
  address: string;
  /** Every query asked, in order (its retries not again): `A never-1.example`, `AAAA never-1.example`. */
  questions: string[];
  /** The names asked about (any type). */
  askedNames(): Set<string>;
}

/** The question of a DNS query: its name (labels up to the root) and its type, and where the question ends. */
function questionOf(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! > 0) {
    labels.push(query.toString('latin1', at + 1, at + 1 + query[at]!));
    at += 1 + query[at]!;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

const A = 1;
const AAAA = 28;

/**
 * A DNS server on 127.0.0.1 that answers the names in `zone` (A and AAAA records, TTL 0) and never answers
 * any other name: its queries are read, recorded and dropped, as a domain whose nameservers are down.
 */
async function startDnsServer(zone: Record<string, string[]> = {}): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const questions: string[] = [];
  const seen = new Set<string>();
  socket.on('message', (query: Buffer, from: RemoteInfo) => {
    const { name, type, end } = questionOf(query);
    const question = `${type === A ? 'A' : type === AAAA ? 'AAAA' : type} ${name}`;
    // c-ares sends a query again, under the same ID, each time a try times out: one question still.
    const id = `${query.readUInt16BE(0)} ${question}`;
    if (!seen.has(id)) questions.push(question);
    seen.add(id);
    const records = zone[name];
    if (!records) return;
    const matching = records.filter((ip) => (type === AAAA ? isIPv6(ip) : type === A && !isIPv6(ip)));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0); // the query's ID
    header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
    header.writeUInt16BE(1, 4); // the question, echoed
    header.writeUInt16BE(matching.length, 6);
    const answers = matching.map((ip) => {
      const data = Buffer.from(ipaddr.parse(ip).toByteArray());
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(isIPv6(ip) ? AAAA : A, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(0, 6); // TTL
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, end), ...answers]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  opened.push({ close: () => new Promise<void>((resolve) => socket.close(() => resolve())) });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    askedNames: () => new Set(questions.map((q) => q.split(' ')[1]!)),
  };
}

/**
 * A c-ares resolver asking only `server`; `patient`: for minutes (c-ares waits at most about 5 s a try, so
 * many tries), until the test cancels it. Cancelled after the test.
 */
function resolverOf(server: DnsServer, patient = false): Resolver {
  const resolver = new Resolver(patient ? { timeout: 5_000, tries: 40 } : { timeout: 100, tries: 1 });
  resolver.setServers([server.address]);
  opened.push({ close: async () => resolver.cancel() });
  return resolver;
}

/** Deadlines the test fires: every attempt gets its own signal, and `expire()` ends all of them so far. */
function heldDeadlines() {
  const controllers: AbortController[] = [];
  return {
    deadline: () => {
      const controller = new AbortController();
      controllers.push(controller);
      return controller.signal;
    },
    expire: () => {
      for (const c of controllers)
        c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
  };
}

/** `promise` as an outcome that never rejects, and whether it has settled yet. */
function tracked<T>(promise: Promise<T>) {
  let settled = false;
  const outcome = promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  void outcome.finally(() => {
    settled = true;
  });
  return { outcome, settled: () => settled };
}

describe('event delivery: names resolved off the thread pool, deliveries bounded per tenant', () => {
  it("sinks whose DNS never answers delay neither another tenant's deliveries nor the thread pool", async () => {
    // It answers the other tenant's name, and never any of the hostile tenant's.
    const dns = await startDnsServer({ 'victim.example': ['127.0.0.1'] });
    // A resolver that waits minutes: nothing the hostile tenant started can end before the test cancels it.
    const resolver = resolverOf(dns, true);
    const sinks = delivery({ resolver, deadline: heldDeadlines().deadline });
    // Under dns.lookup each name held a thread of libuv's pool until the system resolver gave up; libuv
    // lets lookups hold at most half of the threads ((4 + 1) / 2), so every other lookup of the process
    // (any tenant's sink, anything else resolving a name) queued behind them all.
    const poolThreads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const lookupThreads = Math.floor((poolThreads + 1) / 2);
    const hostile = Array.from({ length: 4 * poolThreads }, (_, i) =>
      tracked(sinks.deliver(event(`http://never-${i}.example/hook`, { tenant: 'hostile' }))),
    );
    // Every thread the old lookup could hold is held: the never-answering server has their questions.
    await vi.waitFor(() => expect(dns.askedNames().size).toBeGreaterThanOrEqual(lookupThreads), {
      timeout: 10_000,
      interval: 10,
    });

    // Meanwhile: a file read (the thread pool), and the other tenant's deliveries to an IP literal and to a
    // name whose DNS answers (allowed private addresses: both are on this machine).
    const victim = await startSink();
    const stillHanging = () => hostile.filter((h) => !h.settled()).length;
    const probes = {
      'fs.readFile': () => readFile(new URL(import.meta.url)),
      'an IP-literal sink': () =>
        sinks.deliver(event(`${victim.url}/ip`, { tenant: 'victim', allowPrivate: true })),
      'a named sink': () =>
        sinks.deliver(
          event(`http://victim.example:${victim.port}/named`, { tenant: 'victim', allowPrivate: true }),
        ),
    };
    const hangingWhenDone = await Promise.all(
      Object.entries(probes).map(async ([what, probe]) => {
        await probe();
        return [what, stillHanging()] as const;
      }),
    );
    // What must hold is an order, not a duration: each probe ended while every hostile sink still hung.
    expect(Object.fromEntries(hangingWhenDone)).toEqual({
      'fs.readFile': hostile.length,
      'an IP-literal sink': hostile.length,
      'a named sink': hostile.length,
    });
    expect(victim.requests.map((r) => r.url).sort()).toEqual(['/ip', '/named']);

    resolver.cancel();
    for (const { outcome } of hostile) {
      const result = await outcome;
      expect(result.ok).toBe(false);
      expect((result as { error: EventDeliveryError }).error.kind).toBe('unreachable');
    }
  });

  it("a name whose DNS never answers fails as unreachable when the resolver gives up, not at the attempt's deadline", async () => {
    const dns = await startDnsServer();
    // The deadline is never fired: only the resolver's own timeout can end this attempt.
    const sinks = delivery({ resolver: resolverOf(dns), deadline: heldDeadlines().deadline });
    const unreachable = await failure(sinks.deliver(event(`http://never.example/?token=${SECRET}`)));
    expect(unreachable.kind).toBe('unreachable');
    expect(unreachable.message).toBe('sink unreachable');
    expect(unreachable.detail).toMatch(/resolving never\.example: .*ETIMEOUT/);
    expect(dns.questions).toEqual(expect.arrayContaining(['A never.example', 'AAAA never.example']));
  });

  it('checks every address of both families the DNS answers: one private AAAA refuses a public A', async () => {
    const sink = await startSink();
    const dns = await startDnsServer({
      'mixed.example': ['93.184.216.34', 'fd00::1'],
      'v6-loopback.example': ['::1'],
      'sink.example': ['127.0.0.1'],
    });
    const sinks = delivery({ resolver: resolverOf(dns) });
    const mixed = await failure(sinks.deliver(event(`http://mixed.example:${sink.port}/?token=${SECRET}`)));
    expect(mixed.kind).toBe('address-refused');
    expect(mixed.detail).toMatch(/mixed\.example resolves to fd00::1 \(private\)/);
    const v6 = await failure(sinks.deliver(event(`http://v6-loopback.example:${sink.port}/`)));
    expect(v6.kind).toBe('address-refused');
    expect(v6.detail).toMatch(/resolves to ::1 \(loopback\)/);
    // The same answers, for a sink the policy lets be private: it connects to the address DNS gave.
    const delivered = await sinks.deliver(
      event(`http://sink.example:${sink.port}/in`, { allowPrivate: true }),
    );
    expect(delivered.status).toBe(200);
    expect(sink.requests.map((r) => r.url)).toEqual(['/in']);
  });

  it('localhost is loopback without asking DNS; a name in the hosts file has its addresses (checked alike)', async () => {
    const sink = await startSink();
    const dns = await startDnsServer({ localhost: ['93.184.216.34'], 'listed.test': ['93.184.216.34'] });
    const hostsFile = join(mkdtempSync(join(tmpdir(), 'event-delivery-')), 'hosts');
    writeFileSync(
      hostsFile,
      "# the operator's\n127.0.0.1   listed.test  other.test # a sink on this machine\n",
    );
    const sinks = delivery({ resolver: resolverOf(dns), hostsFile });

    for (const name of ['localhost', 'api.localhost', 'LOCALHOST.', 'listed.test']) {
      const refused = await failure(sinks.deliver(event(`http://${name}:${sink.port}/?token=${SECRET}`)));
      expect(refused.kind, name).toBe('address-refused');
      expect(refused.detail).toMatch(/resolves to 127\.0\.0\.1 \(loopback\)/);
    }
    const delivered = await sinks.deliver(
      event(`http://listed.test:${sink.port}/in`, { allowPrivate: true }),
    );
    expect(delivered.status).toBe(200);
    // A DNS server that says localhost or a listed name is public is never asked.
    expect(dns.questions).toEqual([]);
    expect(sink.requests.map((r) => r.url)).toEqual(['/in']);
  });

  it(`a tenant has at most ${MAX_DELIVERIES_PER_TENANT_HOST} deliveries in flight to one host and ${MAX_DELIVERIES_PER_TENANT} in all; the rest wait within their deadline`, async () => {
    const dns = await startDnsServer();
    const deadlines = heldDeadlines();
    const resolver = resolverOf(dns, true);
    const sinks = delivery({ resolver, deadline: deadlines.deadline });
    const hostile = (url: string) => tracked(sinks.deliver(event(url, { tenant: 'hostile' })));
    // Twice the host's bound to one name, then enough other names to pass the tenant's bound by one.
    const oneHost = Array.from({ length: 2 * MAX_DELIVERIES_PER_TENANT_HOST }, (_, i) =>
      hostile(`http://same.example/${i}`),
    );
    const manyHosts = Array.from(
      { length: MAX_DELIVERIES_PER_TENANT - MAX_DELIVERIES_PER_TENANT_HOST + 1 },
      (_, i) => hostile(`http://other-${i}.example/`),
    );
    const resolving = MAX_DELIVERIES_PER_TENANT; // 8 to same.example, 24 to other hosts
    await vi.waitFor(
      () => expect(dns.questions.filter((q) => q.startsWith('A ')).length).toBeGreaterThanOrEqual(resolving),
      { timeout: 10_000, interval: 10 },
    );

    // Another tenant is not in this one's line.
    const victim = await startSink();
    await sinks.deliver(event(`${victim.url}/`, { tenant: 'victim', allowPrivate: true }));
    expect(victim.requests).toHaveLength(1);

    // Their deadlines pass: those waiting leave the line at once; a resolution under way is not cut short
    // by an abort (undici waits for its connect), so those in flight end when their DNS does.
    deadlines.expire();
    resolver.cancel();
    const messages = await Promise.all(
      [...oneHost, ...manyHosts].map(async ({ outcome }) => {
        const result = await outcome;
        return result.ok ? 'delivered' : (result.error as EventDeliveryError).message;
      }),
    );
    const count = (message: string) => messages.filter((m) => m === message).length;
    expect(count('sink unreachable')).toBe(MAX_DELIVERIES_PER_TENANT);
    expect(count("not sent within 5 s: 8 of this tenant's events to this host were in flight")).toBe(
      MAX_DELIVERIES_PER_TENANT_HOST,
    );
    expect(count("not sent within 5 s: 32 of this tenant's events were in flight")).toBe(1);
    // Exactly the deliveries in flight asked DNS: one A question each, none for those that waited.
    expect(dns.questions.filter((q) => q === 'A same.example')).toHaveLength(MAX_DELIVERIES_PER_TENANT_HOST);
    expect(dns.questions.filter((q) => q.startsWith('A '))).toHaveLength(MAX_DELIVERIES_PER_TENANT);

    // Every place was given back: the tenant delivers again, and asks DNS for the host it waited for.
    await sinks.deliver(event(`${victim.url}/again`, { tenant: 'hostile', allowPrivate: true }));
    const retried = hostile('http://same.example/again');
    await vi.waitFor(
      () =>
        expect(dns.questions.filter((q) => q === 'A same.example')).toHaveLength(
          MAX_DELIVERIES_PER_TENANT_HOST + 1,
        ),
      { timeout: 10_000, interval: 10 },
    );
    resolver.cancel();
    await retried.outcome;
  });
});
