// docker-compose.yml cannot be started here (no Docker engine), so it is checked two ways offline:
// against the Compose Specification's JSON schema (vendored: test/fixtures/compose-spec/README.md), and
// against the native production stack (scripts/stack-prod.ts, deploy/native/) that runs the same
// topology for real: same server version, database plugin, credentials, namespace, dynamic config,
// process roles and environment names. Its overlay docker-compose.secured.yml (the scheduler against a
// secured Temporal, credentials as compose secrets) and the Dockerfile both files build are checked
// against the schema and the product: the variables it reads, the settings it accepts, no credential
// in the image or the environment.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse, parseDocument } from 'yaml';
import {
  DB_PASSWORD,
  DB_PLUGIN,
  DB_USER,
  DYNAMIC_CONFIG_FILE,
  NAMESPACE,
  NATIVE_DIR,
  portsFrom,
  temporalServerEnv,
  WORKERS,
} from '../../scripts/stack-prod.js';
import { repoRoot, TEMPORAL_SERVER_VERSION } from '../../scripts/toolchain.mjs';
import { EnvironmentSchema, loadEnvironment } from '../../src/config.js';
import { loadConnectionSettings } from '../../src/runtime/temporal-connection.js';

interface Service {
  image?: string;
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number };
  depends_on?: unknown;
  secrets?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  secrets?: Record<string, { file?: string; environment?: string }>;
}

const schema = JSON.parse(
  readFileSync(join(repoRoot, 'test', 'fixtures', 'compose-spec', 'compose-spec.json'), 'utf8'),
) as Record<string, unknown>;
const composeText = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText) as ComposeFile;
const serverTemplate = readFileSync(join(NATIVE_DIR, 'temporal-server.yaml'), 'utf8');

function validator() {
  // The schema names its meta-schema by an https URL that Ajv does not know under that name; it is
  // draft-07, which Ajv implements.
  const body = { ...schema };
  delete body.$schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  return ajv.compile(body);
}

/** The environment variables deploy/native/temporal-server.yaml reads (`env "NAME"`). */
const templateReads = new Set([...serverTemplate.matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]!));

const env = (service: string) => compose.services[service]?.environment ?? {};

// docker-compose.secured.yml. `!reset` is Compose's merge tag (Compose 2.24 and later): the key is empty in
// the merged project. The yaml package leaves a tag it does not know on the node and warns: the tags are
// read from the document, the values as plain YAML.
const securedText = readFileSync(join(repoRoot, 'docker-compose.secured.yml'), 'utf8');
const securedDocument = parseDocument(securedText);
const secured = securedDocument.toJS() as ComposeFile;
const SCHEDULER_SERVICES = ['scheduler-worker', 'scheduler-api'];
/** A scheduler service's environment with the overlay merged over the base, as Compose merges it. */
const mergedEnv = (service: string) => ({
  ...env(service),
  ...(secured.services[service]?.environment ?? {}),
});

/** The TEMPORAL_* variables @temporalio/envconfig reads (its own source says which). */
function envconfigVariables(): string[] {
  const lib = dirname(createRequire(import.meta.url).resolve('@temporalio/envconfig'));
  return readdirSync(lib)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) =>
      [...readFileSync(join(lib, f), 'utf8').matchAll(/'(TEMPORAL_[A-Z0-9_]+)'/g)].map((m) => m[1]!),
    );
}
const productVariables = new Set([...Object.keys(EnvironmentSchema.shape), ...envconfigVariables()]);
/** Variables whose value is a credential: never written in a compose file or the image. */
const CREDENTIAL_VALUES = [
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'SCHEDULER_CURSOR_SECRET',
  'SCHEDULER_METRICS_TOKEN',
];
/** The Temporal connection's variables that name a file, and the Temporal API key's. */
const CONNECTION_FILES = [
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'SCHEDULER_TEMPORAL_API_KEY_FILE',
];

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const dockerLines = dockerfile.split('\n');

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    const validate = validator();
    const ok = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check catches a misspelt key and a list given as a string (the validator is not vacuous)', () => {
    const validate = validator();
    const misspelt = parse(composeText) as ComposeFile & Record<string, unknown>;
    (misspelt.services.temporal as Record<string, unknown>).enviroment = { DB: 'postgres12' };
    expect(validate(misspelt)).toBe(false);
    const wrongType = parse(composeText) as ComposeFile;
    wrongType.services.temporal!.volumes = './deploy/native:/etc/temporal/config' as unknown as string[];
    expect(validate(wrongType)).toBe(false);
  });

  it('runs the Temporal server version the native stack builds (the one the dev server embeds)', () => {
    expect(compose.services.temporal!.image).toBe(
      `temporalio/auto-setup:${TEMPORAL_SERVER_VERSION.replace(/^v/, '')}`,
    );
  });

  it('configures the server as the native stack does: plugin, credentials, namespace, dynamic config', () => {
    const temporal = env('temporal');
    expect(temporal.DB).toBe(DB_PLUGIN);
    expect(temporal.POSTGRES_USER).toBe(DB_USER);
    expect(temporal.POSTGRES_PWD).toBe(DB_PASSWORD);
    expect(env('postgresql').POSTGRES_USER).toBe(DB_USER);
    expect(env('postgresql').POSTGRES_PASSWORD).toBe(DB_PASSWORD);
    expect(temporal.DEFAULT_NAMESPACE).toBe(NAMESPACE);
    // The same dynamic config file: the compose file mounts the native one where it points the server.
    const mount = compose.services.temporal!.volumes?.find((v) => v.includes('dynamicconfig'));
    const [hostPath, containerPath] = mount!.split(':');
    expect(join(repoRoot, hostPath!)).toBe(DYNAMIC_CONFIG_FILE);
    expect(temporal.DYNAMIC_CONFIG_FILE_PATH).toBe(containerPath);
  });

  it("names the server's settings as the native config template reads them", () => {
    const nativeEnv = temporalServerEnv(portsFrom(17000));
    // Every variable the native stack sets is one its template reads…
    for (const name of Object.keys(nativeEnv)) expect(templateReads, name).toContain(name);
    // …and every server setting of the compose file is one of them (DEFAULT_NAMESPACE: the image's
    // set-up script registers it; the native stack registers NAMESPACE itself).
    for (const name of Object.keys(env('temporal'))) {
      if (name === 'DEFAULT_NAMESPACE') continue;
      expect(Object.keys(nativeEnv), name).toContain(name);
    }
  });

  it('runs the scheduler as the native stack does: two worker processes and one API process', () => {
    const worker = compose.services['scheduler-worker']!;
    const _api = compose.services['scheduler-api']!;
    expect(worker.deploy?.replicas).toBe(WORKERS);
    expect(env('scheduler-worker').SCHEDULER_ROLE).toBe('worker');
    expect(env('scheduler-api').SCHEDULER_ROLE).toBe('api');
    for (const service of ['scheduler-worker', 'scheduler-api']) {
      expect(env(service).TEMPORAL_NAMESPACE).toBe(NAMESPACE);
      // Only variables the product reads (src/config.ts).
      for (const name of Object.keys(env(service)))
        expect(Object.keys(EnvironmentSchema.shape), `${service} ${name}`).toContain(name);
    }
  });

  it('publishes every port on 127.0.0.1 only: Temporal, its Web UI and the API have no TLS here', () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => [name, String(port)] as const),
    );
    expect(published.map(([name]) => name).sort()).toEqual(['scheduler-api', 'temporal', 'temporal-ui']);
    for (const [name, port] of published) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    // The file says what a real deployment adds instead.
    for (const measure of ['mTLS', 'authorizer', 'secret store']) expect(composeText).toContain(measure);
  });

  it('shows no API key to copy: the example key of earlier versions is refused by the API', () => {
    expect(composeText).not.toMatch(/change-me/);
  });
});

describe('docker-compose.secured.yml', () => {
  it("is valid against the Compose Specification schema, and resets only the scheduler services' depends_on", () => {
    const validate = validator();
    const ok = validate(secured);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(securedDocument.errors).toEqual([]);
    // The one tag it uses, where it is used: the two scheduler services start without the local server.
    expect(securedDocument.warnings.map((w) => w.message.split(' at ')[0])).toEqual(
      SCHEDULER_SERVICES.map(() => 'Unresolved tag: !reset'),
    );
    for (const service of SCHEDULER_SERVICES) {
      const node = securedDocument.getIn(['services', service, 'depends_on'], true) as { tag?: string };
      expect(node.tag, service).toBe('!reset');
      expect(secured.services[service]!.depends_on, service).toEqual([]);
    }
  });

  it('adds only Temporal connection settings, the same to both scheduler services, each a variable the product reads', () => {
    expect(Object.keys(secured.services).sort()).toEqual([...SCHEDULER_SERVICES].sort());
    const [worker, api] = SCHEDULER_SERVICES.map((s) => secured.services[s]!);
    expect(api!.environment).toEqual(worker!.environment);
    expect(api!.secrets).toEqual(worker!.secrets);
    for (const name of Object.keys(worker!.environment ?? {})) {
      expect(productVariables.has(name), `${name} is read by nothing`).toBe(true);
      expect(name, 'a setting of the scheduler itself').toMatch(/^TEMPORAL_|^SCHEDULER_TEMPORAL_/);
    }
    expect(Object.keys(worker!.environment ?? {})).toEqual(expect.arrayContaining(CONNECTION_FILES));
  });

  it('hands every credential over as a file-based compose secret, mounted where its variable points, from outside the checkout', () => {
    const declared = secured.secrets ?? {};
    for (const service of SCHEDULER_SERVICES) {
      const environment = mergedEnv(service);
      for (const name of CREDENTIAL_VALUES) expect(environment[name], `${service} ${name}`).toBeUndefined();
      for (const name of CONNECTION_FILES) {
        const secret = String(environment[name]).match(/^\/run\/secrets\/([a-z0-9-]+)$/)?.[1];
        expect(secret, `${service} ${name}=${environment[name]}`).toBeDefined();
        expect(secured.services[service]!.secrets, `${service} mounts ${secret}`).toContain(secret);
      }
      expect([...(secured.services[service]!.secrets ?? [])].sort()).toEqual(Object.keys(declared).sort());
    }
    for (const [name, secret] of Object.entries(declared)) {
      expect(Object.keys(secret), `${name}: a file, not a value from the environment`).toEqual(['file']);
      // A required variable with no default: no path inside this checkout, where a key could be committed.
      expect(secret.file, name).toMatch(/^\$\{CREDENTIALS_DIR:\?[^}]+\}\/[\w.-]+$/);
    }
  });

  it('the product accepts the merged settings: mTLS with its CA, and the Temporal API key re-read from its file', () => {
    const run = mkdtempSync(join(tmpdir(), 'ds-compose-secrets-'));
    onTestFinished(() => rmSync(run, { recursive: true, force: true }));
    mkdirSync(join(run, 'secrets'));
    // A real certificate and key (the product parses them and checks the pair): one self-signed P-256
    // certificate, made with the openssl CLI, stands in for the client's and the CA's.
    execFileSync(
      'openssl',
      'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=durable-scheduler -keyout key.pem -out cert.pem'.split(
        ' ',
      ),
      { cwd: run, stdio: 'ignore' },
    );
    const cert = readFileSync(join(run, 'cert.pem'), 'utf8');
    const key = readFileSync(join(run, 'key.pem'), 'utf8');
    const contents: Record<string, string> = {
      'temporal-client-cert': cert,
      'temporal-client-key': key,
      'temporal-server-ca': cert,
      'temporal-api-key': 'temporal-api-key\n',
    };
    expect(Object.keys(secured.secrets ?? {}).sort()).toEqual(Object.keys(contents).sort());
    for (const [name, text] of Object.entries(contents)) writeFileSync(join(run, 'secrets', name), text);
    const shell: Record<string, string> = {
      TEMPORAL_ADDRESS: 'temporal.example.internal:7233',
      TEMPORAL_NAMESPACE: 'scheduler',
      SCHEDULER_API_KEYS: `${'k'.repeat(32)}=acme:ops`,
    };
    for (const service of SCHEDULER_SERVICES) {
      // What the container gets: interpolated from the shell, a variable without a value left out (unset
      // in the shell), /run/secrets/ where compose mounts the secrets.
      const environment: Record<string, string> = { HOME: run };
      for (const [name, value] of Object.entries(mergedEnv(service))) {
        if (value === null) continue;
        environment[name] = String(value)
          .replace(/\$\{(\w+):\?[^}]*\}/g, (_, variable: string) => shell[variable] ?? '')
          .replace(/^\/run\/secrets\//, `${join(run, 'secrets')}/`);
      }
      expect(loadEnvironment(environment).TEMPORAL_NAMESPACE).toBe('scheduler');
      const settings = loadConnectionSettings(environment);
      expect(settings.address).toBe('temporal.example.internal:7233');
      expect(settings.namespace).toBe('scheduler');
      expect(settings.tls?.clientCertPair?.crt.toString()).toBe(cert);
      expect(settings.tls?.clientCertPair?.key.toString()).toBe(key);
      expect(settings.tls?.serverRootCACertificate?.toString()).toBe(cert);
      expect(settings.tls?.serverNameOverride).toBeUndefined();
      expect(settings.apiKey).toEqual({
        value: 'temporal-api-key',
        file: join(run, 'secrets', 'temporal-api-key'),
      });
    }
  });

  it('leaves the development stack as it was: docker-compose.yml reaches its own Temporal in plaintext, without secrets', () => {
    expect(compose.secrets).toBeUndefined();
    for (const service of SCHEDULER_SERVICES) {
      for (const name of Object.keys(env(service)))
        expect(name, `${service}`).not.toMatch(/^TEMPORAL_TLS|^TEMPORAL_API_KEY|^SCHEDULER_TEMPORAL_API_KEY/);
      expect(env(service).TEMPORAL_ADDRESS).toBe('temporal:7233');
    }
  });
});

describe('Dockerfile', () => {
  const engines = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).engines.node as string;
  /** Whether a Node major line satisfies `engines` (ranges of `^M.m.p` and `>=M.m.p` alternatives). */
  const admits = (major: number) =>
    engines.split('||').some((part) => {
      const range = part.trim().match(/^(\^|>=)(\d+)\.\d+\.\d+$/);
      if (!range) throw new Error(`engines part not understood: ${part}`);
      return range[1] === '^' ? major === Number(range[2]) : major >= Number(range[2]);
    });

  it('builds and runs on one supported Node LTS line that package.json engines admits (Node 20 ended 2026-04-30)', () => {
    const bases = dockerLines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/)[1]!);
    expect(bases).toHaveLength(2);
    const majors = new Set(bases.map((b) => Number(b.match(/^node:(\d+)-/)?.[1])));
    expect(majors.size).toBe(1);
    const [major] = majors;
    expect(major! % 2, 'an even (LTS) line').toBe(0);
    expect(major!).toBeGreaterThan(20);
    expect(admits(major!), `node ${major} within engines ${engines}`).toBe(true);
    expect(admits(20), `engines ${engines} still admits Node 20`).toBe(false);
  });

  it('runs as a numeric non-root user and copies in only the build inputs: no credential in the image', () => {
    const user = dockerLines.find((l) => l.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    const sources = dockerLines
      .filter((l) => /^(COPY|ADD) /.test(l))
      .flatMap((l) => (l.includes('--from=') ? [] : l.split(/\s+/).slice(1, -1)));
    expect(new Set(sources)).toEqual(
      new Set([
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'scripts',
        'src',
        'scripts/toolchain.mjs',
        'scripts/toolchain.d.mts',
      ]),
    );
    const envLines = dockerfile.match(/^ENV (?:.*\\\n)*.*$/gm) ?? [];
    const set = envLines.flatMap((block) => [...block.matchAll(/([A-Z][A-Z0-9_]+)=/g)].map((m) => m[1]!));
    expect(set.sort()).toEqual(['NODE_ENV', 'SCHEDULER_API_HOST', 'SCHEDULER_DATA_DIR']);
    expect(dockerLines.some((l) => /^(ARG|ENV)\b.*(KEY|SECRET|TOKEN|PASSWORD)/i.test(l))).toBe(false);
  });

  it('documents the connection settings it takes from mounted files, each a variable the product reads', () => {
    const comments = dockerLines.filter((l) => l.startsWith('#')).join('\n');
    const documented = [
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_TLS',
      ...CONNECTION_FILES,
      'TEMPORAL_TLS_SERVER_NAME',
      'TEMPORAL_API_KEY',
      'TEMPORAL_CONFIG_FILE',
      'TEMPORAL_PROFILE',
      'SCHEDULER_API_KEY_FILE',
      'SCHEDULER_TENANTS_FILE',
    ];
    for (const name of documented) {
      expect(comments, name).toMatch(new RegExp(`\\b${name}\\b`));
      expect(productVariables.has(name), `${name} is read by nothing`).toBe(true);
    }
  });
});
