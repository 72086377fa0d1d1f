// `npm run stack:prod`: the topology of docker-compose.yml, run natively (no Docker engine needed):
// PostgreSQL (Debian's packages), the Temporal server v1.29.1 built from the Go module proxy with its
// schema set up by temporal-sql-tool, two scheduler worker processes and one API process.
//
//   npm run stack:prod [-- --dir <state dir>] [-- --port-base <n>] [-- --secured]
//
// --secured: the same topology with the server locked down as a production one is
// (deploy/native/temporal-server-secured.yaml on PostgreSQL; scripts/secured-temporal.ts): the frontend
// requires TLS with a client certificate of the stack's CA, and authorizes every call from a JWT (default
// claim mapper and authorizer, keys from a JWKS this script serves on 127.0.0.1). The namespace and the
// scheduler's search attributes are created with an admin token; the scheduler's processes get Temporal's
// client TLS variables and a key file holding a `<namespace>:write` token, re-issued by this script every
// 15 minutes (the processes re-read it), as an operator's secret rotation would. Certificates (valid 30 days)
// and the signing key are made anew at every start, in <state dir>/secured/, with a temporal.env an operator
// sources to point the temporal CLI at the stack. Its default state dir is another (stack-prod-secured).
//
// Installs or builds what is missing (PostgreSQL through apt-get when run as root; the server and
// temporal-sql-tool with Go into the user cache, like the CLI in scripts/toolchain.mjs), prints where
// everything is, and stops everything on Ctrl-C. Like the `restart: unless-stopped` of the compose file, a
// worker or API process that dies is started again. The state (database, logs) stays in the state dir,
// so a second run picks up the schedules of the first.
//
// The same functions start the stack for the tests in test/prod/ (npm run stack:prod:test).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { registerSearchAttributes } from '../src/runtime/namespace.js';
import { assertPortFree } from '../src/runtime/ports.js';
import {
  makeSecurityMaterial,
  SERVER_NAME,
  type SecurityMaterial,
  SYSTEM_SCOPE,
  securedClientEnv,
  securedConnectionOptions,
  securedServerArgs,
  securedServerEnv,
  serveJwks,
  TokenIssuer,
  type TokenOptions,
  writeKeyFile,
} from './secured-temporal.js';
import {
  cacheDir,
  ensureTemporalServer,
  repoRoot,
  TEMPORAL_SERVER_VERSION,
  ToolchainError,
} from './toolchain.mjs';

/** Configuration shared with docker-compose.yml (test/unit/compose.test.ts keeps the two in step). */
export const NATIVE_DIR = join(repoRoot, 'deploy', 'native');
export const TEMPORAL_CONFIG_ENV = 'temporal-server'; // deploy/native/temporal-server.yaml
export const DYNAMIC_CONFIG_FILE = join(NATIVE_DIR, 'dynamicconfig.yaml');
export const DB_PLUGIN = 'postgres12';
export const DB_USER = 'temporal';
export const DB_PASSWORD = 'temporal';
export const NAMESPACE = 'default';
/** What the auto-setup image gives its default namespace (DEFAULT_NAMESPACE_RETENTION). */
const NAMESPACE_RETENTION = '24h';
/** Scheduler worker processes (the compose file's `replicas`). */
export const WORKERS = 2;

type Log = (line: string) => void;

export interface Ports {
  postgres: number;
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  /** The internal frontend (secured mode only: the server's own worker service calls it, with internode mTLS). */
  internalFrontend: number;
  internalFrontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  api: number;
  workerMetrics: number[];
}

/**
 * Fixed ports around `base` (default 17000: frontend 17233, API 17080, PostgreSQL 17432). Keep `base`
 * at most 31000: the server stores membership ports in a SMALLINT column (see freePorts).
 */
export function portsFrom(base: number): Ports {
  return {
    postgres: base + 432,
    frontend: base + 233,
    frontendHttp: base + 243,
    frontendMembership: base + 933,
    internalFrontend: base + 236,
    internalFrontendMembership: base + 936,
    history: base + 234,
    historyMembership: base + 934,
    matching: base + 235,
    matchingMembership: base + 935,
    worker: base + 239,
    workerMembership: base + 939,
    api: base + 80,
    workerMetrics: Array.from({ length: WORKERS }, (_, i) => base + 464 + i),
  };
}

/**
 * Ports around a random base that are free now (tests). Below 32768 on purpose: the server stores
 * membership ports in a SMALLINT column (cluster_membership.rpc_port), so an ephemeral port from the
 * kernel's range makes it fail at start-up ("value … is out of range for type smallint").
 */
export async function freePorts(): Promise<Ports> {
  for (let attempt = 0; ; attempt++) {
    const ports = portsFrom(20_000 + 1000 * Math.floor(Math.random() * 12));
    const all = Object.values(ports).flat();
    try {
      for (const port of all) await assertPortFree(port, '127.0.0.1', 'port');
      return ports;
    } catch (err) {
      if (attempt >= 20) throw err;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Processes

/** A child process of the stack whose output goes to a log file (and is kept for `waitFor`). */
export class Service {
  child!: ChildProcess;
  exit!: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private out = '';
  private listeners = new Set<() => void>();
  /** Set by stop(): an exit after it is not a crash. */
  stopping = false;

  constructor(
    readonly name: string,
    readonly command: string,
    readonly args: string[],
    readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
  ) {
    this.start();
  }

  /** (Re)starts the process; the log file is appended to. */
  start(): this {
    this.out = '';
    this.stopping = false;
    appendFileSync(
      this.logFile,
      `--- ${new Date().toISOString()} start ${this.command} ${this.args.join(' ')}\n`,
    );
    // Its own process group: a Ctrl-C in the terminal reaches only the stack script, which stops the
    // processes in order (the product, then the server, then PostgreSQL).
    const child = spawn(this.command, this.args, {
      env: this.env,
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const onData = (chunk: Buffer) => {
      appendFileSync(this.logFile, chunk);
      this.out = (this.out + chunk.toString()).slice(-200_000);
      for (const l of this.listeners) l();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    this.exit = new Promise((resolveExit) =>
      child.once('exit', (code, signal) => {
        appendFileSync(this.logFile, `--- ${new Date().toISOString()} exit code=${code} signal=${signal}\n`);
        resolveExit({ code, signal });
        for (const l of this.listeners) l();
      }),
    );
    this.child = child;
    return this;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.out;
  }

  /** Resolves when the output since the last start matches; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<void> {
    return new Promise<void>((resolveWait, reject) => {
      const timer = setTimeout(
        () => done(new Error(`${this.name}: timed out waiting for ${pattern}; see ${this.logFile}`)),
        timeoutMs,
      );
      const check = () => {
        if (pattern.test(this.out)) done();
        else if (!this.running)
          done(
            new Error(
              `${this.name} exited before ${pattern}; see ${this.logFile}:\n${this.out.slice(-2000)}`,
            ),
          );
      };
      const done = (err?: Error) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        err ? reject(err) : resolveWait();
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<void> {
    this.stopping = true;
    if (!this.running) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  /** SIGKILL, as a crash or an OOM kill would: nothing is flushed. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL');
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(command, args, { env, encoding: 'utf8' });
  return {
    ok: r.status === 0,
    output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
    await sleep(500);
  }
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL

/** The newest /usr/lib/postgresql/<major>/bin with initdb, or null. */
export function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? join(root, majors[0]!, 'bin') : null;
}

const isRoot = () => process.getuid?.() === 0;

/** PostgreSQL's binaries; installs Debian's `postgresql` package when missing and running as root. */
export function ensurePostgres(log: Log): string {
  const found = findPostgresBin();
  if (found) return found;
  if (!isRoot())
    throw new ToolchainError(
      'PostgreSQL is not installed: run `sudo apt-get install -y postgresql`, then rerun',
    );
  log('Installing PostgreSQL (apt-get install -y postgresql)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = run('apt-get', ['install', '-y', 'postgresql'], env);
  if (!r.ok) {
    run('apt-get', ['update'], env);
    r = run('apt-get', ['install', '-y', 'postgresql'], env);
  }
  const bin = findPostgresBin();
  if (!r.ok || !bin)
    throw new ToolchainError(`apt-get install -y postgresql failed:\n${r.output.slice(-2000)}`);
  return bin;
}

/**
 * PostgreSQL refuses to run as root: then it runs as Debian's `postgres` user, in a data directory
 * that user can reach (root's home is private), keyed by the state dir.
 */
function postgresLayout(stackDir: string): { dataDir: string; asUser: string[] } {
  if (!isRoot()) return { dataDir: join(stackDir, 'postgresql'), asUser: [] };
  const key = createHash('sha256').update(resolve(stackDir)).digest('hex').slice(0, 12);
  return {
    dataDir: join('/var/tmp', `durable-scheduler-postgresql-${key}`),
    asUser: ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'],
  };
}

function asPostgresUser(layout: { asUser: string[] }, command: string, args: string[]): [string, string[]] {
  return layout.asUser.length
    ? [layout.asUser[0]!, [...layout.asUser.slice(1), command, ...args]]
    : [command, args];
}

export interface Postgres {
  service: Service;
  dataDir: string;
  port: number;
  /** Starts it again on the same data (after a stop or a crash). */
  restart(): Promise<void>;
}

/** Initialises the cluster on first use (superuser temporal/temporal, as in docker-compose.yml) and starts it. */
export async function startPostgres(opts: {
  bin: string;
  stackDir: string;
  port: number;
  log: Log;
}): Promise<Postgres> {
  const layout = postgresLayout(opts.stackDir);
  const { dataDir } = layout;
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    opts.log(`Initialising PostgreSQL in ${dataDir}…`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const pwFile = `${dataDir}.pw`;
    writeFileSync(pwFile, `${DB_PASSWORD}\n`, { mode: 0o600 });
    if (isRoot()) {
      const pg = run('id', ['-u', 'postgres']);
      const gid = run('id', ['-g', 'postgres']);
      if (!pg.ok)
        throw new ToolchainError("the `postgres` user is missing: reinstall Debian's postgresql package");
      chownSync(dataDir, Number(pg.output.trim()), Number(gid.output.trim()));
      chownSync(pwFile, Number(pg.output.trim()), Number(gid.output.trim()));
    }
    const [cmd, args] = asPostgresUser(layout, join(opts.bin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      DB_USER,
      `--pwfile=${pwFile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-instructions',
    ]);
    const r = run(cmd, args);
    if (!r.ok) throw new Error(`initdb failed:\n${r.output.slice(-3000)}`);
  }
  await assertPortFree(opts.port, '127.0.0.1', 'the PostgreSQL port (--port-base)');
  const [cmd, args] = asPostgresUser(layout, join(opts.bin, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(opts.port),
    '-k',
    dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=200',
  ]);
  const service = new Service(
    'postgresql',
    cmd,
    args,
    process.env,
    join(opts.stackDir, 'logs', 'postgresql.log'),
  );
  const ready = async () => {
    await until(
      'PostgreSQL to accept connections',
      async () => {
        if (!service.running) throw new Error(`PostgreSQL exited; see ${service.logFile}`);
        return run(join(opts.bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(opts.port), '-U', DB_USER])
          .ok
          ? true
          : undefined;
      },
      60_000,
    );
  };
  await ready();
  return {
    service,
    dataDir,
    port: opts.port,
    async restart() {
      service.start();
      await ready();
    },
  };
}

/**
 * Creates both databases and brings their schemas to the version the server expects, the way the
 * auto-setup image does it (create, setup-schema -v 0.0, update-schema); every step is idempotent.
 */
export function setupSchema(opts: { sqlTool: string; port: number; log: Log }): void {
  const env = { ...process.env, SQL_PASSWORD: DB_PASSWORD };
  const base = ['--plugin', DB_PLUGIN, '--ep', '127.0.0.1', '-p', String(opts.port), '-u', DB_USER];
  for (const [db, schema] of [
    ['temporal', 'postgresql/v12/temporal'],
    ['temporal_visibility', 'postgresql/v12/visibility'],
  ] as const) {
    const created = run(opts.sqlTool, [...base, '--db', db, 'create-database'], env);
    if (!created.ok && !/already exists/.test(created.output))
      throw new Error(`temporal-sql-tool create-database ${db} failed:\n${created.output.slice(-3000)}`);
    for (const step of [
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schema],
    ]) {
      const r = run(opts.sqlTool, [...base, '--db', db, ...step], env);
      if (!r.ok) throw new Error(`temporal-sql-tool ${step[0]} ${db} failed:\n${r.output.slice(-3000)}`);
    }
  }
  opts.log("Schema: databases temporal and temporal_visibility are at the server's version");
}

// ---------------------------------------------------------------------------------------------------
// Temporal server

/** The environment deploy/native/temporal-server.yaml reads: the auto-setup image's names. */
export function temporalServerEnv(ports: Ports): Record<string, string> {
  return {
    DB: DB_PLUGIN,
    DB_PORT: String(ports.postgres),
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER: DB_USER,
    POSTGRES_PWD: DB_PASSWORD,
    DBNAME: 'temporal',
    VISIBILITY_DBNAME: 'temporal_visibility',
    NUM_HISTORY_SHARDS: '4',
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: DYNAMIC_CONFIG_FILE,
    LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
  };
}

// ---------------------------------------------------------------------------------------------------
// Secured mode (--secured): certificates, the JWKS, the tokens

/** How long a token this stack issues lives, and how often it re-issues the key files. */
const TOKEN_LIFETIME_S = 3600;
const TOKEN_ROTATION_MS = 15 * 60_000;
/** The stack's certificates, made anew at every start. */
const CERTIFICATE_DAYS = 30;

/** What a client of the secured stack needs, and the identities it hands out. */
export interface SecuredAccess {
  /** Where the certificates, the key files and temporal.env are (<state dir>/secured). */
  dir: string;
  material: SecurityMaterial;
  files: {
    /** The CA of the frontend's certificate and of the client certificates it accepts. */
    ca: string;
    clientCert: string;
    clientKey: string;
    /** The scheduler's processes' SCHEDULER_TEMPORAL_API_KEY_FILE: a `<namespace>:write` token. */
    schedulerKeyFile: string;
    /** A `temporal-system:admin` token, for an operator's `temporal operator …`. */
    adminKeyFile: string;
    /** `export` lines of Temporal's client variables for the temporal CLI (with the scheduler's token). */
    envFile: string;
  };
  jwksUrl: string;
  token(options: TokenOptions): string;
  adminToken(): string;
  /**
   * Options for `Connection.connect` to the frontend at `address`: TLS with the stack's CA and (unless
   * `clientCert: false`) the client certificate, `apiKey` as the token (none when null).
   */
  connectionOptions(
    address: string,
    apiKey: string | null,
    tls?: { clientCert?: boolean },
  ): ConnectionOptions;
  /** Stops re-issuing the key files and serving the JWKS. */
  stop(): Promise<void>;
}

/**
 * Makes the certificates in <stackDir>/secured (replacing those of a previous run), a signing key, serves its
 * JWKS on 127.0.0.1 and writes the key files, re-issued every 15 minutes.
 */
export async function prepareSecuredAccess(opts: {
  stackDir: string;
  namespace: string;
  address: string;
  log: Log;
}): Promise<SecuredAccess> {
  const dir = join(opts.stackDir, 'secured');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const material = makeSecurityMaterial(dir, CERTIFICATE_DAYS);
  const issuer = new TokenIssuer();
  const jwks = await serveJwks(issuer);
  const files = {
    ca: material.ca.cert,
    clientCert: material.client.cert,
    clientKey: material.client.key,
    schedulerKeyFile: join(dir, 'scheduler-api-key'),
    adminKeyFile: join(dir, 'admin-api-key'),
    envFile: join(dir, 'temporal.env'),
  };
  const token = (o: TokenOptions) => issuer.token(o);
  const adminToken = () =>
    token({ permissions: [`${SYSTEM_SCOPE}:admin`], subject: 'stack-admin', expiresInS: TOKEN_LIFETIME_S });
  const issue = () => {
    writeKeyFile(
      files.schedulerKeyFile,
      token({
        permissions: [`${opts.namespace}:write`],
        subject: 'durable-scheduler',
        expiresInS: TOKEN_LIFETIME_S,
      }),
    );
    writeKeyFile(files.adminKeyFile, adminToken());
  };
  issue();
  opts.log(`Secured: certificates and key files in ${dir}; JWKS at ${jwks.url}`);
  const rotation = setInterval(issue, TOKEN_ROTATION_MS);
  rotation.unref();
  const client = securedClientEnv(opts.address, opts.namespace, files);
  writeFileSync(
    files.envFile,
    [
      '# Temporal client settings for the secured stack (scripts/stack-prod.ts --secured): source this file, then',
      "# e.g. `temporal workflow list`. The token is the scheduler's (namespace writer), read when sourced:",
      `# source again after a rotation (every ${TOKEN_ROTATION_MS / 60_000} min; each lives ${TOKEN_LIFETIME_S / 60} min). Operator commands`,
      `# need the admin token: --api-key "$(cat ${files.adminKeyFile})".`,
      ...Object.entries(client).map(([k, v]) => `export ${k}=${v}`),
      `export TEMPORAL_API_KEY="$(cat ${files.schedulerKeyFile})"`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    dir,
    material,
    files,
    jwksUrl: jwks.url,
    token,
    adminToken,
    connectionOptions: (address, apiKey, tls = {}) =>
      securedConnectionOptions(
        address,
        {
          ca: files.ca,
          clientCert: tls.clientCert === false ? null : files.clientCert,
          clientKey: tls.clientCert === false ? null : files.clientKey,
        },
        apiKey,
      ),
    async stop() {
      clearInterval(rotation);
      await jwks.close();
    },
  };
}

export interface TemporalServer {
  service: Service;
  address: string;
  /** null: plaintext and open (--allow-no-auth); otherwise mTLS + JWT (--secured). */
  security: SecuredAccess | null;
  /** Options for `Connection.connect` with every permission: plaintext, or the admin token and certificate. */
  adminConnectionOptions(): ConnectionOptions;
  /** Starts it again (after a stop or a crash) and waits until it serves the namespace. */
  restart(): Promise<void>;
}

async function serving(connect: () => ConnectionOptions, timeoutMs: number): Promise<void> {
  const { address } = connect();
  await until(
    `the Temporal server at ${address}`,
    async () => {
      const c = await Connection.connect({ ...connect(), connectTimeout: 2000 });
      try {
        await c.workflowService.getSystemInfo({});
        return true;
      } finally {
        await c.close();
      }
    },
    timeoutMs,
  );
}

/**
 * Registers the namespace (as auto-setup does) and the scheduler's search attributes, and waits until both
 * work. On a secured server with the admin token: the scheduler's own identity may not create them.
 */
async function prepareNamespace(connect: () => ConnectionOptions, log: Log): Promise<void> {
  const connection = await Connection.connect(connect());
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace: NAMESPACE,
        workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION),
      });
      log(`Namespace ${NAMESPACE} registered`);
    } catch (err) {
      if ((err as { code?: number }).code !== 6) throw err; // ALREADY_EXISTS
    }
    // The frontend learns of a new namespace on its cache's next refresh (~10 s).
    await until(
      'the namespace and search attributes',
      async () => {
        await registerSearchAttributes(connection, NAMESPACE);
        await connection.workflowService.listWorkflowExecutions({
          namespace: NAMESPACE,
          pageSize: 1,
          query: "SchedulerTenantId = 'stack-check'",
        });
        return true;
      },
      120_000,
    );
  } finally {
    await connection.close();
  }
}

export async function startTemporalServer(opts: {
  server: string;
  ports: Ports;
  stackDir: string;
  log: Log;
  /** Secured mode: deploy/native/temporal-server-secured.yaml with these certificates and this JWKS. */
  security?: SecuredAccess | null;
}): Promise<TemporalServer> {
  const security = opts.security ?? null;
  const { ports } = opts;
  for (const port of [
    ports.frontend,
    ports.history,
    ports.matching,
    ports.worker,
    ...(security ? [ports.internalFrontend] : []),
  ])
    await assertPortFree(port, '127.0.0.1', 'the Temporal server ports (--port-base)');
  // The server ignores unknown or mistyped dynamic config keys (it only logs them): refuse them here.
  const checked = run(opts.server, ['validate-dynamic-config', DYNAMIC_CONFIG_FILE]);
  if (!checked.ok || /^\s+(error|warning):/m.test(checked.output))
    throw new Error(`${DYNAMIC_CONFIG_FILE} is not valid:\n${checked.output}`);
  const address = `127.0.0.1:${ports.frontend}`;
  const service = security
    ? new Service(
        'temporal-server',
        opts.server,
        securedServerArgs(NATIVE_DIR),
        {
          ...process.env,
          ...temporalServerEnv(ports),
          INTERNAL_FRONTEND_GRPC_PORT: String(ports.internalFrontend),
          INTERNAL_FRONTEND_MEMBERSHIP_PORT: String(ports.internalFrontendMembership),
          ...securedServerEnv(security.material, security.jwksUrl),
        },
        join(opts.stackDir, 'logs', 'temporal-server.log'),
      )
    : new Service(
        'temporal-server',
        opts.server,
        ['--root', '/', '--config', NATIVE_DIR, '--env', TEMPORAL_CONFIG_ENV, '--allow-no-auth', 'start'],
        { ...process.env, ...temporalServerEnv(ports) },
        join(opts.stackDir, 'logs', 'temporal-server.log'),
      );
  const adminConnectionOptions = (): ConnectionOptions =>
    security ? security.connectionOptions(address, security.adminToken()) : { address };
  const up = async () => {
    await Promise.race([
      serving(adminConnectionOptions, 120_000),
      service.exit.then(() => {
        throw new Error(
          `the Temporal server exited; see ${service.logFile}:\n${service.output().slice(-3000)}`,
        );
      }),
    ]);
  };
  await up();
  await prepareNamespace(adminConnectionOptions, opts.log);
  return {
    service,
    address,
    security,
    adminConnectionOptions,
    async restart() {
      service.start();
      await up();
      await prepareNamespace(adminConnectionOptions, opts.log);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The scheduler's processes (src/main.ts with SCHEDULER_ROLE, as the compose file's services)

export type SchedulerRole = 'worker' | 'api';

export class SchedulerProcess extends Service {
  constructor(
    name: string,
    readonly role: SchedulerRole,
    env: NodeJS.ProcessEnv,
    logFile: string,
  ) {
    super(name, process.execPath, ['--import', 'tsx', join(repoRoot, 'src', 'main.ts')], env, logFile);
  }

  /** Waits for main.ts's `ready` line. */
  async ready(timeoutMs = 180_000): Promise<this> {
    await this.waitFor(/\[scheduler\] ready/, timeoutMs);
    return this;
  }

  /** Starts it again and waits until it is ready. */
  async restart(timeoutMs?: number): Promise<this> {
    this.start();
    return await this.ready(timeoutMs);
  }
}

export function startScheduler(opts: {
  name: string;
  role: SchedulerRole;
  address: string;
  stackDir: string;
  env: Record<string, string>;
}): SchedulerProcess {
  return new SchedulerProcess(
    opts.name,
    opts.role,
    {
      ...process.env,
      TEMPORAL_ADDRESS: opts.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      SCHEDULER_ROLE: opts.role,
      SCHEDULER_DATA_DIR: join(opts.stackDir, 'scheduler'),
      ...opts.env,
    },
    join(opts.stackDir, 'logs', `${opts.name}.log`),
  );
}

// ---------------------------------------------------------------------------------------------------
// The whole stack

export interface Stack {
  dir: string;
  ports: Ports;
  postgres: Postgres;
  temporal: TemporalServer;
  workers: SchedulerProcess[];
  api: SchedulerProcess;
  apiUrl: string;
  /** Secured mode: the certificates, key files and tokens (also `temporal.security`); null otherwise. */
  security: SecuredAccess | null;
  /** `key=tenant_id:owner_ref` entries the API accepts (SCHEDULER_API_KEYS). */
  apiKeys: string;
  /** Stops everything, the product first, PostgreSQL last. */
  stop(): Promise<void>;
}

export interface StackOptions {
  dir: string;
  ports: Ports;
  log?: Log;
  /** SCHEDULER_API_KEYS for the API; a random one for tenant `stack` by default. */
  apiKeys?: string;
  /** Extra environment for every scheduler process (e.g. SCHEDULER_TENANTS_FILE instead of the open one). */
  schedulerEnv?: Record<string, string>;
  /**
   * The server locked down (deploy/native/temporal-server-secured.yaml on PostgreSQL): mTLS with a client
   * certificate, JWT authorization; the scheduler's processes connect with Temporal's TLS variables and a
   * `<namespace>:write` token in SCHEDULER_TEMPORAL_API_KEY_FILE. See the top of this file.
   */
  secured?: boolean;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const log = opts.log ?? ((line: string) => console.log(`[stack] ${line}`));
  const dir = resolve(opts.dir);
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const pgBin = ensurePostgres(log);
  const { server, sqlTool } = await ensureTemporalServer({ log });

  const started: Service[] = [];
  let security: SecuredAccess | null = null;
  const stopAll = async () => {
    for (const s of [...started].reverse()) await s.stop(s.name === 'postgresql' ? 'SIGINT' : 'SIGTERM');
    await security?.stop();
  };
  try {
    const postgres = await startPostgres({ bin: pgBin, stackDir: dir, port: opts.ports.postgres, log });
    started.push(postgres.service);
    setupSchema({ sqlTool, port: opts.ports.postgres, log });
    const address = `127.0.0.1:${opts.ports.frontend}`;
    if (opts.secured)
      security = await prepareSecuredAccess({ stackDir: dir, namespace: NAMESPACE, address, log });
    const temporal = await startTemporalServer({ server, ports: opts.ports, stackDir: dir, log, security });
    started.push(temporal.service);

    const apiKeys = opts.apiKeys ?? `${randomBytes(18).toString('base64url')}=stack:ops`;
    // The stack's tenants reach every target, local sinks included (its tests run their sinks on 127.0.0.1),
    // and may fire every second; a deployment lists what each tenant may reach and consume
    // (deploy/tenants.example.json).
    const tenantsFile = join(dir, 'tenants.json');
    const tenants = [...new Set(apiKeys.split(',').map((entry) => entry.split('=')[1]?.split(':')[0]))];
    const open = {
      job_task_queues: ['*'],
      job_types: ['*'],
      signal_workflow_ids: ['*'],
      event_sinks: [{ url: '*', private: true }],
      // Its tests fire every 2 s (worker churn) and 5 s (server restart); the default min_interval_s is 10.
      quotas: { min_interval_s: 1 },
    };
    writeFileSync(
      tenantsFile,
      JSON.stringify({ tenants: Object.fromEntries(tenants.filter(Boolean).map((t) => [t, open])) }),
    );
    const schedulerEnv = {
      SCHEDULER_TENANTS_FILE: tenantsFile,
      // Secured: Temporal's client variables and a namespace writer's token, which may not create the search
      // attributes (the admin created them above): the start only checks them, as production does.
      ...(security
        ? {
            ...securedClientEnv(temporal.address, NAMESPACE, security.files),
            SCHEDULER_TEMPORAL_API_KEY_FILE: security.files.schedulerKeyFile,
            SCHEDULER_SEARCH_ATTRIBUTES: 'check',
          }
        : {}),
      ...opts.schedulerEnv,
    };
    const workers = Array.from({ length: WORKERS }, (_, i) =>
      startScheduler({
        name: `scheduler-worker-${i + 1}`,
        role: 'worker',
        address: temporal.address,
        stackDir: dir,
        env: { SCHEDULER_METRICS_PORT: String(opts.ports.workerMetrics[i]), ...schedulerEnv },
      }),
    );
    started.push(...workers);
    const api = startScheduler({
      name: 'scheduler-api',
      role: 'api',
      address: temporal.address,
      stackDir: dir,
      env: { SCHEDULER_API_PORT: String(opts.ports.api), SCHEDULER_API_KEYS: apiKeys, ...schedulerEnv },
    });
    started.push(api);
    await Promise.all([...workers, api].map((p) => p.ready()));
    return {
      dir,
      ports: opts.ports,
      postgres,
      temporal,
      workers,
      api,
      apiUrl: `http://127.0.0.1:${opts.ports.api}/v1`,
      apiKeys,
      security,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// npm run stack:prod

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  // `npm run stack:prod -- --secured`; `npm run stack:prod --secured` (no `--`) reaches the script as npm's
  // config, in the environment.
  const secured = process.argv.includes('--secured') || process.env.npm_config_secured === 'true';
  const dir = resolve(
    argValue('--dir') ??
      process.env.STACK_DIR ??
      join(cacheDir(), secured ? 'stack-prod-secured' : 'stack-prod'),
  );
  const base = Number(argValue('--port-base') ?? 17000);
  if (!Number.isInteger(base) || base < 1024 || base > 31_000) {
    console.error(
      'error: --port-base must be an integer from 1024 to 31000 (membership ports must fit a SMALLINT)',
    );
    process.exit(2);
  }
  const ports = portsFrom(base);
  const log = (line: string) => console.log(`[stack] ${line}`);
  let stack: Stack;
  try {
    stack = await startStack({
      dir,
      ports,
      log,
      secured,
      ...(process.env.SCHEDULER_API_KEYS ? { apiKeys: process.env.SCHEDULER_API_KEYS } : {}),
    });
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  // restart: unless-stopped
  for (const p of [...stack.workers, stack.api]) {
    const watch = () =>
      void p.exit.then(async ({ code, signal }) => {
        if (stopping) return;
        log(`${p.name} exited (code ${code}, signal ${signal}); restarting it`);
        await sleep(1000);
        if (stopping) return;
        p.start();
        watch();
      });
    watch();
  }
  const key = stack.apiKeys.split(',')[0]!.split('=')[0];
  log(`State:        ${dir} (logs in ${join(dir, 'logs')})`);
  log(`PostgreSQL:   127.0.0.1:${ports.postgres} (data ${stack.postgres.dataDir}, user ${DB_USER})`);
  log(
    `Temporal:     ${stack.temporal.address} (server ${TEMPORAL_SERVER_VERSION}, namespace ${NAMESPACE}, config ${NATIVE_DIR})`,
  );
  const security = stack.security;
  if (security) {
    const { files } = security;
    log(
      `  secured:    TLS with a client certificate required (server name ${SERVER_NAME}), JWT authorization (keys from ${security.jwksUrl})`,
    );
    log(`  CA:         ${files.ca}`);
    log(
      `  client:     ${files.clientCert} (key ${files.clientKey}; valid ${CERTIFICATE_DAYS} days, made anew at each start)`,
    );
    log(
      `  token file: ${files.schedulerKeyFile} (${NAMESPACE}:write, the scheduler's SCHEDULER_TEMPORAL_API_KEY_FILE; re-issued every ${TOKEN_ROTATION_MS / 60_000} min, each valid ${TOKEN_LIFETIME_S / 60} min)`,
    );
    log(`  admin:      ${files.adminKeyFile} (${SYSTEM_SCOPE}:admin, for \`temporal operator …\`)`);
    log(`  e.g. . ${files.envFile} && temporal workflow list`);
  }
  for (const [i, w] of stack.workers.entries())
    log(`Worker ${i + 1}:     pid ${w.pid}, metrics http://127.0.0.1:${ports.workerMetrics[i]}/metrics`);
  log(`HTTP API:     ${stack.apiUrl} (pid ${stack.api.pid}; docs: /docs)`);
  log(`API key:      ${key}`);
  log(`  e.g. curl -H 'Authorization: Bearer ${key}' ${stack.apiUrl}/schedules`);
  log('ready; Ctrl-C stops everything');
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    void stack.stop().then(() => {
      log('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
