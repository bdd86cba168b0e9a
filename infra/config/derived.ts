import { ENV } from '../../shared/config/index.js';
import { effectiveLeaseSeconds, effectiveVisibilityTimeoutSeconds, type StageConfig, stageTiming } from './schema.js';
import { sourcesConfig } from './sources.js';

/** Values computed from a stage's configuration, in one place so the stack and the tests agree. */

export function secretPrefix(stage: StageConfig): string {
  return stage.secretPrefix ?? `loyalty-bridge/${stage.stageName}`;
}

export function webhookSecretName(stage: StageConfig, source: string): string {
  return stage.sources[source]?.webhookSecretName ?? `${secretPrefix(stage)}/webhook/${source}`;
}

export function leaseSeconds(stage: StageConfig): number {
  return effectiveLeaseSeconds(stage);
}

export function visibilityTimeoutSeconds(stage: StageConfig): number {
  return effectiveVisibilityTimeoutSeconds(stage);
}

/** Receives before the DLQ: configured, or derived from the retry horizon and backoff. */
export function maxReceiveCount(stage: StageConfig): number {
  return stageTiming(stage).maxReceiveCount;
}

function powertoolsEnvironment(stage: StageConfig): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: stage.observability.serviceName,
    POWERTOOLS_LOG_LEVEL: stage.observability.logLevel,
    POWERTOOLS_METRICS_NAMESPACE: stage.observability.metricsNamespace,
  };
}

export function receiverEnvironment(
  stage: StageConfig,
  refs: { queueUrl: string; webhookSecretArnsJson: string },
): Record<string, string> {
  return {
    [ENV.QUEUE_URL]: refs.queueUrl,
    [ENV.SOURCES_CONFIG]: JSON.stringify(sourcesConfig(stage.sources)),
    [ENV.WEBHOOK_SECRET_ARNS]: refs.webhookSecretArnsJson,
    // The replay window is derived from the ledger's retention: one setting for both.
    [ENV.LEDGER_TTL_DAYS]: String(stage.processing.ledgerTtlDays),
    ...powertoolsEnvironment(stage),
  };
}

export function workerEnvironment(
  stage: StageConfig,
  refs: { tableName: string; openApiSecretArn: string },
): Record<string, string> {
  return {
    [ENV.LEDGER_TABLE]: refs.tableName,
    [ENV.OPENAPI_SECRET_ARN]: refs.openApiSecretArn,
    [ENV.INSUFFICIENT_POINTS_POLICY]: stage.processing.insufficientPointsPolicy,
    [ENV.REFUND_WAIT_SECONDS]: String(stage.processing.refundWaitSeconds),
    [ENV.LEDGER_TTL_DAYS]: String(stage.processing.ledgerTtlDays),
    [ENV.LEASE_SECONDS]: String(leaseSeconds(stage)),
    [ENV.RETRY_BACKOFF_BASE_SECONDS]: String(stageTiming(stage).backoffBaseSeconds),
    [ENV.RETRY_BACKOFF_CAP_SECONDS]: String(stageTiming(stage).backoffCapSeconds),
    [ENV.RETRY_HORIZON_SECONDS]: String(stageTiming(stage).retryHorizonSeconds),
    [ENV.CIRCUIT_OPEN_SECONDS]: String(stageTiming(stage).circuitOpenSeconds),
    [ENV.RATE_BUDGET_PER_MINUTE]: String(stage.rate.budgetPerMinute),
    ...powertoolsEnvironment(stage),
  };
}

export function auditEnvironment(
  stage: StageConfig,
  refs: { tableName: string; openApiSecretArn: string },
): Record<string, string> {
  return {
    [ENV.LEDGER_TABLE]: refs.tableName,
    [ENV.OPENAPI_SECRET_ARN]: refs.openApiSecretArn,
    [ENV.RATE_BUDGET_PER_MINUTE]: String(stage.rate.budgetPerMinute),
    [ENV.AUDIT_DAYS]: String(stage.audit.days),
    ...powertoolsEnvironment(stage),
  };
}
