import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Identifier } from '../model/contracts.js';
import { DEV_API_KEY_FILE } from '../model/dev-api-key.js';

/**
 * Who a caller is: every schedule belongs to one tenant and one owner. The tenant is an Identifier, as
 * in the schedule's workflow ID (`schedule/<tenant>/<id>`): no `/`, quote or backslash, so visibility
 * queries stay well-formed and `<tenant>/<owner>` (the owner search attribute, the rate-limit key) splits
 * at its first `/` into one tenant and one owner. The owner may contain `/`, but only visible characters:
 * no spaces, control or format characters (a bidi override would spell another owner in logs and the UI).
 */
export const PrincipalSchema = z.object({
  tenant_id: Identifier.max(128),
  owner_ref: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^\s\p{C}]+$/u, 'visible characters only (no spaces, control or format characters)'),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/** A configuration value (environment variable or file) that cannot be used; the message says why. */
export class ConfigValueError extends Error {
  override name = 'ConfigValueError';
}

/** SCHEDULER_API_KEYS or SCHEDULER_API_KEY_FILE cannot be used. */
export class ApiKeyConfigError extends ConfigValueError {
  override name = 'ApiKeyConfigError';
}

/** Fewer characters than this cannot carry 128 bits even drawn at random from base64url. */
export const MIN_KEY_LENGTH = 22;
const MIN_KEY_BITS = 128;
/** Below this many bits by character frequencies, a key mostly repeats itself (`aaaa…`, `abab…`). */
const MIN_KEY_SHANNON_BITS = 64;
/**
 * The alphabets a key can be drawn from, smallest first: a key is judged by the smallest one that holds
 * all its characters. Mixed-case letters alone are not one of them: one random 22-character base64url key
 * in a hundred has no digit, `-` or `_`, and judged as 52 letters it would fall short of 128 bits.
 */
const KEY_ALPHABETS: ReadonlyArray<{ name: string; size: number; pattern: RegExp }> = [
  { name: 'decimal digits', size: 10, pattern: /^[0-9]+$/ },
  { name: 'hex digits', size: 16, pattern: /^[0-9a-f]+$/i },
  { name: 'lower-case letters', size: 26, pattern: /^[a-z]+$/ },
  { name: 'upper-case letters', size: 26, pattern: /^[A-Z]+$/ },
  { name: 'base64url characters', size: 64, pattern: /^[A-Za-z0-9_-]+$/ },
  { name: 'printable characters', size: 94, pattern: /^[\s\S]+$/ },
];
/**
 * Keys the documentation showed: README and docker-compose.yml had `change-me-0123456789`, and operators
 * copy examples. Any key starting so is refused, whatever follows.
 */
const EXAMPLE_KEY_PREFIXES = ['change-me'];
const GENERATE_KEY_HINT =
  "make one with `node -e \"console.log('sk_'+require('node:crypto').randomBytes(24).toString('base64url'))\"` or `openssl rand -hex 24`";

/**
 * Why a plaintext API key is too weak to configure, or null when it is not. Deterministic, and an
 * estimate (it cannot tell a random key from a memorable one of the same characters): a key needs
 *  - at least MIN_KEY_LENGTH (22) characters;
 *  - at least 128 bits as length × log2(alphabet), the alphabet being the smallest of decimal (10), hex
 *    (16), one-case letters (26), base64url (64) and printable ASCII (94) that holds every character —
 *    so 22 base64url characters (132 bits) or 32 hex digits (128 bits) are enough, 24 hex digits are not;
 *  - at least 64 bits as length × the Shannon entropy of its character frequencies, which a random key
 *    of 22 base64url characters exceeds with a wide margin (about 73 at the very least) and a key that
 *    repeats a few characters does not;
 *  - not to be an example key from the documentation (`change-me…`).
 * Hashed entries (`sha256:<hex>` in SCHEDULER_API_KEY_FILE) cannot be judged: the hash hides the key.
 */
export function keyWeakness(key: string): string | null {
  const lower = key.toLowerCase();
  if (EXAMPLE_KEY_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    return `the key is the documentation's example (change-me…), which anyone can read: ${GENERATE_KEY_HINT}`;
  }
  const length = [...key].length;
  if (length < MIN_KEY_LENGTH) {
    return `a key has at least ${MIN_KEY_LENGTH} characters (128 bits), this one has ${length}: ${GENERATE_KEY_HINT}`;
  }
  const alphabet = KEY_ALPHABETS.find((a) => a.pattern.test(key))!;
  const bits = Math.floor(length * Math.log2(alphabet.size));
  if (bits < MIN_KEY_BITS) {
    const needed = Math.ceil(MIN_KEY_BITS / Math.log2(alphabet.size));
    return `a key of ${alphabet.name} needs at least ${needed} of them for 128 bits, this one has ${length} (${bits} bits): ${GENERATE_KEY_HINT}`;
  }
  const counts = new Map<string, number>();
  for (const char of key) counts.set(char, (counts.get(char) ?? 0) + 1);
  let shannon = 0;
  for (const count of counts.values()) shannon -= count * Math.log2(count / length);
  if (shannon < MIN_KEY_SHANNON_BITS) {
    return `the key repeats a few characters (${counts.size} distinct in ${length}), it cannot be random: ${GENERATE_KEY_HINT}`;
  }
  return null;
}

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Checks tenant_id and owner_ref, naming `where` (never the key) when they are unusable. */
function principalOf(tenant_id: string, owner_ref: string, where: string): Principal {
  const parsed = PrincipalSchema.safeParse({ tenant_id, owner_ref });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiKeyConfigError(`${where}: ${issue?.path.join('.') ?? 'principal'}: ${issue?.message}`);
  }
  return Object.freeze(parsed.data);
}

/** SCHEDULER_API_KEYS entries with their plaintext keys (shared by parseApiKeys and KeyRing.fromConfig). */
function parseKeySpec(spec: string): Array<{ key: string; principal: Principal; source: string }> {
  const entries: Array<{ key: string; principal: Principal; source: string }> = [];
  for (const [index, raw] of spec.split(',').entries()) {
    const entry = raw.trim();
    if (!entry) continue;
    const source = `SCHEDULER_API_KEYS entry ${index + 1}`;
    const match = /^([^=\s]+)=([^:\s]+):(\S+)$/.exec(entry);
    if (!match) throw new ApiKeyConfigError(`${source} is not 'key=tenant_id:owner_ref'`);
    // A hashed entry pasted here would make its hash the key: anyone who saw the hash could use it.
    if (/^sha256:/i.test(match[1]!)) {
      throw new ApiKeyConfigError(
        `${source} is a hashed key ('sha256:…'); hashed entries belong in SCHEDULER_API_KEY_FILE`,
      );
    }
    const principal = principalOf(match[2]!, match[3]!, source);
    const weakness = keyWeakness(match[1]!);
    if (weakness) throw new ApiKeyConfigError(`${source}: ${weakness}`);
    entries.push({ key: match[1]!, principal, source });
  }
  return entries;
}

/** Parses SCHEDULER_API_KEYS: comma-separated `key=tenant_id:owner_ref`. */
export function parseApiKeys(spec: string): Map<string, Principal> {
  const keys = new Map<string, Principal>();
  for (const { key, principal } of parseKeySpec(spec)) keys.set(key, principal);
  if (keys.size === 0) throw new ApiKeyConfigError('SCHEDULER_API_KEYS has no entries');
  return keys;
}

/** Where `npm start` keeps its development key (the CLI and the examples read it from there). */
export function devApiKeyFile(dataDir: string): string {
  return join(dataDir, DEV_API_KEY_FILE);
}

/**
 * Development key for `npm start` without SCHEDULER_API_KEYS: made once and kept in the data directory,
 * so it stays the same across restarts (scripts and bookmarks keep working).
 */
export function developmentApiKey(dataDir: string): { spec: string; key: string } {
  const file = devApiKeyFile(dataDir);
  let key: string;
  if (existsSync(file)) key = readFileSync(file, 'utf8').trim();
  else {
    key = `dev_${randomBytes(18).toString('base64url')}`;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
  }
  return { key, spec: `${key}=dev:developer` };
}

/** One configured API key, only ever held as its hash. */
export interface ApiKeyEntry {
  /** `sha256:<64 lowercase hex>` of the key (plaintext entries are hashed when parsed). */
  hash: string;
  principal: Principal;
  /** Where the entry was configured, for error messages, e.g. `SCHEDULER_API_KEY_FILE line 3`; never the key. */
  source: string;
}

function sha256(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The entry for SCHEDULER_API_KEY_FILE that stands for `key`: `sha256:<64 hex>`. An operator can make a
 * new key and its file line without the key reaching shell history (the key goes to stdout, the line to
 * stderr):
 *
 *   node -e "const c=require('node:crypto');const k='sk_'+c.randomBytes(24).toString('base64url');console.log(k);console.error('sha256:'+c.createHash('sha256').update(k).digest('hex')+'=TENANT:OWNER')"
 *
 * or hash an existing key read from stdin:
 *
 *   node -e "process.stdin.once('data',d=>console.log('sha256:'+require('node:crypto').createHash('sha256').update(String(d).trim()).digest('hex')))" < key.txt
 */
export function hashApiKey(key: string): string {
  return `sha256:${sha256(key).toString('hex')}`;
}

const principalKey = (p: Principal) => JSON.stringify([p.tenant_id, p.owner_ref]);

/** Rejects one key hash configured for two different principals (identical repeats are harmless). */
function assertNoConflicts(entries: readonly ApiKeyEntry[]): void {
  const seen = new Map<string, ApiKeyEntry>();
  for (const entry of entries) {
    const earlier = seen.get(entry.hash);
    if (!earlier) seen.set(entry.hash, entry);
    else if (principalKey(earlier.principal) !== principalKey(entry.principal)) {
      throw new ApiKeyConfigError(
        `${entry.source}: the same key is already configured for ${earlier.principal.tenant_id}:${earlier.principal.owner_ref} (${earlier.source}); a key belongs to one tenant and owner`,
      );
    }
  }
}

/**
 * Parses the text of SCHEDULER_API_KEY_FILE: one entry per line, either hashed (production)
 * `sha256:<64 hex>=tenant_id:owner_ref` (see hashApiKey) or plaintext `key=tenant_id:owner_ref` with a key
 * keyWeakness does not refuse. Blank lines and lines starting with `#` are ignored. Errors name the line
 * and never repeat a key. A file without entries gives `[]` (KeyRing.fromConfig decides if that is enough).
 */
export function parseApiKeyFile(text: string, source = 'SCHEDULER_API_KEY_FILE'): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  for (const [index, raw] of text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const where = `${source} line ${index + 1}`;
    const bad = (what: string) => new ApiKeyConfigError(`${where}: ${what}`);
    if (/\s/.test(line))
      throw bad('an entry has no spaces inside (one entry per line, comments on lines of their own)');
    const equals = line.indexOf('=');
    if (equals < 0) throw bad("expected 'sha256:<64 hex>=tenant_id:owner_ref' or 'key=tenant_id:owner_ref'");
    const keyPart = line.slice(0, equals);
    const principalPart = line.slice(equals + 1);
    const colon = principalPart.indexOf(':');
    if (colon <= 0 || colon === principalPart.length - 1)
      throw bad("expected 'tenant_id:owner_ref' after '='");
    const principal = principalOf(principalPart.slice(0, colon), principalPart.slice(colon + 1), where);
    let hash: string;
    if (/^sha256:/i.test(keyPart)) {
      hash = keyPart.toLowerCase();
      if (!HASH_PATTERN.test(hash)) {
        const digits = keyPart.length - 'sha256:'.length;
        throw bad(
          digits === 64
            ? "a hashed key is 'sha256:' and 64 hex digits (0-9, a-f), this has other characters"
            : `a hashed key is 'sha256:' and 64 hex digits, this has ${digits} characters after 'sha256:'`,
        );
      }
    } else if (/^[a-z][a-z0-9-]*:[0-9a-f]{32,}$/i.test(keyPart)) {
      throw bad(
        `unsupported hash '${keyPart.slice(0, keyPart.indexOf(':'))}:'; only sha256 is supported (see hashApiKey)`,
      );
    } else {
      const weakness = keyWeakness(keyPart);
      if (weakness) throw bad(weakness);
      hash = hashApiKey(keyPart);
    }
    entries.push({ hash, principal, source: where });
  }
  assertNoConflicts(entries);
  return entries;
}

/** `Bearer <key>` (scheme case-insensitive) to the key, or null. */
function bearerToken(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^bearer[ \t]+(\S+)$/i.exec(header.trim());
  return match ? match[1]! : null;
}

/**
 * One shared secret a caller sends as `Authorization: Bearer <secret>` (SCHEDULER_METRICS_TOKEN), held only
 * as its SHA-256. Both sides are hashed before the constant-time comparison, so neither the secret's
 * contents nor its length show in the response time.
 */
export class BearerSecret {
  readonly #digest: Buffer;

  constructor(secret: string) {
    this.#digest = sha256(secret);
  }

  /** Whether the `Authorization` header carries this secret. */
  matches(authorizationHeader: string | undefined): boolean {
    const presented = bearerToken(authorizationHeader);
    return presented !== null && timingSafeEqual(sha256(presented), this.#digest);
  }
}

/**
 * The configured API keys, held only as SHA-256 hashes. Immutable: to reload, call KeyRing.fromConfig
 * again (it is cheap) and swap the reference.
 */
export class KeyRing {
  readonly #entries: ReadonlyArray<{ digest: Buffer; principal: Principal }>;
  readonly #principals = new Map<string, Principal>();
  readonly #keysPerTenant = new Map<string, number>();

  constructor(entries: readonly ApiKeyEntry[]) {
    assertNoConflicts(entries);
    const unique = new Map<string, { digest: Buffer; principal: Principal }>();
    for (const entry of entries) {
      if (!HASH_PATTERN.test(entry.hash)) {
        throw new ApiKeyConfigError(
          `${entry.source}: the key hash is not 'sha256:' and 64 lowercase hex digits`,
        );
      }
      const principal = principalOf(entry.principal.tenant_id, entry.principal.owner_ref, entry.source);
      if (unique.has(entry.hash)) continue;
      unique.set(entry.hash, { digest: Buffer.from(entry.hash.slice(7), 'hex'), principal });
      this.#principals.set(principalKey(principal), principal);
      this.#keysPerTenant.set(principal.tenant_id, (this.#keysPerTenant.get(principal.tenant_id) ?? 0) + 1);
    }
    if (unique.size === 0) {
      throw new ApiKeyConfigError(
        'no API keys are configured: set SCHEDULER_API_KEYS or SCHEDULER_API_KEY_FILE',
      );
    }
    this.#entries = [...unique.values()];
  }

  /**
   * Keys from SCHEDULER_API_KEYS (`keys`, the variable's value) and SCHEDULER_API_KEY_FILE (`keyFile`, a
   * path, read now), merged. An empty string counts as unset. Throws ApiKeyConfigError when neither gives
   * an entry, a file cannot be read or parsed, or one key is configured for two principals.
   */
  static fromConfig(config: { keys?: string; keyFile?: string }): KeyRing {
    const entries: ApiKeyEntry[] = [];
    if (config.keys?.trim()) {
      for (const { key, principal, source } of parseKeySpec(config.keys)) {
        entries.push({ hash: hashApiKey(key), principal, source });
      }
    }
    if (config.keyFile) {
      let text: string;
      try {
        text = readFileSync(config.keyFile, 'utf8');
      } catch (err) {
        throw new ApiKeyConfigError(
          `SCHEDULER_API_KEY_FILE ${config.keyFile} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      entries.push(...parseApiKeyFile(text, `SCHEDULER_API_KEY_FILE ${config.keyFile}`));
    }
    return new KeyRing(entries);
  }

  /**
   * The principal whose key the `Authorization: Bearer <key>` header carries, or null. The presented key
   * is hashed and compared with every stored hash in constant time (all of them, no early exit), so
   * neither the key nor which entry matched shows in the response time.
   */
  authenticate(authorizationHeader: string | undefined): Principal | null {
    const key = bearerToken(authorizationHeader);
    if (key === null) return null;
    const digest = sha256(key);
    let found: Principal | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(digest, entry.digest)) found = entry.principal;
    }
    return found;
  }

  /** The distinct tenant/owner pairs that have at least one key, in configuration order. */
  principals(): Principal[] {
    return [...this.#principals.values()].map((p) => ({ ...p }));
  }

  /** Whether this tenant/owner pair still has a key (schedules of an owner whose keys were removed stop). */
  isAuthorized(principal: Principal): boolean {
    return this.#principals.has(principalKey(principal));
  }

  /** For the start-up log: the number of keys per tenant, e.g. `3 API keys (acme: 2, globex: 1)`; never keys. */
  describe(): string {
    const perTenant = [...this.#keysPerTenant.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([tenant, count]) => `${tenant}: ${count}`);
    const total = this.#entries.length;
    return `${total} API key${total === 1 ? '' : 's'} (${perTenant.join(', ')})`;
  }
}
