/**
 * Where the client credentials come from. One interface, three sources: Secrets Manager (deployed),
 * environment variables or a JSON file (`npm start`, tests), or a fixed value.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { ConfigurationError, createSecretsManagerReader, ENV, type SecretReader } from '../config/index.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { lazyObject, lazySchema } from '../schema/index.js';

export interface OpenApiCredentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * During a rotation (`npm run rotate -- --openapi`): the client secret the membership service is
   * about to switch to, tried when the token endpoint refuses `clientSecret`.
   */
  nextClientSecret?: string;
}

export interface CredentialsProvider {
  /** `forceRefresh`: the cached value was refused upstream; read the source again. */
  get(opts?: { forceRefresh?: boolean }): Promise<OpenApiCredentials>;
}

/** Loopback hosts: plain http stays on this machine (the emulator, `npm start`). */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** https, or http to this machine only: the client secret and the tokens must not travel in clear. */
const httpUrl = lazySchema(() =>
  z.url({ protocol: /^https?$/ }).refine((u) => {
    const url = new URL(u);
    return url.protocol === 'https:' || LOOPBACK.test(url.hostname);
  }, 'must be https (plain http only to 127.0.0.1, localhost or [::1])'),
);

/** The secret's JSON (spec of the deployment: `{ base_url, client_id, client_secret }`). */
export const CredentialsSecret = lazyObject(z.object, () => ({
  base_url: httpUrl,
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  next_client_secret: z.string().min(1).optional(),
}));

function checked(c: OpenApiCredentials, source: string): OpenApiCredentials {
  const r = CredentialsSecret.safeParse({
    base_url: c.baseUrl,
    client_id: c.clientId,
    client_secret: c.clientSecret,
    ...(c.nextClientSecret === undefined ? {} : { next_client_secret: c.nextClientSecret }),
  });
  if (!r.success) {
    // Name the faulty fields only; the values may be secret.
    const fields = [...new Set(r.error.issues.map((i) => String(i.path[0])))].join(', ');
    throw new ConfigurationError('invalid_credentials', `${source}: missing or invalid ${fields}`);
  }
  return c;
}

function fromSecretJson(text: string, source: string): OpenApiCredentials {
  const raw = parseJsonOrUndefined(text);
  if (raw === undefined) throw new ConfigurationError('invalid_credentials', `${source}: not JSON`);
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const next = o.next_client_secret === undefined ? {} : { nextClientSecret: o.next_client_secret as string };
  return checked(
    { baseUrl: o.base_url as string, clientId: o.client_id as string, clientSecret: o.client_secret as string, ...next },
    source,
  );
}

export function staticCredentials(c: OpenApiCredentials): CredentialsProvider {
  const value = Promise.resolve(checked({ ...c }, 'static credentials'));
  return { get: () => value };
}

/** Secrets Manager secret holding `{ base_url, client_id, client_secret }`; the reader caches with a TTL. */
export function secretsManagerCredentials(secretId: string, reader: SecretReader): CredentialsProvider {
  return {
    async get(opts) {
      const text = await reader.read(secretId, { forceRefresh: opts?.forceRefresh ?? false });
      return fromSecretJson(text, `secret ${secretId}`);
    },
  };
}

/** A JSON file with the secret's shape, read again on every forced refresh. */
export function fileCredentials(path: string): CredentialsProvider {
  let cached: Promise<OpenApiCredentials> | undefined;
  const load = async () => fromSecretJson(await readFile(path, 'utf8'), `credentials file ${path}`);
  return {
    get(opts) {
      if (!cached || opts?.forceRefresh) {
        cached = load();
        cached.catch(() => (cached = undefined));
      }
      return cached;
    },
  };
}

/** OPENAPI_BASE_URL / OPENAPI_CLIENT_ID / OPENAPI_CLIENT_SECRET, read again on a forced refresh. */
export function plainCredentialsFromEnv(env: Record<string, string | undefined> = process.env): CredentialsProvider {
  const read = () =>
    checked(
      {
        baseUrl: env[ENV.OPENAPI_BASE_URL] ?? '',
        clientId: env[ENV.OPENAPI_CLIENT_ID] ?? '',
        clientSecret: env[ENV.OPENAPI_CLIENT_SECRET] ?? '',
      },
      'environment',
    );
  let cached: OpenApiCredentials | undefined;
  return {
    get: async (opts) => (cached = !cached || opts?.forceRefresh ? read() : cached),
  };
}

/** What a function logs in with: the secret OPENAPI_SECRET_ARN names (AWS), else the OPENAPI_* variables (locally). */
export function credentialsFromEnv(env: Record<string, string | undefined>): CredentialsProvider {
  const secretId = env[ENV.OPENAPI_SECRET_ARN];
  return secretId ? secretsManagerCredentials(secretId, createSecretsManagerReader()) : plainCredentialsFromEnv(env);
}
