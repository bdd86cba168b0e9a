// Single files, not indexes, where an index would bundle more than this function runs.
import { type ActivityRecorder, activityFromEnv, activityOf } from '../shared/activity/index.js';
import { createSecretsManagerReader, ENV, requiredSetting, type SecretReader } from '../shared/config/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import { createLedgerReader, type LedgerReader } from '../shared/ledger/index.js';
import { loggerFromEnv } from '../shared/logging/index.js';
import { metricsFromEnv } from '../shared/metrics/index.js';
import { createSqsQueue, type EventQueue } from '../shared/queue/index.js';
import { runSmaregiReconcile } from '../shared/reconcile/index.js';
import { SMAREGI_ENV, type SmaregiClient, type SmaregiReconcileResult, smaregiFromEnv } from '../shared/sources/smaregi/index.js';
import { SmaregiSettings } from '../shared/sources/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import type { ReconcileShopifyDeps } from './reconcile-shopify.js';

/**
 * reconcile-smaregi: on an EventBridge schedule, one run per Smaregi source (the rule's input names it):
 * lists the contract's transactions updated in the last `reconcile.lookbackHours` (ending
 * `settleMinutes` ago, so webhooks still queued are not taken for missing) and queues, as thin events on
 * the webhooks' FIFO queue, those whose state the ledger does not show. Metric ReconcileMissing (source).
 */
export interface ReconcileSmaregiInput {
  source: string;
}

export interface ReconcileSmaregiDeps {
  settings: (source: string) => SmaregiSettings | undefined;
  client: (source: string) => Pick<SmaregiClient, 'listTransactions' | 'getTransaction'> | undefined;
  ledger: LedgerReader;
  queue: EventQueue;
  /** The Shopify reconcile's logger and metrics: the same sinks, the same dimension. */
  logger: ReconcileShopifyDeps['logger'];
  metrics: ReconcileShopifyDeps['metrics'];
  now: () => Date;
  /** Where the run's summary is filed for the operator console (best effort). */
  activity?: ActivityRecorder;
}

export function makeHandler(deps: ReconcileSmaregiDeps): (input: ReconcileSmaregiInput) => Promise<SmaregiReconcileResult> {
  return async (input) => {
    const name = input?.source;
    const settings = typeof name === 'string' ? deps.settings(name) : undefined;
    const client = typeof name === 'string' ? deps.client(name) : undefined;
    // A rule the stack did not write: fail loudly (function errors alarm), nothing is read.
    if (name === undefined || settings === undefined || client === undefined)
      throw new Error(`reconcile-smaregi: no Smaregi source ${String(name).slice(0, 40)}`);
    try {
      return await runSmaregiReconcile(deps, { name, settings, client });
    } finally {
      deps.metrics.publishStoredMetrics();
    }
  };
}

export function depsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<ReconcileSmaregiDeps> & { secrets?: SecretReader } = {},
): ReconcileSmaregiDeps {
  const tableName = overrides.ledger ? '' : requiredSetting(env, ENV.LEDGER_TABLE);
  const queueUrl = overrides.queue ? '' : requiredSetting(env, ENV.QUEUE_URL);
  const config = (parseJsonOrUndefined(env[ENV.SOURCES_CONFIG] ?? '') ?? {}) as Record<string, unknown>;
  let reader: SecretReader | undefined = overrides.secrets;
  const logger = overrides.logger ?? loggerFromEnv(env, 'reconcile-smaregi');
  const clients = smaregiFromEnv(env[SMAREGI_ENV], () => (reader ??= createSecretsManagerReader()));
  return {
    settings:
      overrides.settings ??
      ((source) => {
        const entry = config[source];
        if (typeof entry !== 'object' || entry === null) return undefined;
        const { kind, ...settings } = entry as Record<string, unknown>;
        return (kind ?? source) === 'smaregi' ? SmaregiSettings.parse(settings) : undefined;
      }),
    client: overrides.client ?? ((source) => clients?.(source)),
    ledger: overrides.ledger ?? createLedgerReader({ client: documentClientFromEnv(env), tableName }),
    queue: overrides.queue ?? createSqsQueue({ queueUrl }),
    logger,
    ...activityOf(overrides.activity ?? activityFromEnv(env, logger)),
    metrics: overrides.metrics ?? metricsFromEnv(env, 'reconcile-smaregi'),
    now: overrides.now ?? (() => new Date()),
  };
}

let lambdaHandler: ((input: ReconcileSmaregiInput) => Promise<SmaregiReconcileResult>) | undefined;

/** The Lambda entry point (EventBridge schedule, input {"source": "<name>"}). */
export const handler = async (input: ReconcileSmaregiInput): Promise<SmaregiReconcileResult> => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(input);
};
