import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ENV } from '../shared/config/environment.js';
import { METRIC, outcomeMetric, UNEXPECTED_ERROR_OUTCOME, upstreamCallsMetric } from '../shared/metrics/names.js';
import { processingSettingsFromEnv, type ProcessingSettings } from '../shared/config/processing-settings.js';
import { createSecretsManagerReader } from '../shared/config/secret-reader.js';
import { capFields } from '../shared/text/index.js';
import { createDocumentClient, createLedger, type Clock, type Ledger } from '../shared/ledger/index.js';
import {
  DEFAULT_MIN_CALL_MS,
  createInvocationBudget,
  createOpenApiClient,
  environmentCredentials,
  secretsManagerCredentials,
  type InvocationBudget,
} from '../shared/openapi/index.js';
import {
  createProcessor,
  eventIds,
  instrumentPointsApi,
  outcomeFields,
  recordOutcomeMetrics,
  type Checkpoint,
  type MetricsSink,
  type PointsApi,
  type ProcessOutcome,
} from '../shared/points/index.js';

/**
 * process-events: SQS FIFO -> the points processor, one record at a time, with partial batch
 * responses. A message whose outcome says `retry` fails; so do the later messages of its group
 * (FIFO order), while other groups go on.
 */

export interface ProcessEventsLogger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export type ProcessEventsDeps = {
  ledger: Ledger;
  openapi: PointsApi;
  settings: ProcessingSettings;
  clock: Clock;
  logger: ProcessEventsLogger;
  metrics: MetricsSink & { publishStoredMetrics(): void };
  checkpoint?: Checkpoint;
  /** The invocation's time left, shared with the Open API client built here (see shared/openapi/budget.ts). */
  budget?: InvocationBudget;
};

export type ProcessEventsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

class RetryLater extends Error {
  constructor(readonly outcome: ProcessOutcome) {
    super(`retry: ${outcome.kind}`);
  }
}

export function makeHandler(deps: ProcessEventsDeps): ProcessEventsHandler {
  const { logger, metrics } = deps;
  // UpstreamErrors / SampleCount(UpstreamLatency) is the upstream failure rate alarm
  // (infra/constructs/alarms.ts): business answers (customer unknown, not enough points) are not failures.
  const openapi = instrumentPointsApi(deps.openapi, ({ operation, ms, upstreamFailure }) => {
    metrics.addMetric(METRIC.upstreamLatency, 'Milliseconds', ms);
    if (upstreamFailure) metrics.addMetric(METRIC.upstreamErrors, 'Count', 1);
    metrics.addMetric(upstreamCallsMetric(operation), 'Count', 1);
  });
  const processor = createProcessor({ ...deps, openapi });
  const budget = deps.budget ?? createInvocationBudget();

  const recordHandler = async (record: SQSRecord) => {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1');
    const body = parseJson(record.body);
    const where = { messageId: record.messageId, receiveCount, ...eventIds(body) };
    let outcome: ProcessOutcome;
    try {
      const left = budget.remainingMs();
      // Not started (nothing claimed, nothing called): back to the queue rather than cut off by the timeout.
      outcome =
        left !== undefined && left < DEFAULT_MIN_CALL_MS
          ? { kind: 'upstream_error', action: 'retry', errorKind: 'timeout', reason: 'too little time left in this invocation to start' }
          : await processor.process(body, { receiveCount });
    } catch (e) {
      // A bug or an infrastructure failure (DynamoDB): the message goes back, the lease expires.
      logger.error('event failed', { ...where, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
      metrics.addMetric(outcomeMetric(UNEXPECTED_ERROR_OUTCOME), 'Count', 1);
      throw e;
    }
    const line = { ...where, ...outcomeFields(outcome) };
    if (outcome.kind === 'invalid_event') logger.error('event processed', line);
    else if (outcome.action === 'retry') logger.warn('event processed', line);
    else logger.info('event processed', line);
    recordOutcomeMetrics(metrics, outcome);
    if (outcome.action === 'retry') throw new RetryLater(outcome);
  };

  return async (event, context) => {
    // One processor per invocation: it keeps the batch's state.
    const batch = new SqsFifoPartialProcessorAsync();
    if (context) budget.start(() => context.getRemainingTimeInMillis());
    try {
      return await processPartialResponse(event, recordHandler, batch, {
        ...(context ? { context } : {}),
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      });
    } finally {
      budget.end();
      metrics.publishStoredMetrics();
    }
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function depsFromEnvironment(env: NodeJS.ProcessEnv, overrides: Partial<ProcessEventsDeps> = {}): ProcessEventsDeps {
  const settings = overrides.settings ?? processingSettingsFromEnv(env);
  const clock = overrides.clock ?? Date.now;
  const secretId = env[ENV.OPENAPI_SECRET_ARN];
  const budget = overrides.budget ?? createInvocationBudget();
  return {
    budget,
    settings,
    clock,
    ledger: overrides.ledger ?? ledgerFromEnv(env, settings, clock),
    openapi:
      overrides.openapi ??
      createOpenApiClient({
        credentials: secretId
          ? secretsManagerCredentials(secretId, createSecretsManagerReader())
          : environmentCredentials(env),
        ratePerMinute: settings.rateBudgetPerMinute,
        remainingMs: budget.remainingMs,
      }),
    logger: overrides.logger ?? powertoolsLogger(env),
    metrics:
      overrides.metrics ??
      new Metrics({
        namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'LoyaltyPoints',
        serviceName: env.POWERTOOLS_SERVICE_NAME ?? 'process-events',
      }),
    ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
  };
}

function powertoolsLogger(env: NodeJS.ProcessEnv): ProcessEventsLogger {
  const logger = new Logger({ serviceName: env.POWERTOOLS_SERVICE_NAME ?? 'process-events' });
  return {
    // Texts from upstream and from the event itself are bounded (about 1 KB each).
    info: (message, extra = {}) => logger.info(message, capFields(extra)),
    warn: (message, extra = {}) => logger.warn(message, capFields(extra)),
    error: (message, extra = {}) => logger.error(message, capFields(extra)),
  };
}

function ledgerFromEnv(env: NodeJS.ProcessEnv, settings: ProcessingSettings, clock: Clock): Ledger {
  const tableName = env[ENV.LEDGER_TABLE];
  if (!tableName) throw new Error(`${ENV.LEDGER_TABLE} is not set: the ledger table name is required`);
  const endpoint = env[ENV.DYNAMODB_ENDPOINT];
  const client = createDocumentClient(
    endpoint
      ? // Local (dynalite): any region and key are accepted.
        { endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {},
  );
  return createLedger({ client, tableName, clock, ttlDays: settings.ledgerTtlDays, leaseSeconds: settings.leaseSeconds });
}

let lambdaHandler: ProcessEventsHandler | undefined;

/** The Lambda entry point: dependencies are built from process.env on the first invocation, then kept. */
export const handler: ProcessEventsHandler = async (event, context) => {
  lambdaHandler ??= makeHandler(depsFromEnvironment(process.env));
  return lambdaHandler(event, context);
};
