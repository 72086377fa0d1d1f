// deploy/kubernetes/ cannot be applied here (no cluster), so it is checked offline two ways: every object
// against the Kubernetes JSON schemas (v1.37, strict; vendored: test/fixtures/kubernetes-schema/README.md),
// and against the product: the variables it reads and the values it accepts, the endpoints and ports it
// serves, its tenant policy parser, its Temporal connection settings, and how it sees a rotated Secret.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync as makeTempDir,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import type { Client } from '@temporalio/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { KeyRing } from '../../src/api/auth.js';
import { buildApi } from '../../src/api/http/server.js';
import {
  deploymentFacts,
  EnvironmentSchema,
  isLoopbackHost,
  loadEnvironment,
  policyAtStart,
} from '../../src/config.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { loadConnectionSettings, watchApiKeyFile } from '../../src/runtime/temporal-connection.js';
import { loadTenantPolicy } from '../../src/runtime/tenant-policy-file.js';

const DIR = join(repoRoot, 'deploy', 'kubernetes');
/** Temporary directories of this file, removed when it ends. */
const temporary: string[] = [];
const mkdtempSync = (prefix: string) => {
  const dir = makeTempDir(prefix);
  temporary.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});
const SCHEMAS = join(repoRoot, 'test', 'fixtures', 'kubernetes-schema');

// ---------------------------------------------------------------------------------------------------
// The objects, as `kubectl apply -k deploy/kubernetes` sends them: this kustomization uses `resources`,
// `namespace` and `images` only, and the test renders those itself (compared with kubectl's own kustomize
// below, where kubectl is installed).

// biome-ignore lint/suspicious/noExplicitAny: manifests are walked as plain parsed YAML.
type Obj = Record<string, any>;

interface Kustomization {
  namespace?: string;
  resources: string[];
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  [key: string]: unknown;
}

const readText = (file: string) => readFileSync(join(DIR, file), 'utf8');
const kustomization = () => parse(readText('kustomization.yaml')) as Kustomization;

function parseManifest(text: string, file: string): Obj[] {
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    return doc.toJS() as Obj;
  });
}

/** Every object of the kustomization, namespaced and with its images set, as kustomize renders them. */
function render(k: Kustomization = kustomization(), text: (file: string) => string = readText): Obj[] {
  const objects = k.resources.flatMap((file) => parseManifest(text(file), file));
  for (const object of objects) {
    if (k.namespace) object.metadata.namespace = k.namespace;
    for (const container of podSpec(object)?.containers ?? []) {
      const [name, tag] = String(container.image).split(':');
      const image = k.images?.find((i) => i.name === name);
      if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
    }
  }
  return objects;
}

const podSpec = (object: Obj): Obj | undefined =>
  object.kind === 'Deployment' ? object.spec?.template?.spec : undefined;
const find = (objects: Obj[], kind: string, name: string) => {
  const object = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!object) throw new Error(`no ${kind} ${name}`);
  return object;
};
const deployment = (objects: Obj[], role: 'worker' | 'api') =>
  find(objects, 'Deployment', `durable-scheduler-${role}`);
const container = (objects: Obj[], role: 'worker' | 'api'): Obj =>
  podSpec(deployment(objects, role))!.containers[0];

// ---------------------------------------------------------------------------------------------------
// The Kubernetes JSON schemas.

const SCHEMA_OF: Record<string, string> = {
  'v1/ConfigMap': 'configmap-v1.json',
  'v1/Secret': 'secret-v1.json',
  'v1/Service': 'service-v1.json',
  'apps/v1/Deployment': 'deployment-apps-v1.json',
};

function schemaValidator(): (object: Obj) => string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  // OpenAPI's integer formats, which JSON Schema does not define: their ranges.
  const integer = (bits: number) => ({
    type: 'number' as const,
    validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** (bits - 1),
  });
  ajv.addFormat('int32', integer(32));
  ajv.addFormat('int64', integer(64));
  ajv.addFormat('double', true);
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, '_definitions.json'), 'utf8')));
  const compiled = new Map(
    Object.entries(SCHEMA_OF).map(([kind, file]) => [
      kind,
      ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'))),
    ]),
  );
  return (object) => {
    const kind = `${object.apiVersion}/${object.kind}`;
    const validate = compiled.get(kind);
    if (!validate) return [`${kind}: no schema vendored for this kind (test/fixtures/kubernetes-schema)`];
    const name = object.metadata?.name;
    if (validate(object)) return [];
    return (validate.errors ?? []).map(
      (e) => `${kind} ${name}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  };
}

// ---------------------------------------------------------------------------------------------------
// The Secrets: created outside the kustomization, by the commands of deploy/kubernetes/README.md.

interface SecretSpec {
  name: string;
  type: string;
  keys: string[];
}

/** The `kubectl create secret generic` commands of the README, as the Secrets they create. */
function readmeSecrets(text = readText('README.md')): SecretSpec[] {
  const commands = text.replace(/\\\n\s*/g, ' ').split('\n');
  return commands
    .map((line) => line.match(/create secret generic (\S+)(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map(([, name, flags]) => ({
      name: name!,
      type: flags!.match(/--type=(\S+)/)?.[1] ?? 'Opaque',
      keys: [...flags!.matchAll(/--from-(?:file|literal)=([^=\s]+)=/g)].map((m) => m[1]!),
    }));
}

const secretObject = (s: SecretSpec, namespace: string | undefined): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: s.name, ...(namespace ? { namespace } : {}) },
  type: s.type,
  data: Object.fromEntries(s.keys.map((key) => [key, Buffer.from('placeholder').toString('base64')])),
});

// ---------------------------------------------------------------------------------------------------
// The product's side.

/** The TEMPORAL_* variables @temporalio/envconfig reads (its own source says which). */
function envconfigVariables(): Set<string> {
  const lib = dirname(createRequire(import.meta.url).resolve('@temporalio/envconfig'));
  const names = readdirSync(lib)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) =>
      [...readFileSync(join(lib, f), 'utf8').matchAll(/'(TEMPORAL_[A-Z0-9_]+)'/g)].map((m) => m[1]!),
    );
  return new Set(names);
}
const productVariables = () => new Set([...Object.keys(EnvironmentSchema.shape), ...envconfigVariables()]);

/** Variables whose value is a credential: never a literal in a manifest. */
const CREDENTIAL_VALUES = [
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'SCHEDULER_API_KEYS',
  'SCHEDULER_CURSOR_SECRET',
  'SCHEDULER_METRICS_TOKEN',
];

/** Variables whose value is a file the product reads. */
const isFileVariable = (name: string) =>
  /_(FILE|PATH)$/.test(name) && name !== 'TEMPORAL_CLI_PATH' && name !== 'TEMPORAL_TEST_SERVER_PATH';

interface EnvEntry {
  /** env (the container's own list) or the ConfigMap of an envFrom. */
  from: string;
  value?: string;
  secretKeyRef?: { name: string; key: string };
}

/** The container's environment: its env entries, and every key of the ConfigMaps it takes with envFrom. */
function environmentOf(objects: Obj[], c: Obj): Map<string, EnvEntry> {
  const env = new Map<string, EnvEntry>();
  for (const source of c.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`envFrom other than a ConfigMap: ${JSON.stringify(source)}`);
    const map = find(objects, 'ConfigMap', source.configMapRef.name);
    for (const [name, value] of Object.entries(map.data ?? {}))
      env.set(name, { from: `ConfigMap ${map.metadata.name}`, value: String(value) });
  }
  for (const entry of c.env ?? [])
    env.set(entry.name, {
      from: 'env',
      ...(entry.value !== undefined ? { value: String(entry.value) } : {}),
      ...(entry.valueFrom?.secretKeyRef ? { secretKeyRef: entry.valueFrom.secretKeyRef } : {}),
    });
  return env;
}

/**
 * A real certificate and its key (the product parses them, and checks that they are a pair): one
 * self-signed P-256 certificate made with the openssl CLI stands in for the client's and for the CA.
 */
function makeCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ds-k8s-cert-'));
  execFileSync(
    'openssl',
    'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=durable-scheduler -keyout key.pem -out cert.pem'.split(
      ' ',
    ),
    { cwd: dir, stdio: 'ignore' },
  );
  return {
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
  };
}
const certificate = makeCertificate();
/** What a Secret's key holds in the pod here: the certificate files real, anything else a stand-in word. */
const secretContent = (key: string) =>
  key === 'tls.key' ? certificate.key : key.endsWith('.crt') ? certificate.cert : `stand-in-${key}\n`;

/** A value the product accepts for a variable set from a Secret (the Secret's content is not ours). */
const SECRET_STAND_INS: Record<string, string> = {
  SCHEDULER_CURSOR_SECRET: 'c'.repeat(44),
  SCHEDULER_METRICS_TOKEN: 'm'.repeat(48),
};

/**
 * The pod's volumes laid out in a temporary directory, each mount path mapped to a folder holding the
 * files its ConfigMap or Secret projects (Secret files: secretContent); returns the container's
 * environment with every path moved there, as the product would see it in the pod.
 */
function podOnDisk(objects: Obj[], role: 'worker' | 'api', secrets: SecretSpec[]): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), `ds-k8s-${role}-`));
  const spec = podSpec(deployment(objects, role))!;
  const c = container(objects, role);
  const moved = new Map<string, string>();
  for (const mount of c.volumeMounts ?? []) {
    const volume = spec.volumes.find((v: Obj) => v.name === mount.name);
    const here = join(root, mount.name);
    mkdirSync(here, { recursive: true });
    if (volume.configMap) {
      for (const [key, value] of Object.entries(find(objects, 'ConfigMap', volume.configMap.name).data ?? {}))
        writeFileSync(join(here, key), String(value));
    } else if (volume.secret) {
      const secret = secrets.find((s) => s.name === volume.secret.secretName);
      for (const key of secret?.keys ?? []) writeFileSync(join(here, key), secretContent(key));
    }
    moved.set(mount.mountPath, here);
  }
  const env: Record<string, string> = { HOME: mkdtempSync(join(tmpdir(), 'ds-k8s-home-')) };
  for (const [name, entry] of environmentOf(objects, c)) {
    let value = entry.value ?? SECRET_STAND_INS[name];
    if (value === undefined) throw new Error(`${role} ${name}: no value and no stand-in`);
    if (isFileVariable(name)) {
      const base = moved.get(posix.dirname(value));
      if (base) value = join(base, posix.basename(value));
    }
    env[name] = value;
  }
  return env;
}

/** A port of the container by its name or number. */
const containerPort = (c: Obj, port: string | number): number | undefined =>
  typeof port === 'number' ? port : c.ports?.find((p: Obj) => p.name === port)?.containerPort;

const probesOf = (c: Obj) =>
  (['startupProbe', 'livenessProbe', 'readinessProbe'] as const)
    .filter((p) => c[p] !== undefined)
    .map((p) => [p, c[p] as Obj] as const);

const unreachable = new Proxy({} as Client, {
  get: () => {
    throw new Error('the probe check must not need Temporal');
  },
});

/** The uid:gid of the image's USER line (Dockerfile). */
function imageUser(): { uid: number; gid: number } {
  const user = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').match(/^USER\s+(\d+):(\d+)\s*$/m);
  if (!user) throw new Error('the Dockerfile has no numeric USER uid:gid');
  return { uid: Number(user[1]), gid: Number(user[2]) };
}

const waitFor = async (what: string, done: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

// ---------------------------------------------------------------------------------------------------

describe('deploy/kubernetes', () => {
  const objects = render();
  const secrets = readmeSecrets();

  it('lists every manifest of the folder in kustomization.yaml, once, and neither lists nor generates a Secret', () => {
    const k = kustomization();
    const manifests = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
    expect([...k.resources].sort()).toEqual(manifests.sort());
    expect(new Set(k.resources).size).toBe(k.resources.length);
    // Only what render() implements: a field kustomize would apply and this test would not is a gap.
    expect(Object.keys(k).sort()).toEqual(['apiVersion', 'images', 'kind', 'namespace', 'resources']);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('is valid against the Kubernetes JSON schemas (v1.37, strict: no unknown field)', () => {
    const validate = schemaValidator();
    expect(objects.map((o) => `${o.kind} ${o.metadata?.name}`).sort()).toEqual([
      'ConfigMap durable-scheduler-temporal',
      'ConfigMap durable-scheduler-tenants',
      'Deployment durable-scheduler-api',
      'Deployment durable-scheduler-worker',
      'Service durable-scheduler-api',
      'Service durable-scheduler-worker-metrics',
    ]);
    expect(objects.flatMap(validate)).toEqual([]);
  });

  it('the schema check is not vacuous: a misspelt field, a wrong type and a kind without a schema fail', () => {
    const validate = schemaValidator();
    const misspelt = render();
    const c = container(misspelt, 'api');
    c.readynessProbe = c.readinessProbe;
    delete c.readinessProbe;
    expect(validate(deployment(misspelt, 'api')).join('\n')).toMatch(
      /must NOT have additional properties.*readynessProbe/,
    );
    const wrongType = render();
    deployment(wrongType, 'worker').spec.replicas = '2';
    expect(validate(deployment(wrongType, 'worker')).join('\n')).toMatch(/\/spec\/replicas must be integer/);
    expect(validate({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } })).toHaveLength(1);
  });

  it.skipIf(!commandExists('kubectl'))('renders as `kubectl kustomize` renders it', () => {
    const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', DIR], { encoding: 'utf8' })).map(
      (d) => d.toJS() as Obj,
    );
    const key = (o: Obj) => `${o.kind}/${o.metadata.name}`;
    const sorted = (list: Obj[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
    expect(sorted(rendered)).toEqual(sorted(objects));
  });

  it('sets only variables the product reads: src/config.ts, or @temporalio/envconfig for TEMPORAL_*', () => {
    const known = productVariables();
    for (const role of ['worker', 'api'] as const)
      for (const [name, entry] of environmentOf(objects, container(objects, role)))
        expect(known.has(name), `${role}: ${name} (${entry.from}) is read by nothing`).toBe(true);
  });

  it('sets values the product accepts: its configuration, its Temporal connection (mTLS, CA, API key file) and its tenant policy', () => {
    for (const role of ['worker', 'api'] as const) {
      const env = podOnDisk(objects, role, secrets);
      const config = loadEnvironment(env);
      expect(config.SCHEDULER_ROLE).toBe(role);
      const connection = loadConnectionSettings(env);
      expect(connection.address).toBe(
        find(objects, 'ConfigMap', 'durable-scheduler-temporal').data.TEMPORAL_ADDRESS,
      );
      expect(connection.tls?.clientCertPair?.crt.toString()).toBe(certificate.cert);
      expect(connection.tls?.clientCertPair?.key.toString()).toBe(certificate.key);
      expect(connection.tls?.serverRootCACertificate?.toString()).toBe(certificate.cert);
      expect(connection.apiKey).toEqual({
        value: 'stand-in-api-key',
        file: env.SCHEDULER_TEMPORAL_API_KEY_FILE,
      });
      // A production process (a worker one needs its tenant policy: it refuses to start without one).
      const facts = deploymentFacts(config, connection.address);
      expect(
        policyAtStart({ facts, tenantsFile: config.SCHEDULER_TENANTS_FILE, runsWorker: role === 'worker' }),
      ).toBe('file');
      const policy = loadTenantPolicy({
        file: config.SCHEDULER_TENANTS_FILE,
        development: false,
        log: () => {},
      });
      expect(policy.describe()).toMatch(/1 tenant \(acme\)/);
      policy.close();
    }
  });

  it('keeps credentials out of the manifests: files from Secret volumes, or values from a Secret reference', () => {
    for (const role of ['worker', 'api'] as const)
      for (const [name, entry] of environmentOf(objects, container(objects, role))) {
        if (!CREDENTIAL_VALUES.includes(name)) continue;
        expect(entry.value, `${role}: ${name} is written in ${entry.from}`).toBeUndefined();
        expect(entry.secretKeyRef, `${role}: ${name}`).toBeDefined();
      }
  });

  it('mounts every file the product reads from a ConfigMap or Secret volume whose key exists, as a directory (no subPath: it never updates)', () => {
    for (const role of ['worker', 'api'] as const) {
      const spec = podSpec(deployment(objects, role))!;
      const c = container(objects, role);
      for (const mount of c.volumeMounts ?? []) {
        expect(mount.subPath, `${role}: ${mount.name} mounted with subPath`).toBeUndefined();
        expect(mount.subPathExpr, `${role}: ${mount.name} mounted with subPathExpr`).toBeUndefined();
        expect(mount.readOnly, `${role}: ${mount.name}`).toBe(true);
      }
      const files = [...environmentOf(objects, c)].filter(([name]) => isFileVariable(name));
      expect(files.map(([name]) => name).sort()).toEqual(
        [
          'SCHEDULER_TENANTS_FILE',
          'SCHEDULER_TEMPORAL_API_KEY_FILE',
          'TEMPORAL_TLS_CLIENT_CERT_PATH',
          'TEMPORAL_TLS_CLIENT_KEY_PATH',
          'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
          ...(role === 'api' ? ['SCHEDULER_API_KEY_FILE'] : []),
        ].sort(),
      );
      for (const [name, entry] of files) {
        const path = entry.value!;
        const mount = c.volumeMounts.find((m: Obj) => m.mountPath === posix.dirname(path));
        expect(mount, `${role}: ${name}=${path} is on no mount`).toBeDefined();
        const volume = spec.volumes.find((v: Obj) => v.name === mount.name);
        const keys = volume.configMap
          ? Object.keys(find(objects, 'ConfigMap', volume.configMap.name).data ?? {})
          : volume.secret
            ? (secrets.find((s) => s.name === volume.secret.secretName)?.keys ?? [])
            : [];
        expect(keys, `${role}: ${name}=${path}`).toContain(posix.basename(path));
        // The process (uid 1000, group fsGroup) reads the files; nobody else does.
        const mode = (volume.configMap ?? volume.secret).defaultMode;
        expect(mode & 0o007, `${role}: ${mount.name} mode ${mode.toString(8)}`).toBe(0);
        expect(mode & 0o040, `${role}: ${mount.name} mode ${mode.toString(8)}`).toBe(0o040);
      }
    }
  });

  it('the Secrets the README creates are the ones the Deployments use, keys included, and valid Secrets', () => {
    const validate = schemaValidator();
    expect(secrets.flatMap((s) => validate(secretObject(s, kustomization().namespace)))).toEqual([]);
    const used = new Map<string, Set<string>>();
    const use = (name: string, key: string) => used.set(name, (used.get(name) ?? new Set()).add(key));
    for (const role of ['worker', 'api'] as const) {
      const spec = podSpec(deployment(objects, role))!;
      const c = container(objects, role);
      for (const [, entry] of environmentOf(objects, c))
        if (entry.secretKeyRef) use(entry.secretKeyRef.name, entry.secretKeyRef.key);
      for (const [name, entry] of environmentOf(objects, c)) {
        if (!isFileVariable(name)) continue;
        const mount = c.volumeMounts.find((m: Obj) => m.mountPath === posix.dirname(entry.value!));
        const volume = spec.volumes.find((v: Obj) => v.name === mount?.name);
        if (volume?.secret) use(volume.secret.secretName, posix.basename(entry.value!));
      }
      for (const volume of spec.volumes) if (volume.secret) use(volume.secret.secretName, '');
    }
    for (const [name, keys] of used) {
      const made = secrets.find((s) => s.name === name);
      expect(made, `Secret ${name} is used but the README creates it nowhere`).toBeDefined();
      for (const key of keys) if (key) expect(made!.keys, `Secret ${name}`).toContain(key);
    }
    expect(secrets.map((s) => s.name).sort()).toEqual([...used.keys()].sort());
    expect(secrets.find((s) => s.name === 'durable-scheduler-temporal-tls')?.type).toBe('kubernetes.io/tls');
  });

  it('probes the API where it serves: /healthz (startup, liveness) and /readyz (readiness) on SCHEDULER_API_PORT, beyond loopback', async () => {
    const c = container(objects, 'api');
    const env = environmentOf(objects, c);
    const port = Number(env.get('SCHEDULER_API_PORT')?.value);
    expect(isLoopbackHost(env.get('SCHEDULER_API_HOST')?.value ?? '127.0.0.1')).toBe(false);
    const probes = Object.fromEntries(probesOf(c));
    expect(Object.keys(probes).sort()).toEqual(['livenessProbe', 'readinessProbe', 'startupProbe']);
    for (const [name, probe] of Object.entries(probes))
      expect(containerPort(c, probe.httpGet?.port), `${name} port`).toBe(port);
    expect(probes.startupProbe!.httpGet.path).toBe('/healthz');
    expect(probes.livenessProbe!.httpGet.path).toBe('/healthz');
    expect(probes.readinessProbe!.httpGet.path).toBe('/readyz');
    // The product answers them: liveness without Temporal (200), readiness with its verdict (here 503:
    // the Temporal client fails), and neither needs a key; a path it does not serve is a 404 even with one.
    const app = await buildApi({
      client: unreachable,
      taskQueue: 'q',
      jobTaskQueue: 'jobs',
      keys: () => KeyRing.fromConfig({ keys: 'key-acme-alice-0123456789=acme:alice' }),
      tenantPolicy: () => TenantPolicy.openToAll(),
      production: true,
    });
    try {
      for (const [name, probe] of Object.entries(probes)) {
        const status = (await app.inject({ url: probe.httpGet.path })).statusCode;
        expect([200, 503], `${name} GET ${probe.httpGet.path}: ${status}`).toContain(status);
        if (name !== 'readinessProbe') expect(status, `${name} GET ${probe.httpGet.path}`).toBe(200);
      }
      const unserved = await app.inject({
        url: '/healthz-not-served',
        headers: { authorization: 'Bearer key-acme-alice-0123456789' },
      });
      expect(unserved.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('probes a worker-only process over TCP on its metrics port (it serves no health endpoint), bound beyond loopback', () => {
    const c = container(objects, 'worker');
    const env = environmentOf(objects, c);
    expect(env.get('SCHEDULER_ROLE')?.value).toBe('worker');
    const port = Number(env.get('SCHEDULER_METRICS_PORT')?.value);
    expect(port).toBeGreaterThan(0);
    expect(isLoopbackHost(env.get('SCHEDULER_METRICS_HOST')?.value ?? '127.0.0.1')).toBe(false);
    const probes = probesOf(c);
    expect(probes.map(([name]) => name).sort()).toEqual(['livenessProbe', 'readinessProbe']);
    for (const [name, probe] of probes) {
      expect(probe.httpGet, `${name}: a worker-only process has no HTTP health endpoint`).toBeUndefined();
      expect(containerPort(c, probe.tcpSocket?.port), `${name} port`).toBe(port);
    }
  });

  it('Services select their pods and name the ports they expose; each is annotated for scraping where the metrics are', () => {
    const cases = [
      { service: 'durable-scheduler-api', role: 'api', port: 'http', portVariable: 'SCHEDULER_API_PORT' },
      {
        service: 'durable-scheduler-worker-metrics',
        role: 'worker',
        port: 'metrics',
        portVariable: 'SCHEDULER_METRICS_PORT',
      },
    ] as const;
    for (const { service: name, role, port: portName, portVariable } of cases) {
      const service = find(objects, 'Service', name);
      const pods = deployment(objects, role).spec.template.metadata.labels;
      const other = deployment(objects, role === 'api' ? 'worker' : 'api').spec.template.metadata.labels;
      const selector = Object.entries(service.spec.selector as Record<string, string>);
      expect(
        selector.every(([k, v]) => pods[k] === v),
        `${name} selects the ${role} pods`,
      ).toBe(true);
      expect(
        selector.every(([k, v]) => other[k] === v),
        `${name} selects other pods too`,
      ).toBe(false);
      const c = container(objects, role);
      const expected = Number(environmentOf(objects, c).get(portVariable)?.value);
      const [port] = service.spec.ports;
      expect(port.name).toBe(portName);
      expect(containerPort(c, port.targetPort)).toBe(expected);
      const annotations = service.metadata.annotations ?? {};
      expect(annotations['prometheus.io/scrape']).toBe('true');
      expect(Number(annotations['prometheus.io/port'])).toBe(expected);
      expect(annotations['prometheus.io/path']).toBe('/metrics');
    }
    // Every worker pod is scraped on its own, and only once (no pod annotations besides the Service's).
    expect(find(objects, 'Service', 'durable-scheduler-worker-metrics').spec.clusterIP).toBe('None');
    for (const role of ['worker', 'api'] as const)
      expect(deployment(objects, role).spec.template.metadata.annotations).toBeUndefined();
  });

  it("runs as the image's non-root user, read-only, unprivileged, with requests and limits", () => {
    const { uid, gid } = imageUser();
    expect(uid).not.toBe(0);
    for (const role of ['worker', 'api'] as const) {
      const spec = podSpec(deployment(objects, role))!;
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid, runAsGroup: gid });
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        for (const kind of ['requests', 'limits'])
          for (const resource of ['cpu', 'memory'])
            expect(c.resources?.[kind]?.[resource], `${role} ${kind}.${resource}`).toBeDefined();
      }
      // Nothing writable is mounted: the product writes no file in production.
      expect(spec.volumes.filter((v: Obj) => !v.secret && !v.configMap)).toEqual([]);
    }
  });

  it("mounts the tenant policy on both processes, and it parses with the product's parser", () => {
    const policy = find(objects, 'ConfigMap', 'durable-scheduler-tenants').data['tenants.json'];
    expect(TenantPolicy.parse(policy, 'tenants.configmap.yaml').tenantIds()).toEqual(['acme']);
    for (const role of ['worker', 'api'] as const)
      expect(environmentOf(objects, container(objects, role)).get('SCHEDULER_TENANTS_FILE')?.value).toBe(
        '/etc/durable-scheduler/tenants/tenants.json',
      );
  });

  it('runs the image tagged with the package version', () => {
    const version = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
    for (const role of ['worker', 'api'] as const)
      expect(container(objects, role).image).toBe(`durable-scheduler:${version}`);
  });

  it("a Secret or ConfigMap volume's update (the kubelet's atomic ..data swap) reaches the product without a restart", async () => {
    // The layout the kubelet writes for a volume: versioned folders, `..data` pointing at the current one,
    // and each key a link through `..data`. An update writes a new folder and renames a new link over
    // `..data`; the files' own paths never change. A subPath mount is none of this: a copy that stays.
    const volume = (files: Record<string, string>) => {
      const dir = mkdtempSync(join(tmpdir(), 'ds-k8s-volume-'));
      let version = 0;
      const write = (contents: Record<string, string>) => {
        const folder = `..2026_12_01_00_00_0${version++}`;
        mkdirSync(join(dir, folder));
        for (const [key, text] of Object.entries(contents)) writeFileSync(join(dir, folder, key), text);
        symlinkSync(folder, join(dir, '..data_tmp'));
        renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      };
      write(files);
      for (const key of Object.keys(files)) symlinkSync(join('..data', key), join(dir, key));
      return { dir, update: write };
    };

    const keyVolume = volume({ 'api-key': 'key-one\n' });
    const file = join(keyVolume.dir, 'api-key');
    const settings = loadConnectionSettings({
      HOME: mkdtempSync(join(tmpdir(), 'ds-k8s-home-')),
      TEMPORAL_ADDRESS: 'temporal.example:7233',
      SCHEDULER_TEMPORAL_API_KEY_FILE: file,
    });
    expect(settings.apiKey).toEqual({ value: 'key-one', file });
    const applied: string[] = [];
    const stop = watchApiKeyFile(
      settings,
      () => [{ setApiKey: (key: string) => applied.push(key) }],
      () => {},
      20,
    );

    const tenantsVolume = volume({ 'tenants.json': JSON.stringify({ tenants: { acme: {} } }) });
    const policy = loadTenantPolicy({
      file: join(tenantsVolume.dir, 'tenants.json'),
      development: false,
      log: () => {},
      pollIntervalMs: 20,
    });
    try {
      // Both polls take their first look asynchronously: update after it, as a rotation later in a pod's
      // life is. (A change between the product's first read and that first look would go unseen.)
      await new Promise((r) => setTimeout(r, 300));
      keyVolume.update({ 'api-key': 'key-two\n' });
      tenantsVolume.update({ 'tenants.json': JSON.stringify({ tenants: { acme: {}, globex: {} } }) });
      await waitFor('the rotated API key', () => applied.includes('key-two'));
      await waitFor('the new tenant policy', () => policy.current().tenantIds().includes('globex'));
    } finally {
      stop();
      policy.close();
    }
  });
});

function commandExists(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, command)));
}
