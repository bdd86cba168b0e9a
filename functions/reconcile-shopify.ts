import type { MetricUnit } from '@aws-lambda-powertools/metrics';
// shared/config, queue and sources by single files, not their indexes: the bundle holds, and Node loads, only
// what this function runs.
import { type ActivityRecorder, activityFromEnvironment, activityOf, recordedRun } from '../shared/activity/index.js';
import { ENV } from '../shared/config/environment.js';
import { createSecretsManagerReader, type SecretReader } from '../shared/config/secret-reader.js';
import { createDocumentClient, createLedger, type Ledger } from '../shared/ledger/index.js';
import { powertoolsMetrics } from '../shared/metrics/powertools-metrics.js';
import { powertoolsLogger } from '../shared/logging/powertools-logger.js';
import { recordRun, summaryLine } from '../shared/reconcile/run-report.js';
import { createSqsQueue } from '../shared/queue/sqs-queue.js';
import type { EventQueue } from '../shared/queue/types.js';
import { reconcileShopify, type ReconcileResult, type ReconcileSources, reconcileSourcesFrom } from '../shared/reconcile/index.js';
import {
  type AdminAccessToken,
  createShopifyAdminClient,
  type ShopifyAdminClient,
  secretsManagerAdminToken,
} from '../shared/shopify-admin/index.js';
import { loadSources, type SourceSet } from '../shared/sources/registry.js';

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
    // Webhooks of the last few minutes may still be queued: the window ends before them.
    const until = new Date(deps.now().getTime() - settings.settleMinutes * 60_000);
    const since = new Date(until.getTime() - settings.lookbackHours * 3_600_000);
    const client = deps.adminClient(name, settings);
    const missed: string[] = [];
    try {
      const result = await recordedRun(
        deps.activity,
        'reconcile',
        () => deps.now().getTime(),
        () =>
          reconcileShopify(
            {
              client,
              ledger: deps.ledger,
              source,
              shopDomain: settings.shopDomain,
              queue: deps.queue,
              now: deps.now,
              onMissing: (m) => {
                missed.push(`${m.kind} ${m.eventId} (${m.orderName}) queued`);
                deps.logger.warn('webhook never delivered: queued from the Admin API', { source: name, ...m });
              },
              onProblem: (p) => deps.logger.error('could not reconcile', { source: name, ...p }),
            },
            { since, until, dryRun: false },
          ),
        (r) => ({ summary: `${name}: ${summaryLine(r)}`, findings: r.missing, details: missed }),
      );
      recordRun(deps, name, result, { since, until });
      return result;
    } finally {
      deps.metrics.publishStoredMetrics();
      await client.close();
    }
  };
}

export function depsFromEnvironment(
  env: NodeJS.ProcessEnv,
  overrides: Partial<ReconcileShopifyDeps> & { secrets?: SecretReader } = {},
): ReconcileShopifyDeps {
  const reader = overrides.secrets ?? createSecretsManagerReader();
  const tableName = env[ENV.LEDGER_TABLE];
  const queueUrl = env[ENV.QUEUE_URL];
  if (!overrides.ledger && !tableName) throw new Error(`${ENV.LEDGER_TABLE} is not set`);
  if (!overrides.queue && !queueUrl) throw new Error(`${ENV.QUEUE_URL} is not set`);
  const sources = overrides.sources ?? loadSources(env[ENV.SOURCES_CONFIG]);
  // One token per shop for the container's life: a granted one is renewed, not fetched per run.
  const tokens = new Map<string, AdminAccessToken>();
  const tokenOf = (name: string, s: { shopDomain: string; accessTokenSecretArn: string }) => {
    if (!tokens.has(name)) tokens.set(name, secretsManagerAdminToken(s.accessTokenSecretArn, reader, { shopDomain: s.shopDomain }));
    return tokens.get(name)!;
  };
  const logger = overrides.logger ?? powertoolsLogger(env, 'reconcile-shopify');
  return {
    sources,
    reconcile: overrides.reconcile ?? reconcileSourcesFrom(env[ENV.RECONCILE_SOURCES]),
    ledger: overrides.ledger ?? createLedger({ client: documentClient(env), tableName: tableName!, clock: Date.now }),
    queue: overrides.queue ?? createSqsQueue({ queueUrl: queueUrl! }),
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
    metrics: overrides.metrics ?? powertoolsMetrics(env, 'reconcile-shopify'),
    now: overrides.now ?? (() => new Date()),
    ...activityOf(overrides.activity ?? activityFromEnvironment(env, logger)),
  };
}

function documentClient(env: NodeJS.ProcessEnv) {
  const endpoint = env[ENV.DYNAMODB_ENDPOINT];
  return createDocumentClient(
    endpoint
      ? // Local (dynalite): any region and key are accepted.
        { endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {},
  );
}

let lambdaHandler: ((input: ReconcileShopifyInput) => Promise<ReconcileResult>) | undefined;

/** The Lambda entry point (EventBridge schedule, input {"source": "<name>"}). */
export const handler = async (input: ReconcileShopifyInput): Promise<ReconcileResult> => {
  lambdaHandler ??= makeHandler(depsFromEnvironment(process.env));
  return lambdaHandler(input);
};
