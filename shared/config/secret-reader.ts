/**
 * Reads secret strings from AWS Secrets Manager, cached in the container for `ttlMs` so a rotation is
 * picked up within that time, and at once when a caller asks for `forceRefresh` (for instance after
 * the upstream refused the cached credentials). Values never appear in errors.
 */
// Types only: the SDK module is loaded on the first read (see fetchSecret), so importing this file
// (the functions do, at cold start) does not evaluate the Secrets Manager client.
import type {
  GetSecretValueCommand,
  GetSecretValueCommandOutput,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

export interface SecretReader {
  read(secretId: string, opts?: { forceRefresh?: boolean }): Promise<string>;
}

export class SecretReadError extends Error {
  override readonly name = 'SecretReadError';
  constructor(
    readonly kind: 'unavailable' | 'not_a_string',
    readonly secretId: string,
    cause?: unknown,
  ) {
    super(
      kind === 'unavailable' ? `secret ${secretId} could not be read` : `secret ${secretId} holds no SecretString`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** The part of SecretsManagerClient used here (a real client fits; tests stub `send` at this boundary). */
export interface SecretValueSender {
  send(command: GetSecretValueCommand): Promise<Pick<GetSecretValueCommandOutput, 'SecretString'>>;
}

export interface SecretsManagerReaderOptions {
  client?: SecretsManagerClient | SecretValueSender;
  /** Default 300000 (5 minutes). */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  value?: string;
  readAt?: number;
  pending?: Promise<string>;
}

export function createSecretsManagerReader(opts: SecretsManagerReaderOptions = {}): SecretReader {
  const ttlMs = opts.ttlMs ?? 300_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let sdk: Promise<{ client: SecretValueSender; Command: typeof GetSecretValueCommand }> | undefined;
  // On the first read, not at import. Inside fetchSecret's try: a failed load is a read that failed.
  const loadSdk = () =>
    (sdk ??= import('@aws-sdk/client-secrets-manager').then((m) => ({
      client: opts.client ?? new m.SecretsManagerClient({}),
      Command: m.GetSecretValueCommand,
    })));

  async function fetchSecret(secretId: string): Promise<string> {
    let out;
    try {
      const { client, Command } = await loadSdk();
      out = await client.send(new Command({ SecretId: secretId }));
    } catch (e) {
      throw new SecretReadError('unavailable', secretId, e);
    }
    if (typeof out.SecretString !== 'string') throw new SecretReadError('not_a_string', secretId);
    return out.SecretString;
  }

  return {
    read(secretId, readOpts) {
      let entry = entries.get(secretId);
      if (!entry) entries.set(secretId, (entry = {}));
      // One read in flight per secret, forced or not: concurrent refreshers share it.
      if (entry.pending) return entry.pending;
      const fresh = entry.value !== undefined && entry.readAt !== undefined && now() - entry.readAt < ttlMs;
      if (fresh && !readOpts?.forceRefresh) return Promise.resolve(entry.value as string);
      const e = entry;
      const startedAt = now();
      e.pending = fetchSecret(secretId).then(
        (value) => {
          e.value = value;
          e.readAt = startedAt;
          e.pending = undefined;
          return value;
        },
        (err: unknown) => {
          e.pending = undefined;
          throw err;
        },
      );
      return e.pending;
    },
  };
}
