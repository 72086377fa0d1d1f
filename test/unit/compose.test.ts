// docker-compose.yml cannot be started here (no Docker engine), so it is checked two ways offline:
// against the Compose Specification's JSON schema (vendored: test/fixtures/compose-spec/README.md), and
// against the native production stack (scripts/stack-prod.ts, deploy/native/) that runs the same
// topology for real: same server version, database plugin, credentials, namespace, dynamic config,
// process roles and environment names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
import { EnvironmentSchema } from '../../src/config.js';

interface Service {
  image?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number };
}
interface ComposeFile {
  services: Record<string, Service>;
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
