// The POST of a CloudEvent to a tenant's event sink, made so that the URL a tenant chose cannot aim the
// worker at the network it runs in (SSRF). A sink's name is resolved inside undici's connect step, and the
// connection goes to exactly the addresses that one resolution answered and this module classified: there is
// no second lookup for DNS rebinding to answer differently. Redirects are never followed (undici's request
// does not, and no redirect interceptor is installed): a 3xx comes back as the status, for the caller to
// treat as a failure, since following it would POST to a URL nobody checked.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import {
  type AddressClass,
  classifyAddress,
  hostOfUrl,
  redactUrl,
  type UrlHost,
} from '../model/network-address.js';

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

/** Every address a host name resolves to (`dns.lookup` with `all: true` unless a test injects one). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface EventDeliveryRequest {
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

const REFUSED = 'sink address not allowed (private, loopback or other non-public network)';
const UNREACHABLE = 'sink unreachable';

const resolveWithDns: ResolveHost = (hostname) => dnsLookup(hostname, { all: true });

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

/**
 * One delivery service per process. It pools connections per sink origin in two agents, one per
 * `allowPrivate` setting, so that a connection opened for a sink allowed private addresses never carries a
 * request that was not; a pooled connection goes to an address checked when it was opened, and every new
 * connection resolves and checks again.
 */
export function createEventDelivery(
  options: { resolve?: ResolveHost; deadline?: DeliveryDeadline } = {},
): EventDelivery {
  const resolve = options.resolve ?? resolveWithDns;
  const deadline = options.deadline ?? ((timeoutMs: number) => AbortSignal.timeout(timeoutMs));
  const agent = (allowPrivate: boolean) =>
    new Agent({ connect: { lookup: checkingLookup(resolve, allowPrivate), timeout: CONNECT_TIMEOUT_MS } });
  const publicOnly = agent(false);
  const privateAllowed = agent(true);

  return {
    async deliver({ url, body, headers, allowPrivate, timeoutMs }) {
      const shown = redactUrl(url);
      const failure = (kind: EventDeliveryErrorKind, message: string, detail: string) =>
        new EventDeliveryError(kind, message, `POST ${shown}: ${detail}`);

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

      const signal = deadline(timeoutMs);
      try {
        const response = await request(target, {
          method: 'POST',
          headers,
          body,
          signal,
          dispatcher: allowPrivate ? privateAllowed : publicOnly,
        });
        // The status is the sink's answer; a body cut short by the limit or the deadline does not change it.
        await discard(response.body, signal);
        return { status: response.statusCode };
      } catch (err) {
        if (err instanceof EventDeliveryError) throw failure(err.kind, err.message, err.detail);
        if (signal.aborted)
          throw failure('timeout', `sink did not answer within ${timeoutMs / 1000} s`, describe(err));
        if ((err as NodeJS.ErrnoException).code === 'UND_ERR_CONNECT_TIMEOUT')
          throw failure(
            'timeout',
            `sink did not accept a connection within ${CONNECT_TIMEOUT_MS / 1000} s`,
            describe(err),
          );
        throw failure('unreachable', UNREACHABLE, describe(err));
      }
    },

    async close() {
      await Promise.all([publicOnly.close(), privateAllowed.close()]);
    },
  };
}
