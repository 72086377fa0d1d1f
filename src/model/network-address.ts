// Where an IP address points, for deciding whether the scheduler may connect to it on a tenant's behalf
// (event sinks: SSRF). The API's create-time check of a sink URL and the worker's connect-time check of
// every address it resolves share these functions, so the two can never disagree. Pure: no DNS, no sockets.
import ipaddr from 'ipaddr.js';

/**
 * `public` is the only range a tenant's sink may reach without an opt-in. The others name the non-public
 * range; `reserved` gathers every range that is not ordinary global unicast (documentation, benchmarking,
 * 240/4, AS112, AMT, IPv6 outside 2000::/3, and the IPv6 transition ranges other than NAT64 64:ff9b::/96).
 */
export type AddressRange =
  | 'public'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'carrierGradeNat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved';

export interface AddressClass {
  /**
   * The address to connect to: dotted decimal for IPv4 (an IPv4-mapped IPv6 address becomes its IPv4
   * address), RFC 5952 for IPv6 (with its zone, if any).
   */
  address: string;
  family: 4 | 6;
  range: AddressRange;
}

const V4_RANGES: Partial<Record<ReturnType<ipaddr.IPv4['range']>, AddressRange>> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'linkLocal',
  carrierGradeNat: 'carrierGradeNat',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
};

// Keyed by string: ipaddr.js returns range names its type declaration does not list (deprecatedSiteLocal…).
const V6_RANGES: Partial<Record<string, AddressRange>> = {
  loopback: 'loopback',
  uniqueLocal: 'private',
  linkLocal: 'linkLocal',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

// IANA allocates global unicast only from 2000::/3; ipaddr.js calls everything it has no name for 'unicast',
// which includes the deprecated IPv4-compatible ::a.b.c.d (::7f00:1) that some stacks still tunnel to IPv4.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
// NAT64's well-known prefix: a translator forwards 64:ff9b::a.b.c.d to a.b.c.d, so it is exactly as safe as
// that IPv4 address (RFC 6052 forbids it for non-global IPv4, but an attacker need not comply). The other
// transition ranges (64:ff9b:1::/48, 6to4, Teredo, IPv4-translated) embed IPv4 in deployment-specific or
// obfuscated ways and are refused as `reserved`.
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const rangeOfV4 = (address: ipaddr.IPv4): AddressRange => V4_RANGES[address.range()] ?? 'reserved';

/**
 * Classifies one IP address: dotted-decimal IPv4 (four parts, as DNS answers and URL parsing give it) or
 * IPv6 without brackets. Throws a TypeError for anything else, including IPv4 shorthands like `127.1`:
 * their meaning depends on the parser, and URL parsing is where such spellings get normalised.
 */
export function classifyAddress(ip: string): AddressClass {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) {
    const v4 = ipaddr.IPv4.parse(ip);
    return { address: v4.toString(), family: 4, range: rangeOfV4(v4) };
  }
  if (!ipaddr.IPv6.isValid(ip)) throw new TypeError('not an IP address');
  const v6 = ipaddr.IPv6.parse(ip);
  if (v6.isIPv4MappedAddress()) {
    const v4 = v6.toIPv4Address();
    return { address: v4.toString(), family: 4, range: rangeOfV4(v4) };
  }
  const address = v6.toRFC5952String();
  if (v6.match(NAT64_WELL_KNOWN)) {
    return { address, family: 6, range: rangeOfV4(new ipaddr.IPv4(v6.toByteArray().slice(12))) };
  }
  const range = V6_RANGES[v6.range()];
  if (range) return { address, family: 6, range };
  const global = v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
  return { address, family: 6, range: global ? 'public' : 'reserved' };
}

export type UrlHost = ({ kind: 'ip' } & AddressClass) | { kind: 'name'; hostname: string };

/**
 * What a `URL.hostname` names: an address (IPv6 with or without its brackets) or a DNS name, which says
 * nothing about where it points until resolved. Only for hostnames the WHATWG parser produced: it is what
 * turns `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` into `127.0.0.1`; a raw string is read literally.
 */
export function classifyHost(hostname: string): UrlHost {
  // The parser makes every host whose last label is numeric IPv4 (or rejects the URL), so a dotted quad
  // here is always an address, never a name.
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.IPv6.isValid(literal))
    return { kind: 'ip', ...classifyAddress(literal) };
  return { kind: 'name', hostname };
}

/**
 * The host an http(s) URL connects to (see classifyHost). Throws a TypeError for an unparseable URL or
 * another scheme, whose host the parser leaves as written.
 */
export function hostOfUrl(url: string): UrlHost {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('not an http(s) URL');
  return classifyHost(parsed.hostname);
}

export const REDACTED = 'REDACTED';
export const UNPARSEABLE_URL = '(unparseable URL)';

/**
 * A URL fit for tenant-visible reasons, logs and failures: query values replaced by REDACTED
 * (`?token=REDACTED&x=REDACTED`; a parameter without `=` is replaced whole, since in `?<key>` the name is the
 * secret), user info and fragment dropped. The path is kept: it is what tells one sink from another.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UNPARSEABLE_URL;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  parsed.search = parsed.search
    .slice(1)
    .split('&')
    .filter((parameter) => parameter !== '')
    .map((parameter) => {
      const equals = parameter.indexOf('=');
      return equals < 0 ? REDACTED : `${parameter.slice(0, equals)}=${REDACTED}`;
    })
    .join('&');
  return parsed.href;
}
