// Which reverse proxies in front of the API are believed when they say whom they forward for
// (SCHEDULER_TRUST_PROXY, Fastify's `trustProxy`): the client address every per-address limit counts by
// (public routes, failed authentications) is then the nearest address in X-Forwarded-For that is not one of
// them, instead of the TCP peer — behind a load balancer, the peer is the balancer for every caller.
//
// Only a list of addresses and ranges is taken. `true` would believe whatever X-Forwarded-For a client sends
// (each request could name a fresh address and never be limited), and a hop count cannot tell a proxy from
// a client that connected directly (Fastify 5 ignores one: every caller would stay the TCP peer).
import ipaddr from 'ipaddr.js';

/** proxy-addr's named ranges, which Fastify's `trustProxy` expands. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Off, or the proxies' addresses, CIDR ranges and named ranges, as Fastify's `trustProxy` takes them. */
export type TrustProxy = false | string[];

/** Why `entry` cannot name trusted proxies, or null when it can. */
function entryProblem(entry: string): string | null {
  if (NAMED_RANGES.has(entry)) return null;
  if (/^(true|on|all|\*|yes)$/i.test(entry))
    return `"${entry}" would believe any X-Forwarded-For a client sends (every request could name a fresh address): list your proxies' addresses or ranges instead`;
  if (/^\d+$/.test(entry))
    return `"${entry}" looks like a hop count, which cannot tell a proxy from a client that connected directly: list your proxies' addresses or ranges instead`;
  const slash = entry.lastIndexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  if (!ipaddr.isValid(address))
    return `"${entry}" is not an IP address, a CIDR range or one of ${[...NAMED_RANGES].join(', ')}`;
  if (slash === -1) return null;
  let prefix: number;
  try {
    prefix = ipaddr.parseCIDR(entry)[1];
  } catch {
    return `"${entry}" is not a CIDR range (address/prefix length)`;
  }
  if (prefix === 0)
    return `"${entry}" is every address: it would believe any client; list your proxies' ranges`;
  return null;
}

/**
 * SCHEDULER_TRUST_PROXY: unset, empty or `off` → off (the TCP peer is the client); else a comma-separated
 * list of the proxies' IP addresses, CIDR ranges (`10.0.0.0/8`) and `loopback`, `linklocal`,
 * `uniquelocal`. Throws an Error naming the entry it refuses.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'off') return false;
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (entry === '')
      throw new Error('an empty entry in the list: separate addresses and ranges by one comma');
    const problem = entryProblem(entry);
    if (problem) throw new Error(problem);
  }
  return entries;
}
