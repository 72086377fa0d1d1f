// A real Temporal server (v1.29.1, built by scripts/toolchain.mjs ensureTemporalServer) locked down as a
// production one is, on loopback and in-memory SQLite, for the tests that prove the product connects to it
// (issue 38): deploy/native/temporal-server-secured.yaml rendered by the server with
//   - mTLS on the frontend: a certificate of the harness's CA for localhost/127.0.0.1, a client certificate
//     of the same CA required (openssl CLI makes the CA and the certificates);
//   - JWT authorization: the server's default claim mapper and authorizer, its keys from a JWKS this
//     harness serves over HTTP on 127.0.0.1; `token()` signs RS256 tokens (node:crypto) with a `kid`;
//   - the server's own worker service on the internal frontend, behind internode mTLS of a CA of its own.
// The certificates, the JWKS, the tokens and the template's security settings are scripts/secured-temporal.ts,
// which the secured production-shaped stack (scripts/stack-prod.ts --secured, PostgreSQL) uses too; this file
// adds the SQLite persistence, free ports, a test's dynamic config and a bare TLS handshake.
// Nothing of Temporal's security is mocked: the server itself refuses what it refuses.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  makeSecurityMaterial,
  SERVER_NAME,
  SYSTEM_SCOPE,
  securedConnectionOptions,
  securedServerArgs,
  securedServerEnv,
  serveJwks,
  TokenIssuer,
  type TokenOptions,
} from '../../scripts/secured-temporal.js';
import { DYNAMIC_CONFIG_FILE, NATIVE_DIR, type Ports, Service } from '../../scripts/stack-prod.js';
import { findTemporalServer } from '../../scripts/toolchain.mjs';
import { assertPortFree } from '../../src/runtime/ports.js';

export {
  type CertificateAuthority,
  type CertifiedKey,
  issueCertificate,
  makeCertificateAuthority,
  SECURED_CONFIG_ENV,
  SERVER_NAME,
  SYSTEM_SCOPE,
  type TokenOptions,
} from '../../scripts/secured-temporal.js';

// ---------------------------------------------------------------------------------------------------
// A bare TLS handshake (what a gRPC client does first), to tell a refusal at the handshake from any other

export type HandshakeResult =
  | { accepted: true; alpn: string | false }
  | { accepted: false; code: string; message: string };

/**
 * Connects to `address` with TLS as a gRPC client would (ALPN h2, server name localhost), trusting `ca` and
 * presenting `cert`/`key` when given. Accepted: the server finished the handshake and sent its first HTTP/2
 * frame. Refused: the TLS error (with TLS 1.3 a server refuses the client's certificate with an alert after
 * the client considers the handshake done, so the verdict waits for the first bytes).
 */
export function tlsHandshake(
  address: string,
  options: { ca: string; cert?: string; key?: string },
): Promise<HandshakeResult> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port,
      servername: SERVER_NAME,
      ALPNProtocols: ['h2'],
      ca: readFileSync(options.ca),
      ...(options.cert && options.key
        ? { cert: readFileSync(options.cert), key: readFileSync(options.key) }
        : {}),
    });
    const finish = (result: HandshakeResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ accepted: false, code: 'TIMEOUT', message: 'no answer in 5 s' }),
      5000,
    );
    socket.once('data', () => finish({ accepted: true, alpn: socket.alpnProtocol ?? false }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      finish({ accepted: false, code: err.code ?? 'ERROR', message: err.message }),
    );
    socket.once('close', () =>
      finish({ accepted: false, code: 'CLOSED', message: 'closed without an answer' }),
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// Ports

/** The server's own ports: the production-shaped stack's, without its HTTP, API and PostgreSQL ones. */
type ServerPorts = Pick<
  Ports,
  | 'frontend'
  | 'frontendMembership'
  | 'internalFrontend'
  | 'internalFrontendMembership'
  | 'history'
  | 'historyMembership'
  | 'matching'
  | 'matchingMembership'
  | 'worker'
  | 'workerMembership'
>;

/**
 * Ten consecutive ports free now, below 32768 (out of the kernel's ephemeral range, where an outgoing
 * connection could take one before the server binds it; the PostgreSQL stack keeps its membership ports
 * there too). Random steps of 10 so that two test files rarely pick the same block.
 */
async function freeServerPorts(): Promise<ServerPorts> {
  for (let attempt = 0; ; attempt++) {
    const base = 20_000 + 10 * Math.floor(Math.random() * 1200);
    const names = [
      'frontend',
      'frontendMembership',
      'internalFrontend',
      'internalFrontendMembership',
      'history',
      'historyMembership',
      'matching',
      'matchingMembership',
      'worker',
      'workerMembership',
    ] as const;
    const ports = Object.fromEntries(names.map((n, i) => [n, base + i])) as unknown as ServerPorts;
    try {
      for (const port of Object.values(ports)) await assertPortFree(port, '127.0.0.1', 'port');
      return ports;
    } catch (err) {
      if (attempt >= 20) throw err;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The server

export interface SecuredTemporal {
  /** The frontend, host:port on 127.0.0.1 (TLS, client certificate and token required). */
  address: string;
  /** The internal frontend (internode mTLS; every caller is system admin there). */
  internalFrontendAddress: string;
  /** The test namespace, registered and serving. */
  namespace: string;
  files: {
    /** The CA of the frontend's certificate and of the client certificates it accepts. */
    ca: string;
    clientCert: string;
    clientKey: string;
    /** The internal frontend's CA and a certificate of it (what the server's own services present). */
    internodeCa: string;
    internodeCert: string;
    internodeKey: string;
  };
  dir: string;
  logFile: string;
  service: Service;
  token(options: TokenOptions): string;
  /** A token with `temporal-system:admin` (an hour). */
  adminToken(): string;
  /** How many times the server fetched the JWKS. */
  jwksRequests(): number;
  /**
   * Options for `Connection.connect`: TLS with the CA and (unless `clientCert: false`) the client
   * certificate, and `apiKey` as the token (none when null).
   */
  connectionOptions(apiKey: string | null, tls?: { clientCert?: boolean; ca?: string }): ConnectionOptions;
  adminConnectionOptions(): ConnectionOptions;
  /** Registers a namespace with the admin token and resolves once a call on it is served. */
  createNamespace(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface SecuredTemporalOptions {
  /** Where certificates, the rendered dynamic config and the server's log go. */
  dir: string;
  namespace?: string;
  /** Dynamic config on top of deploy/native/dynamicconfig.yaml. */
  dynamicConfig?: Record<string, unknown>;
  /** How often the server re-reads the JWKS (its config's jwtKeyProvider.refreshInterval). Default 1m. */
  jwksRefresh?: string;
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  abort?: () => string | null,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const aborted = abort?.();
    if (aborted) throw new Error(aborted);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await sleep(250);
  }
}

/** The server binary that `npm test` builds (scripts/bootstrap.mjs --temporal-server); a setup error if missing. */
export function temporalServerPath(): string {
  const found = findTemporalServer();
  if (!found)
    throw new Error(
      'the Temporal server is missing: run `npm test` or `node scripts/bootstrap.mjs --temporal-server` first (it builds it with Go)',
    );
  return found.server;
}

export async function startSecuredTemporal(options: SecuredTemporalOptions): Promise<SecuredTemporal> {
  const server = temporalServerPath();
  const dir = options.dir;
  const certs = join(dir, 'certs');
  mkdirSync(certs, { recursive: true });
  const namespace = options.namespace ?? 'secured';
  const timeoutMs = options.timeoutMs ?? 120_000;

  const material = makeSecurityMaterial(certs);

  const issuer = new TokenIssuer();
  const jwks = await serveJwks(issuer);

  // The production dynamic config, plus what a test needs on top: a namespace registered by the test is
  // served within a second (the frontend's namespace cache refreshes every 10 s by default).
  const dynamicConfig = {
    ...(parseYaml(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Record<string, unknown>),
    'system.namespaceCacheRefreshInterval': [{ value: '1s' }],
    ...Object.fromEntries(Object.entries(options.dynamicConfig ?? {}).map(([k, v]) => [k, [{ value: v }]])),
  };
  const dynamicConfigFile = join(dir, 'dynamicconfig.yaml');
  writeFileSync(dynamicConfigFile, stringifyYaml(dynamicConfig));
  const validated = (() => {
    try {
      return execFileSync(server, ['validate-dynamic-config', dynamicConfigFile], { encoding: 'utf8' });
    } catch (err) {
      return `${(err as { stdout?: string }).stdout ?? ''}\n  error: ${(err as Error).message}`;
    }
  })();
  if (/^\s+(error|warning):/m.test(validated))
    throw new Error(`${dynamicConfigFile} is not valid:\n${validated}`);

  const ports = await freeServerPorts();
  const env: Record<string, string> = {
    LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
    DB: 'sqlite',
    SQLITE_DATABASE: `secured-${randomBytes(4).toString('hex')}`,
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    INTERNAL_FRONTEND_GRPC_PORT: String(ports.internalFrontend),
    INTERNAL_FRONTEND_MEMBERSHIP_PORT: String(ports.internalFrontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    ...securedServerEnv(material, jwks.url, options.jwksRefresh ?? '1m'),
    DYNAMIC_CONFIG_FILE_PATH: dynamicConfigFile,
  };
  const logFile = join(dir, 'temporal-server.log');
  const service = new Service(
    'temporal-server-secured',
    server,
    securedServerArgs(NATIVE_DIR),
    { ...process.env, ...env },
    logFile,
  );
  const address = `127.0.0.1:${ports.frontend}`;
  const files = {
    ca: material.ca.cert,
    clientCert: material.client.cert,
    clientKey: material.client.key,
    internodeCa: material.internodeCa.cert,
    internodeCert: material.internode.cert,
    internodeKey: material.internode.key,
  };
  const token = (o: TokenOptions) => issuer.token(o);
  const adminToken = () => token({ permissions: [`${SYSTEM_SCOPE}:admin`], subject: 'test-admin' });
  const connectionOptions = (
    apiKey: string | null,
    tls: { clientCert?: boolean; ca?: string } = {},
  ): ConnectionOptions =>
    securedConnectionOptions(
      address,
      {
        ca: tls.ca ?? files.ca,
        clientCert: tls.clientCert === false ? null : files.clientCert,
        clientKey: tls.clientCert === false ? null : files.clientKey,
      },
      apiKey,
    );
  const adminConnectionOptions = () => connectionOptions(adminToken());
  const exited = () =>
    service.running
      ? null
      : `the secured Temporal server exited; see ${logFile}:\n${service.output().slice(-3000)}`;

  const withAdmin = async <T>(fn: (c: Connection) => Promise<T>): Promise<T> => {
    const connection = await Connection.connect(adminConnectionOptions());
    try {
      return await fn(connection);
    } finally {
      await connection.close();
    }
  };
  const createNamespace = async (name: string) => {
    await until(
      `namespace ${name} to be registered`,
      () =>
        withAdmin(async (c) => {
          try {
            await c.workflowService.registerNamespace({
              namespace: name,
              workflowExecutionRetentionPeriod: msToTs('1d'),
            });
          } catch (err) {
            if ((err as { code?: number }).code !== 6) throw err; // ALREADY_EXISTS: a retry after a timeout
          }
          return true;
        }),
      timeoutMs,
      exited,
    );
    await until(
      `namespace ${name} to serve`,
      () =>
        withAdmin(async (c) => {
          await c.workflowService.listWorkflowExecutions({ namespace: name, pageSize: 1 });
          return true;
        }),
      timeoutMs,
      exited,
    );
  };

  const stop = async () => {
    await service.stop('SIGTERM', 10_000);
    await jwks.close();
  };
  try {
    await until(
      `the secured Temporal server at ${address}`,
      () =>
        withAdmin(async (c) => {
          await c.workflowService.getSystemInfo({});
          return true;
        }),
      timeoutMs,
      exited,
    );
    await createNamespace(namespace);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    internalFrontendAddress: `127.0.0.1:${ports.internalFrontend}`,
    namespace,
    files,
    dir,
    logFile,
    service,
    token,
    adminToken,
    jwksRequests: jwks.requests,
    connectionOptions,
    adminConnectionOptions,
    createNamespace,
    stop,
  };
}
