import * as z from 'zod';
import {
  ConfigurationError,
  createSecretsManagerReader,
  ENV,
  processingSettingsFromEnv,
  requiredSetting,
  type SecretReader,
} from '../config/index.js';
import { documentClientFromEnv } from '../dynamodb/index.js';
import { createRedemptionLedger, createTillMirrors } from '../ledger/index.js';
import type { Logger } from '../logging/index.js';
import type { OpenApiClient } from '../openapi/index.js';
import {
  createShopifyAdminClient,
  MIN_REDEMPTION_API_VERSION,
  redemptionApiVersionProblem,
  secretsManagerAdminToken,
  type ShopifyAdminClient,
} from '../sources/shopify/index.js';
import type { SourceSettingsSet } from '../sources/index.js';
import { createLegMirror, tillMirrorDepsFromEnv, tillPointsSourceOf } from '../sources/smaregi/index.js';
import type { EventQueue } from '../queue/index.js';
import { createQueuedLegMirror } from './till-mirror-queue.js';
import { parseJsonOrUndefined } from '../text/index.js';
import type { PendingSource } from './pending-source.js';
import type { RedemptionDeps } from './protocol.js';
import { lazySchema } from '../schema/index.js';
import { onceMatched, shopCurrencyProblem } from './shop-check.js';

/**
 * What a function that redeems (the App Proxy, the sweep) reads from its environment: the source's
 * redemption settings (SOURCES_CONFIG), the ledger table, and the shop's Admin API in
 * REDEMPTION_SHOPIFY_ADMIN: `{"shopDomain", "accessTokenSecretArn", "apiVersion"?}` in AWS (the token
 * secret the reconciliation uses), or `{"shopDomain", "origin", "accessToken"}` for the local stand-in.
 */
export const REDEMPTION_ADMIN_ENV = ENV.REDEMPTION_SHOPIFY_ADMIN;

/**
 * Under `npm start` only, where every function shares one environment: the App Proxy's own Admin
 * access (its discounts-only token), which the local stack gives it as its REDEMPTION_SHOPIFY_ADMIN,
 * as the stack gives the deployed function its own secret (appProxyEnvironment).
 */
export const APP_PROXY_REDEMPTION_ADMIN_ENV = 'LOCAL_APP_PROXY_SHOPIFY_ADMIN';

const AdminAccess = lazySchema(() =>
  z.union([
    z.object({ shopDomain: z.string().min(1), accessTokenSecretArn: z.string().min(1), apiVersion: z.string().optional() }).strict(),
    z
      .object({ shopDomain: z.string().min(1), origin: z.url(), accessToken: z.string().min(1), apiVersion: z.string().optional() })
      .strict(),
  ]),
);

export function adminClientFromEnv(env: NodeJS.ProcessEnv, reader: () => SecretReader): ShopifyAdminClient {
  const parsed = AdminAccess.safeParse(parseJsonOrUndefined(env[REDEMPTION_ADMIN_ENV] ?? ''));
  if (!parsed.success) {
    throw new ConfigurationError(
      'invalid_redemption_settings',
      `${REDEMPTION_ADMIN_ENV} must be JSON {shopDomain, accessTokenSecretArn} (or {shopDomain, origin, accessToken} locally)`,
    );
  }
  const access = parsed.data;
  if (access.apiVersion !== undefined && access.apiVersion < MIN_REDEMPTION_API_VERSION) {
    throw new ConfigurationError(
      'invalid_redemption_settings',
      `${REDEMPTION_ADMIN_ENV}: ${redemptionApiVersionProblem(access.apiVersion)}`,
    );
  }
  // A customer waits for the code: each call's deadline is short, the caller tries again (protocol.ts).
  const version = { deadlineMs: 5_000, ...(access.apiVersion ? { apiVersion: access.apiVersion } : {}) };
  if ('origin' in access) {
    const token = access.accessToken;
    return createShopifyAdminClient({ shopDomain: access.shopDomain, origin: access.origin, ...version, accessToken: async () => token });
  }
  const token = secretsManagerAdminToken(access.accessTokenSecretArn, reader(), { shopDomain: access.shopDomain });
  return createShopifyAdminClient({
    shopDomain: access.shopDomain,
    ...version,
    accessToken: () => token.get(),
    accessTokenRejected: (t) => token.rejected(t),
  });
}

/** The redemption dependencies of `source`, or undefined when it does not redeem (not configured, or disabled). */
export function redemptionDepsFromEnv(
  env: NodeJS.ProcessEnv,
  sources: SourceSettingsSet,
  source: string,
  parts: {
    openapi: RedemptionDeps['openapi'] | OpenApiClient;
    logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
    shopify?: RedemptionDeps['shopify'];
    ledger?: RedemptionDeps['ledger'];
    now?: () => number;
    /**
     * The App Proxy's queue: its web legs' till mirrors go through the worker (a `till_mirror` message),
     * never with Smaregi access of its own. Absent: a function holding that access (SMAREGI) mirrors directly.
     */
    tillMirrorQueue?: EventQueue;
  },
): RedemptionDeps | undefined {
  const linking = sources.get(source)?.customerLinking?.();
  const settings = linking?.redemption;
  if (!linking || !settings?.enabled) return undefined;
  let reader: SecretReader | undefined;
  const readerOnce = () => {
    reader ??= createSecretsManagerReader();
    return reader;
  };
  const now = parts.now ?? Date.now;
  const shopify = parts.shopify ?? lazyAdminClient(env, readerOnce);
  return {
    source,
    externalKey: linking.externalKey,
    settings,
    earnsLater: linking.earnsLater === true,
    pendingElsewhere: pendingElsewhere(sources, source),
    openapi: parts.openapi,
    shopify,
    // Once per container, before its first redemption deducts anything: the shop's currency is the setting's.
    shopProblem: onceMatched(() => shopCurrencyProblem({ shopify, settings, source })),
    ledger:
      parts.ledger ??
      createRedemptionLedger({ client: documentClientFromEnv(env), tableName: requiredSetting(env, ENV.LEDGER_TABLE), clock: now }),
    now,
    inDoubtSeconds: processingSettingsFromEnv(env).inDoubtSeconds,
    insufficientPointsPolicy: processingSettingsFromEnv(env).insufficientPointsPolicy,
    ...(parts.logger ? { logger: parts.logger } : {}),
    ...tillMirrorOf(env, sources, parts, readerOnce, now),
  };
}

/** The other sources earning after their sales (a till's `days`): the same member's provisional sales there are listed too. */
function pendingElsewhere(sources: SourceSettingsSet, redeeming: string): PendingSource[] {
  const found: PendingSource[] = [];
  for (const settings of sources.values()) {
    const linking = settings.name === redeeming ? undefined : settings.customerLinking?.();
    if (linking?.earnsLater) found.push({ source: settings.name, externalKey: linking.externalKey, memberLookup: linking.memberLookup });
  }
  return found;
}

/**
 * The first Smaregi source whose till points are the membership balance: through the queue (the App
 * Proxy), or directly when this function has that source's API access (the sweep, the worker).
 */
function tillMirrorOf(
  env: NodeJS.ProcessEnv,
  sources: SourceSettingsSet,
  parts: Parameters<typeof redemptionDepsFromEnv>[3],
  reader: () => SecretReader,
  now: () => number,
): Pick<RedemptionDeps, 'tillMirror'> {
  if (parts.tillMirrorQueue) {
    const source = tillPointsSourceOf(sources);
    if (!source) return {};
    const steps = createTillMirrors({ client: documentClientFromEnv(env), tableName: requiredSetting(env, ENV.LEDGER_TABLE), clock: now });
    return { tillMirror: createQueuedLegMirror({ source, steps, queue: parts.tillMirrorQueue, logger: parts.logger }) };
  }
  const direct =
    'getMember' in parts.openapi && 'listPoints' in parts.openapi
      ? tillMirrorDepsFromEnv(env, sources, { openapi: parts.openapi, logger: parts.logger }, reader, now)
      : undefined;
  return direct ? { tillMirror: createLegMirror(direct) } : {};
}

/** Made on first use: the worker marks codes used and gives points back without ever calling Shopify. */
function lazyAdminClient(env: NodeJS.ProcessEnv, reader: () => SecretReader): RedemptionDeps['shopify'] {
  let client: ShopifyAdminClient | undefined;
  return {
    graphql: (query, variables) => {
      client ??= adminClientFromEnv(env, reader);
      return client.graphql(query, variables);
    },
  };
}
