import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import {
  ApiKeyConfigError,
  ConfigValueError,
  developmentApiKey,
  hashApiKey,
  KeyRing,
  keyWeakness,
  parseApiKeyFile,
  parseApiKeys,
} from '../../src/api/auth.js';
import { tempDir } from '../helpers/servers.js';

// Counts the constant-time comparisons KeyRing.authenticate makes (the real function still runs).
const crypto = vi.hoisted(() => ({ compares: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return {
    ...original,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      crypto.compares++;
      return original.timingSafeEqual(a, b);
    },
  };
});

describe('SCHEDULER_API_KEYS', () => {
  it('maps each key to its tenant and owner', () => {
    const keys = parseApiKeys('k-0123456789abcdefghij=acme:ops, k-fedcba9876543210jihg=globex:billing');
    expect(keys.get('k-0123456789abcdefghij')).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
    expect(keys.get('k-fedcba9876543210jihg')).toEqual({ tenant_id: 'globex', owner_ref: 'billing' });
  });

  it('names the malformed entry', () => {
    expect(() => parseApiKeys('k-0123456789abcdefghij=acme:ops,short=acme:ops')).toThrow(
      /^SCHEDULER_API_KEYS entry 2: a key has at least 22 characters \(128 bits\), this one has 5: make one with/,
    );
    expect(() => parseApiKeys('k-0123456789abcdefghij=acme')).toThrow(/entry 1 is not/);
    expect(() => parseApiKeys(' , ')).toThrow(/no entries/);
  });

  it('refuses a hashed entry, whose hash would otherwise become a usable key', () => {
    expect(() => parseApiKeys(`${hashApiKey('k-0123456789abcdefghij')}=acme:ops`)).toThrow(
      /entry 1 is a hashed key .*SCHEDULER_API_KEY_FILE/,
    );
  });

  it('reports an unusable tenant as ApiKeyConfigError naming the entry', () => {
    const error = (() => {
      try {
        parseApiKeys(`k-0123456789abcdefghij=${'t'.repeat(129)}:ops`);
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ApiKeyConfigError);
    expect((error as Error).message).toMatch(/^SCHEDULER_API_KEYS entry 1: tenant_id: /);
  });

  it('keeps the development key across restarts', () => {
    const dir = tempDir('keys');
    const first = developmentApiKey(dir);
    expect(developmentApiKey(dir)).toEqual(first);
    expect(parseApiKeys(first.spec).get(first.key)).toEqual({ tenant_id: 'dev', owner_ref: 'developer' });
  });
});

describe('hashApiKey', () => {
  it('is sha256: and the hex SHA-256 of the key', () => {
    // FIPS 180-2 test vector for "abc".
    expect(hashApiKey('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

const KEY_A = 'sk_alpha_0123456789abcdef';
const KEY_B = 'sk_bravo_0123456789abcdef';
const KEY_C = 'sk_charlie_0123456789abcd';

describe('SCHEDULER_API_KEY_FILE', () => {
  it('reads hashed and plaintext entries, skipping blank lines and comments', () => {
    const text = [
      '# production keys',
      '',
      `${hashApiKey(KEY_A)}=acme:ops`,
      `   # indented comment`,
      `${hashApiKey(KEY_B).toUpperCase().replace('SHA256:', 'sha256:')}=acme:billing\r`,
      `  ${KEY_C}=globex:team:eu  `,
      '',
    ].join('\n');
    expect(parseApiKeyFile(text)).toEqual([
      {
        hash: hashApiKey(KEY_A),
        principal: { tenant_id: 'acme', owner_ref: 'ops' },
        source: 'SCHEDULER_API_KEY_FILE line 3',
      },
      {
        hash: hashApiKey(KEY_B),
        principal: { tenant_id: 'acme', owner_ref: 'billing' },
        source: 'SCHEDULER_API_KEY_FILE line 5',
      },
      {
        hash: hashApiKey(KEY_C),
        principal: { tenant_id: 'globex', owner_ref: 'team:eu' },
        source: 'SCHEDULER_API_KEY_FILE line 6',
      },
    ]);
    expect(parseApiKeyFile('# nothing yet\n\n')).toEqual([]);
  });

  it.each([
    [
      'no =',
      `# c\n${KEY_A}`,
      /^SCHEDULER_API_KEY_FILE line 2: expected 'sha256:<64 hex>=tenant_id:owner_ref'/,
    ],
    [
      'no owner',
      `\n\n${KEY_A}=acme`,
      /^SCHEDULER_API_KEY_FILE line 3: expected 'tenant_id:owner_ref' after '='/,
    ],
    ['empty owner', `${KEY_A}=acme:`, /^SCHEDULER_API_KEY_FILE line 1: expected 'tenant_id:owner_ref'/],
    ['empty tenant', `${KEY_A}=:ops`, /^SCHEDULER_API_KEY_FILE line 1: expected 'tenant_id:owner_ref'/],
    [
      'short plaintext key',
      'short-key=acme:ops',
      /line 1: a key has at least 22 characters \(128 bits\), this one has 9/,
    ],
    ['63 hex digits', `${hashApiKey(KEY_A).slice(0, -1)}=acme:ops`, /line 1: .*this has 63 characters/],
    ['non-hex digits', `sha256:${'g'.repeat(64)}=acme:ops`, /line 1: .*64 hex digits \(0-9, a-f\)/],
    ['another algorithm', `md5:${'0'.repeat(32)}=acme:ops`, /line 1: unsupported hash 'md5:'/],
    ['spaces inside', `${KEY_A} = acme:ops`, /line 1: an entry has no spaces inside/],
    ['tenant too long', `${KEY_A}=${'t'.repeat(129)}:ops`, /line 1: tenant_id: /],
  ])('names the line and the problem: %s', (_, text, message) => {
    expect(() => parseApiKeyFile(text)).toThrow(ApiKeyConfigError);
    expect(() => parseApiKeyFile(text)).toThrow(message);
  });

  it('never repeats a key in an error', () => {
    expect(() => parseApiKeyFile(`${KEY_A}=acme`)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(KEY_A) }),
    );
  });

  it('refuses one key for two principals, naming both lines, but allows an identical repeat', () => {
    const line = `${hashApiKey(KEY_A)}=acme:ops`;
    expect(parseApiKeyFile(`${line}\n${line}`)).toHaveLength(2);
    expect(() => parseApiKeyFile(`${line}\n\n${KEY_A}=acme:billing`)).toThrow(
      /line 3: the same key is already configured for acme:ops \(SCHEDULER_API_KEY_FILE line 1\)/,
    );
  });
});

describe('KeyRing', () => {
  const ring = () =>
    KeyRing.fromConfig({
      keys: `${KEY_A}=acme:ops`,
      keyFile: writeKeyFile(`# hashed\n${hashApiKey(KEY_B)}=acme:billing\n${KEY_C}=globex:team\n`),
    });

  it('authenticates a Bearer key from either source, hashed or plaintext', () => {
    const keys = ring();
    expect(keys.authenticate(`Bearer ${KEY_A}`)).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
    expect(keys.authenticate(`Bearer ${KEY_B}`)).toEqual({ tenant_id: 'acme', owner_ref: 'billing' });
    expect(keys.authenticate(`Bearer ${KEY_C}`)).toEqual({ tenant_id: 'globex', owner_ref: 'team' });
    expect(keys.authenticate(`bearer ${KEY_A}`)).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
    expect(keys.authenticate(`BEARER   ${KEY_A}  `)).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
  });

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['a wrong key', 'Bearer sk_wrong_0123456789abcdef'],
    ['a prefix of a real key', `Bearer ${KEY_A.slice(0, -1)}`],
    ['a real key with more after it', `Bearer ${KEY_A}x`],
    ['a real key and another word', `Bearer ${KEY_A} extra`],
    ['the hash instead of the key', `Bearer ${hashApiKey(KEY_B)}`],
    ['the Basic scheme', `Basic ${KEY_A}`],
    ['the Token scheme', `Token ${KEY_A}`],
    ['no scheme', KEY_A],
    ['the scheme alone', 'Bearer'],
    ['the scheme glued to the key', `Bearer${KEY_A}`],
  ])('rejects %s', (_, header) => {
    expect(ring().authenticate(header)).toBeNull();
  });

  it('compares with every stored key, not stopping at the one that matches', () => {
    const keys = ring();
    crypto.compares = 0;
    expect(keys.authenticate(`Bearer ${KEY_A}`)).not.toBeNull();
    expect(crypto.compares).toBe(3);
    crypto.compares = 0;
    expect(keys.authenticate('Bearer sk_wrong_0123456789abcdef')).toBeNull();
    expect(crypto.compares).toBe(3);
  });

  it('lists the distinct principals and tells which still have a key', () => {
    const before = KeyRing.fromConfig({
      keys: `${KEY_A}=acme:ops,${KEY_B}=acme:ops,${KEY_C}=globex:team`,
    });
    expect(before.principals()).toEqual([
      { tenant_id: 'acme', owner_ref: 'ops' },
      { tenant_id: 'globex', owner_ref: 'team' },
    ]);
    // The operator removes globex:team's only key and one of acme:ops's two.
    const after = KeyRing.fromConfig({ keys: `${KEY_A}=acme:ops` });
    expect(after.isAuthorized({ tenant_id: 'acme', owner_ref: 'ops' })).toBe(true);
    expect(after.isAuthorized({ tenant_id: 'globex', owner_ref: 'team' })).toBe(false);
    expect(before.isAuthorized({ tenant_id: 'globex', owner_ref: 'team' })).toBe(true);
    expect(after.isAuthorized({ tenant_id: 'acme', owner_ref: 'other' })).toBe(false);
    expect(after.authenticate(`Bearer ${KEY_C}`)).toBeNull();
  });

  it('describes the keys per tenant without showing them', () => {
    const text = ring().describe();
    expect(text).toBe('3 API keys (acme: 2, globex: 1)');
    for (const key of [KEY_A, KEY_B, KEY_C]) expect(text).not.toContain(key);
    expect(KeyRing.fromConfig({ keys: `${KEY_A}=acme:ops,${KEY_A}=acme:ops` }).describe()).toBe(
      '1 API key (acme: 1)',
    );
  });

  it('refuses a configuration without keys, an unreadable file, or one key for two principals', () => {
    expect(() => KeyRing.fromConfig({})).toThrow(/no API keys are configured/);
    expect(() => KeyRing.fromConfig({ keys: ' ', keyFile: writeKeyFile('# empty\n') })).toThrow(
      /no API keys are configured/,
    );
    const missing = join(tempDir('keys'), 'absent');
    expect(() => KeyRing.fromConfig({ keys: `${KEY_A}=acme:ops`, keyFile: missing })).toThrow(
      `SCHEDULER_API_KEY_FILE ${missing} cannot be read: ENOENT`,
    );
    const file = writeKeyFile(`\n${hashApiKey(KEY_A)}=globex:team\n`);
    expect(() => KeyRing.fromConfig({ keys: `${KEY_A}=acme:ops`, keyFile: file })).toThrow(
      `SCHEDULER_API_KEY_FILE ${file} line 2: the same key is already configured for acme:ops (SCHEDULER_API_KEYS entry 1)`,
    );
    expect(() => KeyRing.fromConfig({ keyFile: writeKeyFile('short=acme:ops') })).toThrow(/line 1: /);
  });
});

function writeKeyFile(text: string): string {
  const file = join(tempDir('keys'), 'api-keys');
  writeFileSync(file, text);
  return file;
}

describe('configuration errors', () => {
  it('keeps ApiKeyConfigError a ConfigValueError', () => {
    expect(new ApiKeyConfigError('x')).toBeInstanceOf(ConfigValueError);
    expect(new ApiKeyConfigError('x').name).toBe('ApiKeyConfigError');
  });
});

describe('API key strength (at least 128 bits; security review L3)', () => {
  it.each([
    ['the README and compose example', 'change-me-0123456789', /documentation's example/],
    ['an example key made longer', 'change-me-0123456789abcdefghijklmnop', /documentation's example/],
    ['an example key in capitals', 'CHANGE-ME-0123456789abcdefghijklmnop', /documentation's example/],
    [
      '16 characters (the old minimum)',
      'k-0123456789abcd',
      /at least 22 characters \(128 bits\), this one has 16/,
    ],
    ['21 base64url characters', 'abcdefghijklmnopqrstu', /at least 22 characters/],
    [
      '24 hex digits (96 bits)',
      '0123456789abcdef01234567',
      /hex digits needs at least 32 of them .*\(96 bits\)/,
    ],
    ['31 decimal digits', '1234567890123456789012345678901', /decimal digits needs at least 39/],
    ['24 lower-case letters', 'passwordpasswordpassword', /lower-case letters needs at least 28/],
    ['one character over and over', 'a'.repeat(40), /repeats a few characters \(1 distinct in 40\)/],
    ['two characters in turn', 'a1'.repeat(20), /repeats a few characters \(2 distinct in 40\)/],
  ])('refuses %s', (_what, key, reason) => {
    expect(keyWeakness(key)).toMatch(reason);
    // Configured either way, the error names the entry and never the key.
    for (const attempt of [
      () => parseApiKeys(`${key}=acme:ops`),
      () => parseApiKeyFile(`# keys\n${key}=acme:ops`),
    ]) {
      let message = '';
      try {
        attempt();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiKeyConfigError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/^SCHEDULER_API_KEY(S entry 1|_FILE line 2): /);
      expect(message).not.toContain(key);
    }
  });

  it.each([
    ['22 base64url characters', 'Kx9_fQ2-LmZ4pR7sVb1wYc'],
    ['32 hex digits', '3f6c1e0b9a8d7c2e5f4a1b0c9d8e7f6a'],
    ['a generated sk_ key', `sk_${randomBytes(24).toString('base64url')}`],
    ['a development key', `dev_${randomBytes(18).toString('base64url')}`],
    ['a key of printable characters', 'Tr0ub4dor&3-horse.battery!staple'],
  ])('accepts %s', (_what, key) => {
    expect(keyWeakness(key)).toBeNull();
    expect(parseApiKeys(`${key}=acme:ops`).get(key)).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
  });

  it('accepts every random key the generators make: 22 base64url characters, 32 hex digits, 20 000 of each', () => {
    for (let i = 0; i < 20_000; i++) {
      expect(keyWeakness(randomBytes(17).toString('base64url').slice(0, 22))).toBeNull();
      expect(keyWeakness(randomBytes(16).toString('hex'))).toBeNull();
    }
  });

  it('cannot judge a hashed entry: the hash hides the key', () => {
    expect(parseApiKeyFile(`${hashApiKey('short')}=acme:ops`)).toHaveLength(1);
  });

  it("accepts every key the repository's own tests and scripts configure", () => {
    // The keys of test/ and scripts/ that go into SCHEDULER_API_KEYS, KeyRing.fromConfig or a key file.
    const sources = ['test/unit', 'test/integration', 'test/prod', 'scripts'].flatMap((dir) =>
      readdirSync(join(repoRoot, dir))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => readFileSync(join(repoRoot, dir, name), 'utf8')),
    );
    const keys = new Set(
      sources.flatMap((text) =>
        [...text.matchAll(/'((?:key|sk|race|acme|wide|prod)[-_][A-Za-z0-9_-]{8,})'/g)].map((m) => m[1]!),
      ),
    );
    expect(keys.size).toBeGreaterThan(15);
    for (const key of keys) {
      if (key.startsWith('key-nobody') || key === 'sk_wrong_0123456789abcdef') continue; // presented, never configured
      expect(keyWeakness(key), key).toBeNull();
    }
  });
});

describe('principals in the key configuration (security review L4)', () => {
  const KEY = 'sk_principal_0123456789abcdef';

  it.each([
    ['a tenant with a slash', 'acme/eu:ops', /tenant_id: letters, digits and \. _ ~ - only/],
    ['a tenant with a backslash', 'acme\\:ops', /tenant_id: letters, digits/],
    ['a tenant with a quote', "a'b:ops", /tenant_id: letters, digits/],
    ['a tenant starting with a dot', '.acme:ops', /tenant_id: letters, digits/],
    ['an owner with a control character', 'acme:o\u0007ps', /owner_ref: visible characters only/],
    ['an owner with a bidi override', 'acme:ops\u202e', /owner_ref: visible characters only/],
  ])('refuses %s, naming the entry and never the key', (_what, principal, reason) => {
    for (const [attempt, where] of [
      [() => parseApiKeys(`${KEY}=${principal}`), 'SCHEDULER_API_KEYS entry 1'],
      [() => parseApiKeyFile(`${hashApiKey(KEY)}=${principal}`), 'SCHEDULER_API_KEY_FILE line 1'],
    ] as const) {
      let message = '';
      try {
        attempt();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiKeyConfigError);
        message = (err as Error).message;
      }
      expect(message.startsWith(`${where}: `), message).toBe(true);
      expect(message).toMatch(reason);
      expect(message).not.toContain(KEY);
    }
  });

  it('accepts an owner with / and : (the tenant has neither, so tenant/owner splits at its first /)', () => {
    expect(parseApiKeys(`${KEY}=acme.eu_1~x-y:team/eu:ops`).get(KEY)).toEqual({
      tenant_id: 'acme.eu_1~x-y',
      owner_ref: 'team/eu:ops',
    });
  });
});
