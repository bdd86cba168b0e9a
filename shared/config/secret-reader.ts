/**
 * Reads secret strings from AWS Secrets Manager, cached in the container for `ttlMs` so a rotation is
 * picked up within that time, and at once when a caller asks for `forceRefresh` (for instance after
 * the upstream refused the cached credentials), unless `minForcedRefreshMs` says the cached value is
 * too recent for that. Values never appear in errors.
 */
// Types only: the SDK module is loaded on the first read (see fetchSecret), so importing this file
// (the functions do, at cold start) does not evaluate the Secrets Manager client.
import type { GetSecretValueCommand, GetSecretValueCommandOutput, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createSingleFlightCache } from '../cache/index.js';
import { SecretReadError } from './errors.js';

/** How long a function keeps a secret it read (docs/deploy.md: a rotation shows within this time). */
export const SECRET_CACHE_TTL_MS = 300_000;

export interface SecretReader {
  read(secretId: string, opts?: { forceRefresh?: boolean }): Promise<string>;
}

/** The part of SecretsManagerClient used here (a real client fits; tests stub `send` at this boundary). */
export interface SecretValueSender {
  send(command: GetSecretValueCommand): Promise<Pick<GetSecretValueCommandOutput, 'SecretString'>>;
}

export interface SecretsManagerReaderOptions {
  client?: SecretsManagerClient | SecretValueSender;
  /** Default 300000 (5 minutes). */
  ttlMs?: number;
  /**
   * Least age of the cached value before `forceRefresh` reads again (default 0: always). Set it
   * where callers that cannot be trusted force refreshes (bad webhook signatures), so they cannot
   * flood Secrets Manager.
   */
  minForcedRefreshMs?: number;
  now?: () => number;
}

interface Read {
  value: string;
  /** When the read started (a rotation during the read shows at the next one). */
  readAt: number;
}

export function createSecretsManagerReader(opts: SecretsManagerReaderOptions = {}): SecretReader {
  const ttlMs = opts.ttlMs ?? SECRET_CACHE_TTL_MS;
  const minForcedRefreshMs = opts.minForcedRefreshMs ?? 0;
  const now = opts.now ?? Date.now;
  const reads = createSingleFlightCache<Read>();
  let sdk: Promise<{ client: SecretValueSender; Command: typeof GetSecretValueCommand }> | undefined;
  // On the first read, not at import. Inside fetchSecret's try: a failed load is a read that failed.
  const loadSdk = () =>
    (sdk ??= import('@aws-sdk/client-secrets-manager').then((m) => ({
      client: opts.client ?? new m.SecretsManagerClient({}),
      Command: m.GetSecretValueCommand,
    })));

  async function fetchSecret(secretId: string): Promise<string> {
    let out: Pick<GetSecretValueCommandOutput, 'SecretString'>;
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
      const force = readOpts?.forceRefresh ?? false;
      const usable = (cached: Read) => {
        const age = now() - cached.readAt;
        // Without a floor a forced refresh always reads, even if the clock stepped back.
        const forced = force && (minForcedRefreshMs === 0 || age >= minForcedRefreshMs);
        return age < ttlMs && !forced;
      };
      const load = async (): Promise<Read> => {
        const readAt = now();
        return { value: await fetchSecret(secretId), readAt };
      };
      // One read in flight per secret, forced or not: concurrent refreshers share it.
      return reads.get(secretId, usable, load).then((r) => r.value);
    },
  };
}
