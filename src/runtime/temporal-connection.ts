// How every Temporal connection the product opens is configured (issue 38). The settings are Temporal's own
// client environment configuration, read by @temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY, TEMPORAL_TLS and TEMPORAL_TLS_*, TEMPORAL_GRPC_META_*, and TOML profiles chosen by
// TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE, so a profile an operator already uses with the temporal CLI works
// here as it is. Added, because envconfig has no way to say it: an API key read from a file
// (SCHEDULER_TEMPORAL_API_KEY_FILE, a mounted secret that is rotated in place), and refusals at start for
// settings envconfig would pass on silently and that would fail every call later.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { type ClientConfigProfile, loadClientConfigProfile } from '@temporalio/envconfig';
import { isLoopbackHost } from '../config.js';

/** TLS as both the client's Connection and the worker's NativeConnection take it. */
export interface TemporalTls {
  serverNameOverride?: string;
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

export interface TemporalConnectionSettings {
  /** Unset: no server named (`npm start` then runs the embedded dev server). */
  address: string | undefined;
  namespace: string;
  /** null: plaintext. */
  tls: TemporalTls | null;
  /** The key sent as Temporal Cloud expects (`Authorization: Bearer`); `file` when it is re-read from one. */
  apiKey: { value: string; file: string | null } | null;
  /** gRPC metadata sent with every call (TEMPORAL_GRPC_META_*). */
  metadata: Record<string, string>;
  /** Where the settings came from, for the start-up line: never a secret. */
  sources: string[];
}

/** A setting that would fail every call later: the start stops with one line naming the variable. */
export class ConnectionSettingsError extends Error {
  override name = 'ConnectionSettingsError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

export const API_KEY_FILE_VARIABLE = 'SCHEDULER_TEMPORAL_API_KEY_FILE';

type Env = Record<string, string | undefined>;
type ConfigData = { path: string } | { data: string | Uint8Array };

/** The variable (or the profile's key) a TLS file came from, for the message that names it. */
function tlsSource(env: Env, variable: string, profileKey: string, profile: string): string {
  return env[variable] !== undefined ? variable : `${profileKey} of profile "${profile}"`;
}

function readSource(source: ConfigData | undefined, name: string): Buffer | undefined {
  if (!source) return undefined;
  if ('data' in source) return Buffer.from(source.data);
  try {
    const bytes = readFileSync(source.path);
    if (bytes.length === 0) throw new ConnectionSettingsError(name, `${source.path} is empty`);
    return bytes;
  } catch (err) {
    if (err instanceof ConnectionSettingsError) throw err;
    throw new ConnectionSettingsError(
      name,
      `cannot read ${source.path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/** The PEM certificates of a file (a chain or a CA bundle holds several); refused when there is none. */
function parseCertificates(pem: Buffer, name: string): X509Certificate[] {
  const blocks =
    pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ConnectionSettingsError(name, 'holds no PEM certificate');
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new ConnectionSettingsError(
        name,
        `holds a certificate that cannot be read (${(err as Error).message})`,
      );
    }
  });
}

/** The client certificate (its first, for a chain) must be the one of the key beside it. */
function checkClientPair(crt: Buffer, certName: string, key: Buffer, keyName: string): void {
  const [leaf] = parseCertificates(crt, certName);
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new ConnectionSettingsError(
      keyName,
      `holds no private key that can be read (${(err as Error).message})`,
    );
  }
  if (!leaf!.checkPrivateKey(privateKey))
    throw new ConnectionSettingsError(keyName, `is not the key of the client certificate (${certName})`);
}

/** Reads an API key file: one key, surrounding whitespace (a trailing newline) ignored. */
export function readApiKeyFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConnectionSettingsError(
      API_KEY_FILE_VARIABLE,
      `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const key = text.trim();
  if (key === '') throw new ConnectionSettingsError(API_KEY_FILE_VARIABLE, `${file} is empty`);
  if (/\s/.test(key))
    throw new ConnectionSettingsError(API_KEY_FILE_VARIABLE, `${file} holds more than one word`);
  return key;
}

/** Whether an address (host:port) reaches only this machine. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.split(':')[0]!;
  return isLoopbackHost(host);
}

function loadProfile(env: Env): { profile: ClientConfigProfile; name: string } {
  const name = env.TEMPORAL_PROFILE ?? 'default';
  const file = env.TEMPORAL_CONFIG_FILE;
  // envconfig skips a config file that does not exist: a named one that is missing is a slip (a secret not
  // mounted), not "no profile".
  let configSource: ConfigData | undefined;
  if (file !== undefined) {
    try {
      configSource = { data: readFileSync(file, 'utf8') };
    } catch (err) {
      throw new ConnectionSettingsError(
        'TEMPORAL_CONFIG_FILE',
        `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  try {
    return {
      profile: loadClientConfigProfile({
        ...(configSource ? { configSource } : {}),
        overrideEnvVars: Object.fromEntries(
          Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
        ),
      }),
      name,
    };
  } catch (err) {
    const message = (err as Error).message;
    if (/Profile '.*' not found/.test(message))
      throw new ConnectionSettingsError(
        'TEMPORAL_PROFILE',
        `no profile "${name}" in ${file ?? 'the config file'}`,
      );
    throw new ConnectionSettingsError(
      file !== undefined ? 'TEMPORAL_CONFIG_FILE' : 'TEMPORAL_PROFILE',
      message,
    );
  }
}

type Profile = ClientConfigProfile;
type TlsConfig = NonNullable<Profile['tls']>;

/**
 * The connection settings from the environment (and the TOML profile it names). Throws
 * ConnectionSettingsError for: a client certificate without its key or a key without its certificate, a file
 * that cannot be read, TLS settings given with TLS turned off, host verification turned off (the TypeScript
 * SDK cannot), an API key given twice, and an API key that would travel in plaintext beyond this machine.
 */
export function loadConnectionSettings(env: Env = process.env): TemporalConnectionSettings {
  const { profile, name } = loadProfile(env);
  const sources: string[] = [];
  if (env.TEMPORAL_CONFIG_FILE !== undefined || env.TEMPORAL_PROFILE !== undefined)
    sources.push(`profile "${name}"${env.TEMPORAL_CONFIG_FILE ? ` of ${env.TEMPORAL_CONFIG_FILE}` : ''}`);
  const apiKey = apiKeyOf(env, profile);
  refuseTlsContradictions(env, profile.tls);
  let tls: TemporalTls | null = null;
  const tlsOn = profile.tls !== undefined ? profile.tls.disabled !== true : apiKey !== null;
  if (tlsOn) {
    const loaded = loadTls(env, profile.tls, name);
    tls = loaded.tls;
    sources.push(loaded.source);
  }
  const address = profile.address;
  if (apiKey && !tls && address !== undefined && !isLoopbackAddress(address))
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS',
      `an API key would be sent in plaintext to ${address}: turn TLS on (unset TEMPORAL_TLS=false) or reach the server on loopback`,
    );
  if (apiKey) sources.push(apiKey.file ? `API key from ${apiKey.file} (re-read on change)` : 'API key');

  return {
    address,
    namespace: profile.namespace ?? 'default',
    tls,
    apiKey,
    metadata: profile.grpcMeta ?? {},
    sources,
  };
}

/** The API key: from SCHEDULER_TEMPORAL_API_KEY_FILE, or TEMPORAL_API_KEY / the profile's, never both. */
function apiKeyOf(env: Env, profile: Profile): TemporalConnectionSettings['apiKey'] {
  const keyFile = env[API_KEY_FILE_VARIABLE];
  if (keyFile !== undefined && profile.apiKey !== undefined)
    throw new ConnectionSettingsError(
      API_KEY_FILE_VARIABLE,
      "an API key is also given (TEMPORAL_API_KEY or the profile's api_key): give one of them",
    );
  if (keyFile !== undefined) return { value: readApiKeyFile(keyFile), file: keyFile };
  return profile.apiKey !== undefined && profile.apiKey !== '' ? { value: profile.apiKey, file: null } : null;
}

/** Refuses TLS files or a server name given with TLS turned off, and host verification turned off. */
function refuseTlsContradictions(env: Env, tlsConfig: TlsConfig | undefined): void {
  const given = tlsConfig
    ? (
        [
          ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'client_cert', tlsConfig.clientCert],
          ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'client_key', tlsConfig.clientKey],
          ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'server_ca_cert', tlsConfig.serverCACert],
          ['TEMPORAL_TLS_SERVER_NAME', 'server_name', tlsConfig.serverName],
        ] as const
      ).filter(([, , value]) => value !== undefined)
    : [];
  if (tlsConfig?.disabled === true && given.length > 0)
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS',
      `TLS is turned off while ${given.map(([v]) => v).join(', ')} ${given.length > 1 ? 'are' : 'is'} set: turn TLS on or unset them`,
    );
  if (
    env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION !== undefined &&
    /^(1|true)$/i.test(env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION)
  )
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
      "the TypeScript SDK always verifies the server's certificate: set TEMPORAL_TLS_SERVER_NAME to the name the certificate carries, and TEMPORAL_TLS_SERVER_CA_CERT_PATH to its CA",
    );
}

/**
 * TLS with TLS on: the client pair (both or neither) and the CA read and parsed here, so that a file a
 * rotation left half-written or wrong is refused naming its variable, not reported later by the TLS library
 * as an unreachable server. `source` describes it for the start-up line.
 */
function loadTls(
  env: Env,
  tlsConfig: TlsConfig | undefined,
  profileName: string,
): { tls: TemporalTls; source: string } {
  const certName = tlsSource(env, 'TEMPORAL_TLS_CLIENT_CERT_PATH', 'tls.client_cert_path', profileName);
  const keyName = tlsSource(env, 'TEMPORAL_TLS_CLIENT_KEY_PATH', 'tls.client_key_path', profileName);
  const caName = tlsSource(env, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'tls.server_ca_cert_path', profileName);
  if (tlsConfig?.clientCert && !tlsConfig.clientKey)
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      'a client certificate is given without its key',
    );
  if (tlsConfig?.clientKey && !tlsConfig.clientCert)
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'a client key is given without its certificate',
    );
  const crt = readSource(tlsConfig?.clientCert, certName);
  const key = readSource(tlsConfig?.clientKey, keyName);
  const ca = readSource(tlsConfig?.serverCACert, caName);
  if (crt && key) checkClientPair(crt, certName, key, keyName);
  if (ca) parseCertificates(ca, caName);
  const serverName = tlsConfig?.serverName;
  return {
    tls: {
      ...(serverName ? { serverNameOverride: serverName } : {}),
      ...(ca ? { serverRootCACertificate: ca } : {}),
      ...(crt && key ? { clientCertPair: { crt, key } } : {}),
    },
    source: `TLS${crt ? ' with a client certificate (mTLS)' : ''}${ca ? ', CA from settings' : ', system CAs'}${serverName ? `, server name ${serverName}` : ''}`,
  };
}

/** What `Connection.connect` and `NativeConnection.connect` take, for `address` (the settings' or a dev server's). */
export function connectionOptions(
  settings: TemporalConnectionSettings,
  address: string,
): { address: string; tls?: TemporalTls; apiKey?: string; metadata?: Record<string, string> } {
  return {
    address,
    ...(settings.tls ? { tls: settings.tls } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey.value } : {}),
    ...(Object.keys(settings.metadata).length > 0 ? { metadata: settings.metadata } : {}),
  };
}

/** How the product reaches Temporal, for its start-up line: the sources, never a secret. */
export function describeConnection(settings: TemporalConnectionSettings): string {
  return settings.sources.length > 0 ? settings.sources.join('; ') : 'plaintext, no credentials';
}

/** A live connection whose API key can be replaced: the client's Connection and the worker's NativeConnection. */
export interface KeyedConnection {
  setApiKey(apiKey: string): unknown;
}

/**
 * Applies a rotated key file (SCHEDULER_TEMPORAL_API_KEY_FILE) to live connections, without a restart: the
 * file is polled (a Kubernetes secret volume swaps a symlink, which an inotify watch on the file misses) and
 * each new key is set on every connection, for the calls that follow. A file that cannot be read or is empty
 * keeps the key in force, loudly. Returns the function that stops watching.
 */
export function watchApiKeyFile(
  settings: TemporalConnectionSettings,
  connections: () => KeyedConnection[],
  log: (line: string) => void,
  intervalMs = 2000,
): () => void {
  const file = settings.apiKey?.file;
  if (!file) return () => {};
  let current = settings.apiKey!.value;
  const reload = () => {
    let next: string;
    try {
      next = readApiKeyFile(file);
    } catch (err) {
      log(`Temporal API key not reloaded, keeping the one in force: ${(err as Error).message}`);
      return;
    }
    if (next === current) return;
    current = next;
    void Promise.all(connections().map(async (c) => await c.setApiKey(next))).then(
      () => log(`Temporal API key reloaded from ${file}`),
      (err: Error) => log(`Temporal API key from ${file} not applied to every connection: ${err.message}`),
    );
  };
  watchFile(file, { interval: intervalMs }, reload);
  // The key was read before the connections were made, seconds ago: a rotation meanwhile is taken now.
  reload();
  return () => unwatchFile(file);
}
