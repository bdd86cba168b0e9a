import * as z from 'zod';
import { ENV } from './environment.js';
import { createSecretsManagerReader, type SecretReader } from './secret-reader.js';
import { WebhookSecretsError } from './errors.js';
import { splitList } from './env-values.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { lazySchema } from '../schema/index.js';

/**
 * The signing secrets of each webhook source. Several at once (current first), so a rotation never
 * rejects an authentic delivery: Shopify keeps signing with the old secret for a while.
 */
export interface WebhookSecrets {
  /**
   * Valid secrets of a source. `forceRefresh` asks for a fresh read (after a signature mismatch,
   * in case the secret was just rotated); the reader rate-limits it, so it may return the cached value.
   */
  get(source: string, opts?: { forceRefresh?: boolean }): Promise<readonly string[]>;
}

/** The JSON a Secrets Manager secret holds: `{"secrets": ["current", "previous", ...]}`. */
export const WebhookSecretValue = lazySchema(() => z.object({ secrets: z.array(z.string().min(1)).min(1) }));

/** Fixed secrets (local runs and tests). */
export function staticWebhookSecrets(secrets: Readonly<Record<string, readonly string[]>>): WebhookSecrets {
  return {
    async get(source) {
      const list = Object.hasOwn(secrets, source) ? secrets[source] : undefined;
      if (!list || list.length === 0) throw new WebhookSecretsError('not_configured', source);
      return list;
    },
  };
}

export interface SecretsManagerWebhookSecretsOptions {
  /** Source name -> secret id (ARN or name). */
  secretIds: Readonly<Record<string, string>>;
  /**
   * A reader, or a loader for one (lets the handler load the AWS SDK only when first needed). Its
   * cache is the only one: its TTL says when a rotation shows, and its `minForcedRefreshMs` how often
   * a bad signature may force a read.
   */
  reader: SecretReader | (() => Promise<SecretReader>);
  /** Least length of each secret of a source (shared/config/secret-strength.ts); none when absent. */
  minLength?: (source: string) => number;
}

/** The list as is, or a `malformed` error naming the source and the rule (never a value). */
function longEnough(source: string, list: readonly string[], minLength: ((source: string) => number) | undefined): readonly string[] {
  const min = minLength?.(source) ?? 0;
  if (list.some((s) => s.length < min)) {
    throw new WebhookSecretsError(
      'malformed',
      source,
      undefined,
      `a webhook secret of source ${source} is too short: each must be at least ${min} characters`,
    );
  }
  return list;
}

/** Least time between two forced reads of one webhook secret, so bad signatures cannot flood Secrets Manager. */
const WEBHOOK_SECRET_MIN_REFRESH_MS = 60_000;

/** Secrets read from Secrets Manager, one secret per source, through the reader's cache. */
export function secretsManagerWebhookSecrets(opts: SecretsManagerWebhookSecretsOptions): WebhookSecrets {
  let reader: Promise<SecretReader> | undefined;
  const getReader = () => (reader ??= typeof opts.reader === 'function' ? opts.reader() : Promise.resolve(opts.reader));

  return {
    async get(source, getOpts) {
      const secretId = Object.hasOwn(opts.secretIds, source) ? opts.secretIds[source] : undefined;
      if (!secretId) throw new WebhookSecretsError('not_configured', source);
      let text: string;
      try {
        text = await (await getReader()).read(secretId, { forceRefresh: getOpts?.forceRefresh ?? false });
      } catch (e) {
        throw new WebhookSecretsError('unavailable', source, e);
      }
      // Not JSON: malformed, with no cause (a parse error would quote the secret text).
      const value = parseJsonOrUndefined(text);
      if (value === undefined) throw new WebhookSecretsError('malformed', source);
      const parsed = WebhookSecretValue.safeParse(value);
      if (!parsed.success) throw new WebhookSecretsError('malformed', source);
      return longEnough(source, parsed.data.secrets, opts.minLength);
    },
  };
}

const ARNS_MESSAGE = `${ENV.WEBHOOK_SECRET_ARNS} must be a JSON object {"<source>": "<secret ARN>"}`;

/** `shopify-eu` -> `SHOPIFY_EU`: the prefix of a source's local secret variables. */
function envPrefix(source: string): string {
  return source.toUpperCase().replace(/-/g, '_');
}

/**
 * From the environment: WEBHOOK_SECRET_ARNS (JSON {source: secret ARN}) when set; otherwise local
 * secrets, comma-separated, in `<SOURCE>_WEBHOOK_SECRETS` or `<SOURCE>_WEBHOOK_SECRET` (so
 * SHOPIFY_WEBHOOK_SECRET and POS_WEBHOOK_SECRETS; `shopify-eu` reads SHOPIFY_EU_WEBHOOK_SECRETS).
 */
export function webhookSecretsFromEnv(
  env: NodeJS.ProcessEnv,
  opts: { reader?: SecretReader | (() => Promise<SecretReader>); now?: () => number; minLength?: (source: string) => number } = {},
): WebhookSecrets {
  const arns = env[ENV.WEBHOOK_SECRET_ARNS];
  if (arns !== undefined && arns.trim() !== '') {
    const ids = z.record(z.string(), z.string().min(1)).safeParse(parseJsonOrUndefined(arns));
    if (!ids.success) throw new WebhookSecretsError('malformed', '*', undefined, ARNS_MESSAGE);
    const reader =
      opts.reader ??
      // Built on the first read. A static import (the SDK itself loads on the first read): in a bundle, a
      // dynamic import() of this module wrapped every module it reaches in a lazy-init function.
      (async () =>
        createSecretsManagerReader({
          minForcedRefreshMs: WEBHOOK_SECRET_MIN_REFRESH_MS,
          ...(opts.now ? { now: opts.now } : {}),
        }));
    return secretsManagerWebhookSecrets({ secretIds: ids.data, reader, ...(opts.minLength ? { minLength: opts.minLength } : {}) });
  }
  return {
    async get(source) {
      const prefix = envPrefix(source);
      const list = splitList(env[`${prefix}_WEBHOOK_SECRETS`] ?? env[`${prefix}_WEBHOOK_SECRET`]);
      if (list.length === 0) throw new WebhookSecretsError('not_configured', source);
      return longEnough(source, list, opts.minLength);
    },
  };
}
