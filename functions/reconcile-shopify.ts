import type { MetricUnit } from '@aws-lambda-powertools/metrics';
import { type ActivityRecorder, activityFromEnv, activityOf } from '../shared/activity/index.js';
import { createSecretsManagerReader, ENV, requiredSetting, type SecretReader } from '../shared/config/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import { createLedger, type Ledger } from '../shared/ledger/index.js';
import { loggerFromEnv } from '../shared/logging/index.js';
import { metricsFromEnv } from '../shared/metrics/index.js';
import { createSqsQueue, type EventQueue } from '../shared/queue/index.js';
import { type ReconcileResult, type ReconcileSources, reconcileSourcesFrom, runShopifyReconcile } from '../shared/reconcile/index.js';
import {
  type AdminAccessToken,
  createShopifyAdminClient,
  type ShopifyAdminClient,
  secretsManagerAdminToken,
  shopifySource,
} from '../shared/sources/shopify/index.js';
import { loadSourcesOfKind, type SourceSet } from '../shared/sources/index.js';

/**
 * reconcile-shopify: on an EventBridge schedule, one run per configured Shopify source (the rule's
 * input names it): reads the orders updated in the last `lookbackHours` from the Admin API and queues
 * the events the ledger never saw, on the same FIFO queue the webhooks feed. Metric ReconcileMissing
 * (dimension source): events Shopify did not deliver.
 */

export interface ReconcileShopifyInput {
  source: string;
}

export interface ReconcileShopifyDeps {
  sources: SourceSet;
  reconcile: ReconcileSources;
  ledger: Pick<Ledger, 'getOrder' | 'getRefund'>;
  queue: EventQueue;
  adminClient: (source: string, settings: ReconcileSources[string]) => ShopifyAdminClient;
  logger: {
    info(m: string, e?: Record<string, unknown>): void;
    warn(m: string, e?: Record<string, unknown>): void;
    error(m: string, e?: Record<string, unknown>): void;
  };
  metrics: {
    addDimension(name: string, value: string): void;
    addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): void;
    publishStoredMetrics(): void;
  };
  now: () => Date;
  /** Where the run's summary is filed for the operator console (best effort). */
  activity?: ActivityRecorder;
}

export function makeHandler(deps: ReconcileShopifyDeps): (input: ReconcileShopifyInput) => Promise<ReconcileResult> {
  return async (input) => {
    const name = input?.source;
    const settings = typeof name === 'string' ? deps.reconcile[name] : undefined;
    const source = typeof name === 'string' ? deps.sources.get(name) : undefined;
    if (name === undefined || settings === undefined || source === undefined || source.kind !== 'shopify') {
      // A rule the stack did not write: fail loudly (function errors alarm), nothing is read.
      throw new Error(`reconcile-shopify: no reconciled Shopify source ${String(name).slice(0, 40)}`);
    }
    const client = deps.adminClient(name, settings);
    try {
      return await runShopifyReconcile(deps, { name, source, settings, client });
    } finally {
      deps.metrics.publishStoredMetrics();
      await client.close();
    }
  };
}

export function depsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<ReconcileShopifyDeps> & { secrets?: SecretReader } = {},
): ReconcileShopifyDeps {
  const reader = overrides.secrets ?? createSecretsManagerReader();
  const tableName = overrides.ledger ? '' : requiredSetting(env, ENV.LEDGER_TABLE);
  const queueUrl = overrides.queue ? '' : requiredSetting(env, ENV.QUEUE_URL);
  const sources = overrides.sources ?? loadSourcesOfKind(env[ENV.SOURCES_CONFIG], shopifySource);
  // One token per shop for the container's life: a granted one is renewed, not fetched per run.
  const tokens = new Map<string, AdminAccessToken>();
  const tokenOf = (name: string, s: { shopDomain: string; accessTokenSecretArn: string }) => {
    const known = tokens.get(name);
    if (known) return known;
    const made = secretsManagerAdminToken(s.accessTokenSecretArn, reader, { shopDomain: s.shopDomain });
    tokens.set(name, made);
    return made;
  };
  const logger = overrides.logger ?? loggerFromEnv(env, 'reconcile-shopify');
  return {
    sources,
    reconcile: overrides.reconcile ?? reconcileSourcesFrom(env[ENV.RECONCILE_SOURCES]),
    ledger: overrides.ledger ?? createLedger({ client: documentClientFromEnv(env), tableName, clock: Date.now }),
    queue: overrides.queue ?? createSqsQueue({ queueUrl }),
    adminClient:
      overrides.adminClient ??
      ((name, s) => {
        const token = tokenOf(name, s);
        const apiVersion = sources.get(name)?.subscriptions?.().apiVersion;
        return createShopifyAdminClient({
          shopDomain: s.shopDomain,
          ...(apiVersion ? { apiVersion } : {}),
          accessToken: () => token.get(),
          accessTokenRejected: (t) => token.rejected(t),
        });
      }),
    logger,
    metrics: overrides.metrics ?? metricsFromEnv(env, 'reconcile-shopify'),
    now: overrides.now ?? (() => new Date()),
    ...activityOf(overrides.activity ?? activityFromEnv(env, logger)),
  };
}

let lambdaHandler: ((input: ReconcileShopifyInput) => Promise<ReconcileResult>) | undefined;

/** The Lambda entry point (EventBridge schedule, input {"source": "<name>"}). */
export const handler = async (input: ReconcileShopifyInput): Promise<ReconcileResult> => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(input);
};
