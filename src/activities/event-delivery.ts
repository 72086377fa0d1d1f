// The POST of a CloudEvent to a tenant's event sink, made so that the URL a tenant chose cannot aim the
// worker at the network it runs in (SSRF). A sink's name is resolved inside undici's connect step, and the
// connection goes to exactly the addresses that one resolution answered and this module classified: there is
// no second lookup for DNS rebinding to answer differently. Redirects are never followed (undici's request
// does not, and no redirect interceptor is installed): a 3xx comes back as the status, for the caller to
// treat as a failure, since following it would POST to a URL nobody checked.
//
// Names are resolved by c-ares (`dns.Resolver`), never by `dns.lookup` (security review 2, N7): getaddrinfo
// runs on libuv's thread pool, an abort does not free its thread, and libuv lets lookups hold half of the
// pool (2 of 4 threads), so a few sinks on a domain whose DNS never answers held those two until the system
// resolver gave up, and every other lookup of the process (every tenant's named sinks) queued behind them.
// c-ares waits on a socket instead, and gives up after DNS_TIMEOUT_MS and DNS_TRIES. A tenant also has at
// most MAX_DELIVERIES_PER_TENANT deliveries (so resolutions) in flight on this worker, at most
// MAX_DELIVERIES_PER_TENANT_HOST of them to one host; the rest wait, within their attempt's deadline,
// behind that tenant's own: the DNS servers the worker shares see at most that many questions of one tenant.
import { Resolver } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import {
  type AddressClass,
  classifyAddress,
  hostOfUrl,
  redactUrl,
  type UrlHost,
} from '../model/network-address.js';
import { KeyedLimit } from './keyed-limit.js';

/**
 * `invalid-url` and `address-refused` cannot succeed on a retry (the definition or the policy must change);
 * `unreachable` and `timeout` may.
 */
export type EventDeliveryErrorKind = 'invalid-url' | 'address-refused' | 'unreachable' | 'timeout';

/**
 * A delivery that got no HTTP answer. `message` is fit for the tenant: never a network error's text, a
 * resolved address or the URL's query. `detail` is for the operator's log: the raw cause, the URL redacted.
 * There is deliberately no `cause`: Temporal copies an activity failure's cause chain into the history.
 */
export class EventDeliveryError extends Error {
  override readonly name = 'EventDeliveryError';

  constructor(
    readonly kind: EventDeliveryErrorKind,
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to (dnsResolveHost unless a test injects one). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The c-ares queries dnsResolveHost asks (a `dns.promises.Resolver`; tests point one at a local server). */
export type DnsResolver = Pick<Resolver, 'resolve4' | 'resolve6'>;

export interface EventDeliveryRequest {
  /** Whose event this is: its deliveries in flight are bounded per tenant. */
  tenant: string;
  /** An absolute http(s) URL without user info. */
  url: string;
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** The tenant policy lets this sink be on a non-public address; a name that merely resolves there does not. */
  allowPrivate: boolean;
  /** For everything up to the response's status line: resolving, connecting, sending, the sink's answer. */
  timeoutMs: number;
}

export interface EventDeliveryResult {
  /** Whatever the sink answered, 3xx included (never followed). */
  status: number;
}

export interface EventDelivery {
  /** POSTs once; resolves with the sink's status, or rejects with an EventDeliveryError. */
  deliver(request: EventDeliveryRequest): Promise<EventDeliveryResult>;
  /** Closes the pooled connections (worker shutdown). */
  close(): Promise<void>;
}

/** undici's own connect deadline (its default); a shorter `timeoutMs` ends the attempt first. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The sink's response body is read (so its connection can be reused) up to this much, then dropped. */
const MAX_DISCARDED_BODY_BYTES = 64 * 1024;

/**
 * How long c-ares waits for a DNS server's answer on a first try, and how many tries it makes: a name whose
 * DNS never answers fails after about 5 s (c-ares lengthens a retry), as `unreachable`, well inside an
 * attempt's 15 s and undici's 10 s connect deadline. It must: an abort does not end a connect that waits
 * for its lookup (undici waits for the connect), so the DNS timeout is what ends such an attempt.
 */
export const DNS_TIMEOUT_MS = 2_000;
export const DNS_TRIES = 2;
/**
 * One tenant's deliveries in flight on this worker, and to one host (the URL's host name or address). The
 * others wait in order, within their attempt's deadline; past it the attempt fails as a timeout (retried).
 * 32 is a third of the worker's default 100 activity slots; 8 to one host drain a burst of 100 events
 * within a 15 s attempt while the sink answers within a second.
 */
export const MAX_DELIVERIES_PER_TENANT = 32;
export const MAX_DELIVERIES_PER_TENANT_HOST = 8;
/** The hosts file is read again after this long (a read is a job on the thread pool: not one per connection). */
const HOSTS_FILE_TTL_MS = 5_000;

const REFUSED = 'sink address not allowed (private, loopback or other non-public network)';
const UNREACHABLE = 'sink unreachable';

/** RFC 6761 §6.3: `localhost` and names under it are loopback, answered without asking anyone. */
const LOOPBACK: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** A hosts file's entries: each name (lower case) to its addresses in the file's order. */
function parseHostsFile(text: string): Map<string, ResolvedAddress[]> {
  const entries = new Map<string, ResolvedAddress[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = address ? isIP(address) : 0;
    if (!address || family === 0) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      const known = entries.get(key) ?? [];
      if (!known.some((a) => a.address === address)) known.push({ address, family });
      entries.set(key, known);
    }
  }
  return entries;
}

/** The hosts file's entries, read at most once per HOSTS_FILE_TTL_MS; unreadable: none. */
function hostsFileEntries(path: string): () => Promise<Map<string, ResolvedAddress[]>> {
  let cached: { readAt: number; entries: Promise<Map<string, ResolvedAddress[]>> } | undefined;
  return () => {
    const now = Date.now();
    if (!cached || now - cached.readAt > HOSTS_FILE_TTL_MS) {
      cached = {
        readAt: now,
        entries: readFile(path, 'utf8').then(parseHostsFile, () => new Map()),
      };
    }
    return cached.entries;
  };
}

/**
 * How a sink's name is resolved unless a test injects `resolve`, in the order getaddrinfo would: `localhost`
 * (and `*.localhost`) is loopback (RFC 6761; no DNS server may say otherwise); a name in the hosts file (the
 * operator's, e.g. Kubernetes hostAliases) has the file's addresses; any other name is asked of DNS by
 * c-ares, A and AAAA, as written: the resolv.conf search domains do not apply (Node's resolver queries
 * exactly the name), so a sink names its host fully qualified. Every address is classified by the caller.
 */
export function dnsResolveHost(options: { resolver?: DnsResolver; hostsFile?: string } = {}): ResolveHost {
  const resolver = options.resolver ?? new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  const hosts = hostsFileEntries(options.hostsFile ?? '/etc/hosts');
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK;
    const listed = (await hosts()).get(name);
    if (listed) return listed;
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const answers = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    // One family may have no records (ENODATA); with no address at all, the first failure says why.
    if (answers.length === 0 && v4.status === 'rejected') throw v4.reason;
    if (answers.length === 0 && v6.status === 'rejected') throw v6.reason;
    return answers;
  };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const nested = err instanceof AggregateError ? ` [${err.errors.map(describe).join('; ')}]` : '';
  return `${err.name}${code ? ` ${code}` : ''}: ${err.message}${nested}`;
}

/**
 * Resolves and classifies a sink's name. One non-public answer refuses the name: a name that points both
 * outside and inside is misconfigured or rebinding, and keeping its public answers would still leave the
 * inside one to whichever attempt (happy eyeballs, the next connection) got to it.
 */
async function resolvePermitted(
  resolve: ResolveHost,
  hostname: string,
  allowPrivate: boolean,
): Promise<AddressClass[]> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await resolve(hostname);
  } catch (err) {
    throw new EventDeliveryError('unreachable', UNREACHABLE, `resolving ${hostname}: ${describe(err)}`);
  }
  let checked: AddressClass[];
  try {
    checked = answers.map(({ address }) => classifyAddress(address));
  } catch (err) {
    throw new EventDeliveryError('unreachable', UNREACHABLE, `resolving ${hostname}: ${describe(err)}`);
  }
  if (checked.length === 0)
    throw new EventDeliveryError('unreachable', UNREACHABLE, `resolving ${hostname}: no addresses`);
  const inside = checked.find((answer) => answer.range !== 'public');
  if (inside && !allowPrivate)
    throw new EventDeliveryError(
      'address-refused',
      REFUSED,
      `${hostname} resolves to ${inside.address} (${inside.range}) and the sink is not allowed private addresses`,
    );
  return checked;
}

/**
 * The lookup net.connect calls for every new connection to a name (it skips it for an IP literal): the one
 * resolution of that connection, checked, and the only addresses the socket may try.
 */
function checkingLookup(resolve: ResolveHost, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolvePermitted(resolve, hostname, allowPrivate).then(
      (addresses) => {
        const first = addresses[0]!;
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ''),
    );
  };
}

async function discard(body: Dispatcher.ResponseData['body'], signal: AbortSignal): Promise<void> {
  try {
    // Reads to the end (the connection goes back to the pool) unless the body is longer than the limit or
    // outlasts the deadline; then it is destroyed, and the connection with it.
    await body.dump({ limit: MAX_DISCARDED_BODY_BYTES, signal });
  } catch {
    body.destroy();
  }
}

/** The signal that ends an attempt `timeoutMs` after it starts (`AbortSignal.timeout` unless a test injects one). */
export type DeliveryDeadline = (timeoutMs: number) => AbortSignal;

/** The two pools and the per-tenant lines that every delivery of one service shares. */
interface DeliveryContext {
  deadline: DeliveryDeadline;
  publicOnly: Agent;
  privateAllowed: Agent;
  perTenant: KeyedLimit;
  perHost: KeyedLimit;
}

export interface EventDeliveryOptions {
  /** Replaces the whole resolution (tests: what a hostile DNS would answer). */
  resolve?: ResolveHost;
  /** The c-ares resolver of the default resolution (tests: one pointed at a local server). */
  resolver?: DnsResolver;
  /** The hosts file of the default resolution; default /etc/hosts. */
  hostsFile?: string;
  deadline?: DeliveryDeadline;
}

function deliveryContextOf(options: EventDeliveryOptions): DeliveryContext {
  const resolve =
    options.resolve ??
    dnsResolveHost({
      ...(options.resolver ? { resolver: options.resolver } : {}),
      ...(options.hostsFile ? { hostsFile: options.hostsFile } : {}),
    });
  const agent = (allowPrivate: boolean) =>
    new Agent({ connect: { lookup: checkingLookup(resolve, allowPrivate), timeout: CONNECT_TIMEOUT_MS } });
  return {
    deadline: options.deadline ?? ((timeoutMs: number) => AbortSignal.timeout(timeoutMs)),
    publicOnly: agent(false),
    privateAllowed: agent(true),
    perTenant: new KeyedLimit(MAX_DELIVERIES_PER_TENANT),
    perHost: new KeyedLimit(MAX_DELIVERIES_PER_TENANT_HOST),
  };
}

type Failure = (kind: EventDeliveryErrorKind, message: string, detail: string) => EventDeliveryError;

/** The sink's URL if it may be tried at all: absolute http(s), no user info, no refused IP literal. */
function sinkUrlOf(url: string, allowPrivate: boolean, failure: Failure): URL {
  let host: UrlHost;
  try {
    host = hostOfUrl(url);
  } catch (err) {
    throw failure('invalid-url', 'sink URL is not an absolute http(s) URL', describe(err));
  }
  const target = new URL(url);
  if (target.username || target.password)
    throw failure('invalid-url', 'sink URL must not contain a user name or password', 'user info in URL');
  // net.connect does not call the lookup for an IP literal, so the connect-time check never sees one.
  if (host.kind === 'ip' && host.range !== 'public' && !allowPrivate)
    throw failure('address-refused', REFUSED, `${host.address} is ${host.range}`);
  return target;
}

/** Where a failed attempt stood: in which line it still waited (null: it had both places). */
interface AttemptState {
  tenant: string;
  hostname: string;
  hostKey: string;
  timeoutMs: number;
  signal: AbortSignal;
  waitingFor: 'host' | 'tenant' | null;
}

/** A failed attempt as the EventDeliveryError its caller classifies (a timeout and unreachable are retried). */
function failureOf(
  ctx: DeliveryContext,
  err: unknown,
  at: AttemptState,
  failure: Failure,
): EventDeliveryError {
  const { tenant, hostname, hostKey, timeoutMs, signal, waitingFor } = at;
  if (err instanceof EventDeliveryError) return failure(err.kind, err.message, err.detail);
  if (signal.aborted && waitingFor === 'host')
    return failure(
      'timeout',
      `not sent within ${timeoutMs / 1000} s: ${MAX_DELIVERIES_PER_TENANT_HOST} of this tenant's events to this host were in flight`,
      `waited for one of tenant ${tenant}'s ${MAX_DELIVERIES_PER_TENANT_HOST} places for host ${hostname} (${ctx.perHost.waiting(hostKey)} more waiting)`,
    );
  if (signal.aborted && waitingFor === 'tenant')
    return failure(
      'timeout',
      `not sent within ${timeoutMs / 1000} s: ${MAX_DELIVERIES_PER_TENANT} of this tenant's events were in flight`,
      `waited for one of tenant ${tenant}'s ${MAX_DELIVERIES_PER_TENANT} places (${ctx.perTenant.waiting(tenant)} more waiting)`,
    );
  if (signal.aborted)
    return failure('timeout', `sink did not answer within ${timeoutMs / 1000} s`, describe(err));
  if ((err as NodeJS.ErrnoException).code === 'UND_ERR_CONNECT_TIMEOUT')
    return failure(
      'timeout',
      `sink did not accept a connection within ${CONNECT_TIMEOUT_MS / 1000} s`,
      describe(err),
    );
  return failure('unreachable', UNREACHABLE, describe(err));
}

async function deliver(ctx: DeliveryContext, sent: EventDeliveryRequest): Promise<EventDeliveryResult> {
  const { tenant, url, body, headers, allowPrivate, timeoutMs } = sent;
  const shown = redactUrl(url);
  const failure: Failure = (kind, message, detail) =>
    new EventDeliveryError(kind, message, `POST ${shown}: ${detail}`);
  const target = sinkUrlOf(url, allowPrivate, failure);

  const signal = ctx.deadline(timeoutMs);
  // A tenant's own line: by host first, so that the ones waiting for a slow host hold no tenant place.
  const hostKey = JSON.stringify([tenant, target.hostname]);
  const releases: Array<() => void> = [];
  const at: AttemptState = {
    tenant,
    hostname: target.hostname,
    hostKey,
    timeoutMs,
    signal,
    waitingFor: 'host',
  };
  try {
    releases.push(await ctx.perHost.acquire(hostKey, signal));
    at.waitingFor = 'tenant';
    releases.push(await ctx.perTenant.acquire(tenant, signal));
    at.waitingFor = null;
    const response = await request(target, {
      method: 'POST',
      headers,
      body,
      signal,
      dispatcher: allowPrivate ? ctx.privateAllowed : ctx.publicOnly,
    });
    // The status is the sink's answer; a body cut short by the limit or the deadline does not change it.
    await discard(response.body, signal);
    return { status: response.statusCode };
  } catch (err) {
    throw failureOf(ctx, err, at, failure);
  } finally {
    for (const release of releases.reverse()) release();
  }
}

/**
 * One delivery service per process. It pools connections per sink origin in two agents, one per
 * `allowPrivate` setting, so that a connection opened for a sink allowed private addresses never carries a
 * request that was not; a pooled connection goes to an address checked when it was opened, and every new
 * connection resolves and checks again.
 */
export function createEventDelivery(options: EventDeliveryOptions = {}): EventDelivery {
  const ctx = deliveryContextOf(options);
  return {
    deliver: (sent) => deliver(ctx, sent),
    async close() {
      await Promise.all([ctx.publicOnly.close(), ctx.privateAllowed.close()]);
    },
  };
}
