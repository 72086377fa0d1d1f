// The settings every Temporal connection takes (issue 38), from the variables and TOML profiles Temporal's
// SDKs and CLI share: what an operator gives, what the connection gets, and each slip refused with the
// variable it concerns. (That a secured server accepts these settings, and refuses less, is
// test/integration/secured-temporal.test.ts's part; the certificates here are real, made with openssl.)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueCertificate, makeCertificateAuthority } from '../../scripts/secured-temporal.js';
import {
  API_KEY_FILE_VARIABLE,
  ConnectionSettingsError,
  connectionOptions,
  describeConnection,
  isLoopbackAddress,
  loadConnectionSettings,
} from '../../src/runtime/temporal-connection.js';

const dir = mkdtempSync(join(tmpdir(), 'ds-connection-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const authority = makeCertificateAuthority(dir, 'ca');
const client = issueCertificate(authority, dir, 'client', 'durable-scheduler', ['clientAuth']);
const other = issueCertificate(authority, dir, 'other', 'someone else', ['clientAuth']);
const CERT = client.cert;
const KEY = client.key;
const CA = authority.cert;
const bytes = (path: string) => readFileSync(path, 'utf8');
/** No config file of the user's: HOME is an empty directory. */
const base = { HOME: mkdtempSync(join(tmpdir(), 'ds-home-')) };
const load = (env: Record<string, string>) => loadConnectionSettings({ ...base, ...env });
const refusal = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConnectionSettingsError) return { variable: err.variable, reason: err.reason };
    throw err;
  }
  throw new Error('no refusal');
};

describe('Temporal connection settings', () => {
  it('nothing given: plaintext, no credentials, namespace default, no address (the embedded dev server)', () => {
    const s = load({});
    expect(s).toMatchObject({
      address: undefined,
      namespace: 'default',
      tls: null,
      apiKey: null,
      metadata: {},
    });
    expect(describeConnection(s)).toBe('plaintext, no credentials');
  });

  it('mTLS from files: the certificate pair, the CA and the server name reach the connection', () => {
    const s = load({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'payments',
      TEMPORAL_TLS_CLIENT_CERT_PATH: CERT,
      TEMPORAL_TLS_CLIENT_KEY_PATH: KEY,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: CA,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    const options = connectionOptions(s, s.address!);
    expect(options.address).toBe('temporal.internal:7233');
    expect(s.namespace).toBe('payments');
    expect(options.tls?.clientCertPair?.crt.toString()).toBe(bytes(CERT));
    expect(options.tls?.clientCertPair?.key.toString()).toBe(bytes(KEY));
    expect(options.tls?.serverRootCACertificate?.toString()).toBe(bytes(CA));
    expect(options.tls?.serverNameOverride).toBe('frontend.temporal.internal');
    expect(options.apiKey).toBeUndefined();
    expect(describeConnection(s)).toMatch(/mTLS/);
  });

  it('an API key turns TLS on by itself, as Temporal Cloud needs, and never shows in the description', () => {
    const s = load({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'secret-key-value' });
    const options = connectionOptions(s, s.address!);
    expect(options.apiKey).toBe('secret-key-value');
    expect(options.tls).toEqual({});
    expect(describeConnection(s)).not.toContain('secret-key-value');
  });

  it(`an API key by file (${API_KEY_FILE_VARIABLE}): trimmed, the file named for rotation, the key never described`, () => {
    const keyFile = file('api-key', 'file-key-value\n');
    const s = load({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', [API_KEY_FILE_VARIABLE]: keyFile });
    expect(s.apiKey).toEqual({ value: 'file-key-value', file: keyFile });
    expect(s.tls).not.toBeNull();
    expect(describeConnection(s)).toContain(keyFile);
    expect(describeConnection(s)).not.toContain('file-key-value');
  });

  it('a TOML profile chosen by TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE; variables override it', () => {
    const config = file(
      'temporal.toml',
      [
        '[profile.prod]',
        'address = "prod.temporal.internal:7233"',
        'namespace = "prod"',
        '[profile.prod.tls]',
        `client_cert_path = "${CERT}"`,
        `client_key_path = "${KEY}"`,
        '[profile.prod.grpc_meta]',
        'x-team = "billing"',
      ].join('\n'),
    );
    const s = load({ TEMPORAL_CONFIG_FILE: config, TEMPORAL_PROFILE: 'prod' });
    expect(s).toMatchObject({
      address: 'prod.temporal.internal:7233',
      namespace: 'prod',
      metadata: { 'x-team': 'billing' },
    });
    expect(s.tls?.clientCertPair?.key.toString()).toBe(bytes(KEY));
    expect(
      load({ TEMPORAL_CONFIG_FILE: config, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'other' }).namespace,
    ).toBe('other');
  });

  it.each([
    [
      { TEMPORAL_TLS_CLIENT_CERT_PATH: CERT },
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      /certificate is given without its key/,
    ],
    [
      { TEMPORAL_TLS_CLIENT_KEY_PATH: KEY },
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      /key is given without its certificate/,
    ],
    [
      { TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: KEY },
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      /cannot read .*missing\.pem \(ENOENT\)/,
    ],
    // A rotation that left garbage, or a key of another certificate: named here, not by the TLS library later
    // as an unreachable server.
    [
      {
        TEMPORAL_TLS_CLIENT_CERT_PATH: file('garbage.pem', 'not a certificate\n'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: KEY,
      },
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      /holds no PEM certificate/,
    ],
    [
      {
        TEMPORAL_TLS_CLIENT_CERT_PATH: CERT,
        TEMPORAL_TLS_CLIENT_KEY_PATH: file('garbage.key', 'not a key\n'),
      },
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      /holds no private key that can be read/,
    ],
    [
      { TEMPORAL_TLS_CLIENT_CERT_PATH: CERT, TEMPORAL_TLS_CLIENT_KEY_PATH: other.key },
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      /is not the key of the client certificate \(TEMPORAL_TLS_CLIENT_CERT_PATH\)/,
    ],
    [
      {
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: file(
          'cut.pem',
          `${bytes(CA).split('\n').slice(0, 4).join('\n')}\n-----END CERTIFICATE-----\n`,
        ),
      },
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      /holds a certificate that cannot be read/,
    ],
    [
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('empty.pem', '') },
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      /is empty/,
    ],
    [
      { TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: CA },
      'TEMPORAL_TLS',
      /TLS is turned off while/,
    ],
    [
      { TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' },
      'TEMPORAL_TLS',
      /sent in plaintext to temporal\.internal:7233/,
    ],
    [
      { TEMPORAL_API_KEY: 'k', [API_KEY_FILE_VARIABLE]: file('k2', 'k2') },
      API_KEY_FILE_VARIABLE,
      /give one of them/,
    ],
    [{ [API_KEY_FILE_VARIABLE]: join(dir, 'no-key') }, API_KEY_FILE_VARIABLE, /cannot read .*no-key/],
    [{ [API_KEY_FILE_VARIABLE]: file('blank', '\n') }, API_KEY_FILE_VARIABLE, /is empty/],
    [{ TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') }, 'TEMPORAL_CONFIG_FILE', /cannot read .*none\.toml/],
    [
      { TEMPORAL_CONFIG_FILE: file('p.toml', '[profile.a]\naddress = "x:1"'), TEMPORAL_PROFILE: 'b' },
      'TEMPORAL_PROFILE',
      /no profile "b"/,
    ],
    [
      { TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' },
      'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
      /always verifies/,
    ],
  ])('refused: %o names %s', (env, variable, reason) => {
    const r = refusal(env as Record<string, string>);
    expect(r.variable).toBe(variable);
    expect(r.reason).toMatch(reason);
  });

  it('a key over plaintext is allowed on loopback only (a local server or a sidecar proxy)', () => {
    expect(
      load({ TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }).tls,
    ).toBeNull();
    expect(isLoopbackAddress('localhost:7233')).toBe(true);
    expect(isLoopbackAddress('[::1]:7233')).toBe(true);
    expect(isLoopbackAddress('10.0.0.5:7233')).toBe(false);
    expect(isLoopbackAddress('temporal:7233')).toBe(false);
  });
});
