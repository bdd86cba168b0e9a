import { redeemingShopify } from './redemption.js';
import { ENV, type ProcessingSettings, processingSettingsFromEnv } from '../../shared/config/index.js';
import { type StageConfig, stageTiming } from './schema.js';
import { sourcesConfig } from './sources.js';
import { loadSources, type SourceSet } from '../../shared/sources/index.js';

/** Values computed from a stage's configuration, in one place so the stack and the tests agree. */

export function secretPrefix(stage: StageConfig): string {
  return stage.secretPrefix ?? `loyalty-bridge/${stage.stageName}`;
}

/** The Smaregi app's client id and secret of a Smaregi source (the stack creates it; the worker, the reconcile and `npm run reconcile -- --stage` read it). */
export function smaregiCredentialsSecretName(stage: StageConfig, source: string): string {
  return `${secretPrefix(stage)}/smaregi-app/${source}`;
}

export function webhookSecretName(stage: StageConfig, source: string): string {
  return stage.sources[source]?.webhookSecretName ?? `${secretPrefix(stage)}/webhook/${source}`;
}

function powertoolsEnvironment(stage: StageConfig): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: stage.observability.serviceName,
    POWERTOOLS_LOG_LEVEL: stage.observability.logLevel,
    POWERTOOLS_METRICS_NAMESPACE: stage.observability.metricsNamespace,
  };
}

/** A function's environment: its own variables, then Powertools' (service, log level, namespace). */
export function functionEnvironment(stage: StageConfig, own: Record<string, string>): Record<string, string> {
  return { ...own, ...powertoolsEnvironment(stage) };
}

/** What every function that reads the ledger and calls the Open API needs (the worker, the audit). */
const ledgerAndOpenApi = (stage: StageConfig, refs: { tableName: string; openApiSecretArn: string }) =>
  functionEnvironment(stage, {
    [ENV.LEDGER_TABLE]: refs.tableName,
    [ENV.OPENAPI_SECRET_ARN]: refs.openApiSecretArn,
    [ENV.RATE_BUDGET_PER_MINUTE]: String(stage.rate.budgetPerMinute),
  });

export function receiverEnvironment(stage: StageConfig, refs: { queueUrl: string; webhookSecretArnsJson: string }): Record<string, string> {
  const sources = JSON.stringify(sourcesConfig(stage.sources));
  // The replay window is derived from the ledger's retention (LEDGER_TTL_DAYS): one setting for both.
  const retention = String(stage.processing.ledgerTtlDays);
  return functionEnvironment(stage, {
    [ENV.QUEUE_URL]: refs.queueUrl,
    [ENV.SOURCES_CONFIG]: sources,
    [ENV.WEBHOOK_SECRET_ARNS]: refs.webhookSecretArnsJson,
    [ENV.LEDGER_TTL_DAYS]: retention,
  });
}

export function workerEnvironment(stage: StageConfig, refs: { tableName: string; openApiSecretArn: string }): Record<string, string> {
  // A redeeming source: the worker marks codes used by orders and gives points back on refunds (its settings).
  const redeeming: Record<string, string> = redeemingShopify(stage)
    ? { [ENV.SOURCES_CONFIG]: JSON.stringify(sourcesConfig(stage.sources)) }
    : {};
  return { ...ledgerAndOpenApi(stage, refs), ...processingEnvironment(stage), ...redeeming };
}

/** The settings the stage's worker processes with, as it reads them (an operator command that processes uses the same). */
export function stageProcessingSettings(stage: StageConfig): ProcessingSettings {
  return processingSettingsFromEnv({ ...processingEnvironment(stage), [ENV.RATE_BUDGET_PER_MINUTE]: String(stage.rate.budgetPerMinute) });
}

/** The stage's sources as its functions read them (names, external keys, linking, topics). */
export function stageSources(stage: StageConfig): SourceSet {
  return loadSources(JSON.stringify(sourcesConfig(stage.sources)));
}

function processingEnvironment(stage: StageConfig): Record<string, string> {
  const timing = stageTiming(stage);
  return {
    [ENV.INSUFFICIENT_POINTS_POLICY]: stage.processing.insufficientPointsPolicy,
    [ENV.REFUND_WAIT_SECONDS]: String(stage.processing.refundWaitSeconds),
    [ENV.LEDGER_TTL_DAYS]: String(stage.processing.ledgerTtlDays),
    [ENV.LEASE_SECONDS]: String(timing.leaseSeconds),
    [ENV.RETRY_BACKOFF_BASE_SECONDS]: String(timing.backoffBaseSeconds),
    [ENV.RETRY_BACKOFF_CAP_SECONDS]: String(timing.backoffCapSeconds),
    [ENV.RETRY_HORIZON_SECONDS]: String(timing.retryHorizonSeconds),
    [ENV.CIRCUIT_OPEN_SECONDS]: String(timing.circuitOpenSeconds),
    [ENV.IN_DOUBT_SECONDS]: String(timing.inDoubtSeconds),
  };
}

/** The Shopify App Proxy's link function: the Shopify secret (it signs proxy requests), the Open API, the queue. */
export function appProxyEnvironment(
  stage: StageConfig,
  refs: { queueUrl: string; webhookSecretArnsJson: string; openApiSecretArn: string; redemption?: RedemptionRefs },
): Record<string, string> {
  return functionEnvironment(stage, {
    [ENV.QUEUE_URL]: refs.queueUrl,
    [ENV.SOURCES_CONFIG]: JSON.stringify(sourcesConfig(stage.sources)),
    [ENV.WEBHOOK_SECRET_ARNS]: refs.webhookSecretArnsJson,
    [ENV.OPENAPI_SECRET_ARN]: refs.openApiSecretArn,
    ...(refs.redemption ? redemptionVariables(stage, refs.redemption) : {}),
  });
}

/** What a redeeming function reads: the ledger table and the shop's Admin API (shared/redemption/environment.ts). */
export interface RedemptionRefs {
  tableName: string;
  shopDomain: string;
  tokenSecretArn: string;
  apiVersion?: string;
}

const redemptionVariables = (stage: StageConfig, r: RedemptionRefs): Record<string, string> => ({
  [ENV.LEDGER_TABLE]: r.tableName,
  // Deductions and give-backs keep the same in-doubt horizon as the worker's calls.
  [ENV.IN_DOUBT_SECONDS]: String(stageTiming(stage).inDoubtSeconds),
  [ENV.REDEMPTION_SHOPIFY_ADMIN]: JSON.stringify({
    shopDomain: r.shopDomain,
    accessTokenSecretArn: r.tokenSecretArn,
    ...(r.apiVersion ? { apiVersion: r.apiVersion } : {}),
  }),
});

/** The redemption sweep: the sources (their redemption settings), the ledger, the Open API and the Admin API. */
export function sweepEnvironment(stage: StageConfig, refs: RedemptionRefs & { openApiSecretArn: string }): Record<string, string> {
  return {
    ...ledgerAndOpenApi(stage, refs),
    [ENV.SOURCES_CONFIG]: JSON.stringify(sourcesConfig(stage.sources)),
    ...redemptionVariables(stage, refs),
  };
}

export function auditEnvironment(stage: StageConfig, refs: { tableName: string; openApiSecretArn: string }): Record<string, string> {
  // Its run summaries go to the activity record in the ledger table (the operator console's runs panel).
  // Its reversals run the worker's protocol: the same lease, in-doubt horizon and insufficient-points policy.
  return {
    ...ledgerAndOpenApi(stage, refs),
    ...processingEnvironment(stage),
    [ENV.AUDIT_DAYS]: String(stage.audit.days),
    [ENV.ACTIVITY_TABLE]: refs.tableName,
  };
}
