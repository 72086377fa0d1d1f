// A Temporal server (v1.29.1, scripts/toolchain.mjs ensureTemporalServer) locked down as a production one
// is: what deploy/native/temporal-server-secured.yaml needs besides its persistence, shared by the secured
// production-shaped stack (scripts/stack-prod.ts --secured, PostgreSQL) and the test harness
// (test/helpers/secured-temporal.ts, SQLite in memory):
//   - mTLS on the frontend: a CA, a certificate of it for localhost/127.0.0.1 that the frontend presents, and
//     a client certificate of the same CA (the frontend requires one); made with the openssl CLI;
//   - the internal frontend and the server's own services behind internode mTLS of a CA of their own;
//   - JWT authorization (the server's default claim mapper and authorizer): an RS256 signing key, the JWKS
//     the server reads its public half from (served over HTTP on 127.0.0.1 by the calling process) and
//     tokens signed with it (node:crypto), `permissions` claim `<namespace>:<read|write|worker|admin>` or
//     `temporal-system:admin`;
//   - the environment that renders the template's TLS and JWT blocks, the server's command line, and the
//     client connection options (TLS, server name, token).
// Nothing of Temporal's security is mocked: the server itself refuses what it refuses.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ConnectionOptions } from '@temporalio/client';

/** deploy/native/temporal-server-secured.yaml, as the server's --env. */
export const SECURED_CONFIG_ENV = 'temporal-server-secured';
/** The scope of cluster-wide permissions in the default claim mapper (`temporal-system:admin`). */
export const SYSTEM_SCOPE = 'temporal-system';
/** What the frontend's certificate is issued for (and what a client verifies). */
export const SERVER_NAME = 'localhost';
/**
 * The services a secured server runs: the internal frontend is where the server's own worker service calls
 * (it needs no token there, so only internode mTLS reaches it).
 */
export const SECURED_SERVICES = ['frontend', 'internal-frontend', 'history', 'matching', 'worker'] as const;

// ---------------------------------------------------------------------------------------------------
// Certificates (openssl CLI)

export interface CertificateAuthority {
  cert: string;
  key: string;
}

export interface CertifiedKey {
  cert: string;
  key: string;
}

/** A new P-256 key, unencrypted (`openssl req` arguments). */
const NEW_EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer; message: string };
    if (e.code === 'ENOENT')
      throw new Error(
        'openssl is not installed: the secured Temporal server needs certificates made with it (apt-get install openssl)',
      );
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString() ?? e.message}`);
  }
}

/** A self-signed CA (P-256, valid `days`, default one) in `dir` as `<name>.pem` / `<name>.key`. */
export function makeCertificateAuthority(dir: string, name: string, days = 1): CertificateAuthority {
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  openssl(
    [
      ...['req', '-x509', '-new', ...NEW_EC_KEY, '-keyout', key, '-out', cert, '-days', String(days)],
      ...['-subj', `/CN=durable-scheduler ${name}`, '-addext', 'basicConstraints=critical,CA:TRUE'],
      ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ],
    dir,
  );
  chmodSync(key, 0o600);
  return { cert, key };
}

/**
 * A certificate of `ca` for `commonName` (P-256, valid `days`, default one) in `dir` as `<name>.pem` /
 * `<name>.key`: `usage` serverAuth and/or clientAuth; a server certificate names localhost and 127.0.0.1.
 */
export function issueCertificate(
  ca: CertificateAuthority,
  dir: string,
  name: string,
  commonName: string,
  usage: Array<'serverAuth' | 'clientAuth'>,
  days = 1,
): CertifiedKey {
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(
    ext,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      `extendedKeyUsage=${usage.join(',')}`,
      ...(usage.includes('serverAuth') ? [`subjectAltName=DNS:${SERVER_NAME},IP:127.0.0.1`] : []),
      '',
    ].join('\n'),
  );
  openssl(['req', '-new', ...NEW_EC_KEY, '-keyout', key, '-out', csr, '-subj', `/CN=${commonName}`], dir);
  openssl(
    [
      ...['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-days', String(days)],
      ...['-extfile', ext, '-set_serial', `0x${randomBytes(8).toString('hex')}`, '-out', cert],
    ],
    dir,
  );
  chmodSync(key, 0o600);
  return { cert, key };
}

/** Every certificate a secured server and one client identity need (see the top of this file). */
export interface SecurityMaterial {
  /** The CA of the frontend's certificate and of the client certificates it accepts. */
  ca: CertificateAuthority;
  /** What the frontend presents. */
  frontend: CertifiedKey;
  /** A client certificate of `ca` (the scheduler's processes, an operator's CLI). */
  client: CertifiedKey;
  /** The internal frontend's CA and the certificate the server's own services present to each other. */
  internodeCa: CertificateAuthority;
  internode: CertifiedKey;
}

/** Makes the CAs and certificates in `dir` (replacing any there), valid `days` (default one). */
export function makeSecurityMaterial(dir: string, days = 1): SecurityMaterial {
  const ca = makeCertificateAuthority(dir, 'ca', days);
  const frontend = issueCertificate(ca, dir, 'frontend', SERVER_NAME, ['serverAuth'], days);
  const client = issueCertificate(ca, dir, 'client', 'durable-scheduler', ['clientAuth'], days);
  const internodeCa = makeCertificateAuthority(dir, 'internode-ca', days);
  const internode = issueCertificate(
    internodeCa,
    dir,
    'internode',
    SERVER_NAME,
    ['serverAuth', 'clientAuth'],
    days,
  );
  return { ca, frontend, client, internodeCa, internode };
}

// ---------------------------------------------------------------------------------------------------
// JWTs and the JWKS the server reads

export interface TokenOptions {
  /** The `permissions` claim: `<namespace>:<read|write|worker|admin>`, `temporal-system:admin`, … */
  permissions: string[];
  /** Seconds from now to `exp` (negative: already expired). Default one hour. */
  expiresInS?: number;
  subject?: string;
  /** Sign with a key the JWKS does not hold (same `kid`): a forged token. */
  forged?: boolean;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** An RS256 signing key (new for each issuer) and the JWKS that publishes it. */
export class TokenIssuer {
  readonly kid = `ds-${randomBytes(6).toString('hex')}`;
  private readonly key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly forger = generateKeyPairSync('rsa', { modulusLength: 2048 });

  jwks(): { keys: object[] } {
    return {
      keys: [{ ...this.key.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' }],
    };
  }

  /** An RS256 JWT as the default claim mapper reads it: `kid` header, `sub`, `permissions`, `iat`, `exp`. */
  token(options: TokenOptions): string {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: this.kid }));
    const payload = b64url(
      JSON.stringify({
        sub: options.subject ?? 'durable-scheduler-test',
        permissions: options.permissions,
        iat: now,
        exp: now + (options.expiresInS ?? 3600),
      }),
    );
    const signer: KeyObject = (options.forged ? this.forger : this.key).privateKey;
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), signer);
    return `${header}.${payload}.${b64url(signature)}`;
  }
}

export interface JwksServer {
  url: string;
  /** How many times the JWKS was fetched. */
  requests(): number;
  close(): Promise<void>;
}

/** Serves `issuer`'s JWKS at http://127.0.0.1:<free port>/.well-known/jwks.json. */
export async function serveJwks(issuer: TokenIssuer): Promise<JwksServer> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(issuer.jwks()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a key file as a secret volume swaps it: whole, by rename (never a half-written file), mode 0600. */
export function writeKeyFile(file: string, token: string): void {
  writeFileSync(`${file}.next`, `${token}\n`, { mode: 0o600 });
  renameSync(`${file}.next`, file);
}

// ---------------------------------------------------------------------------------------------------
// The server: the template's security settings and its command line

/**
 * The environment deploy/native/temporal-server-secured.yaml reads for its TLS and JWT blocks (the
 * persistence, ports and dynamic config come from the caller). `jwksRefresh`: how often the server re-reads
 * the JWKS (default 1m).
 */
export function securedServerEnv(
  material: SecurityMaterial,
  jwksUrl: string,
  jwksRefresh = '1m',
): Record<string, string> {
  return {
    TEMPORAL_TLS_FRONTEND_CERT: material.frontend.cert,
    TEMPORAL_TLS_FRONTEND_KEY: material.frontend.key,
    TEMPORAL_TLS_CLIENT1_CA_CERT: material.ca.cert,
    TEMPORAL_TLS_SERVER_CERT: material.internode.cert,
    TEMPORAL_TLS_SERVER_KEY: material.internode.key,
    TEMPORAL_TLS_SERVER_CA_CERT: material.internodeCa.cert,
    TEMPORAL_TLS_INTERNODE_SERVER_NAME: SERVER_NAME,
    TEMPORAL_JWT_KEY_SOURCE1: jwksUrl,
    TEMPORAL_JWT_KEY_REFRESH: jwksRefresh,
  };
}

/**
 * The server's arguments for the secured template in `configDir`. No --allow-no-auth: the config names an
 * authorizer, and the server is started as production starts it.
 */
export function securedServerArgs(configDir: string): string[] {
  return [
    ...['--root', '/', '--config', configDir, '--env', SECURED_CONFIG_ENV, 'start'],
    ...SECURED_SERVICES.flatMap((s) => ['--service', s]),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Clients

/**
 * Options for `Connection.connect` to the secured frontend at `address`: TLS with `ca` and (unless
 * `clientCert` is null) the client certificate, and `apiKey` as the token (none when null). The files are
 * read now.
 */
export function securedConnectionOptions(
  address: string,
  files: { ca: string; clientCert: string | null; clientKey: string | null },
  apiKey: string | null,
): ConnectionOptions {
  return {
    address,
    tls: {
      serverNameOverride: SERVER_NAME,
      serverRootCACertificate: readFileSync(files.ca),
      ...(files.clientCert && files.clientKey
        ? { clientCertPair: { crt: readFileSync(files.clientCert), key: readFileSync(files.clientKey) } }
        : {}),
    },
    ...(apiKey !== null ? { apiKey } : {}),
    connectTimeout: 5000,
  };
}

/**
 * What an operator sets on the scheduler (or the temporal CLI, which reads the same names) to reach the
 * secured frontend: Temporal's client environment, plus the scheduler's key file.
 */
export function securedClientEnv(
  address: string,
  namespace: string,
  files: { ca: string; clientCert: string; clientKey: string },
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca,
    TEMPORAL_TLS_CLIENT_CERT_PATH: files.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: files.clientKey,
    // The certificate names localhost and 127.0.0.1; with the name set, Node does not send an IP as SNI.
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
  };
}
