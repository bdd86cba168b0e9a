import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
// shared/config by single files, as function entries import it (see receive-webhook.ts): what a function bundles
// and loads stays what it names, whatever the index comes to export.
import { ENV } from '../shared/config/environment.js';
import { METRIC, outcomeMetric, UNEXPECTED_ERROR_OUTCOME, upstreamCallsMetric } from '../shared/metrics/names.js';
import { processingSettingsFromEnv, type ProcessingSettings } from '../shared/config/processing-settings.js';
import { createSecretsManagerReader, type SecretReader } from '../shared/config/secret-reader.js';
import { SMAREGI_ENV, smaregiFromEnv } from '../shared/smaregi/index.js';
import { SQUARE_ORDERS_ENV, squareOrdersFromEnv } from '../shared/square-orders/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import type * as logging from '../shared/logging/index.js';
import { powertoolsLogger } from '../shared/logging/powertools-logger.js';
import { powertoolsMetrics } from '../shared/metrics/powertools-metrics.js';
import { createDocumentClient, createLedger, type Clock, type Ledger } from '../shared/ledger/index.js';
import {
  DEFAULT_MIN_CALL_MS,
  createInvocationBudget,
  createOpenApiClient,
  environmentCredentials,
  secretsManagerCredentials,
  type InvocationBudget,
} from '../shared/openapi/index.js';
import { createSqsVisibility, type MessageVisibility, type VisibilityChange } from '../shared/queue/index.js';
import { createCircuitBreaker, deferralFor, type CircuitBreaker, type Verdict } from '../shared/retry/index.js';
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
  type ProcessorDeps,
} from '../shared/points/index.js';

/**
 * process-events: SQS FIFO -> the points processor, one record at a time, with partial batch
 * responses. A message whose outcome says `retry` fails; so do the later messages of its group
 * (FIFO order), while other groups go on.
 */

export type ProcessEventsLogger = logging.Logger;

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
  /** Defers waiting messages (ChangeMessageVisibility): SQS in AWS, the local queue under `npm start`. */
  visibility?: MessageVisibility;
  /** The container's circuit breaker (default: one per handler, i.e. per container). */
  breaker?: CircuitBreaker;
  /** Jitter source for deferrals (tests pass a fixed one). */
  random?: () => number;
  /** Square's Orders API per source (sources earning on their orders without tax). */
  squareOrders?: ProcessorDeps['squareOrders'];
  /** Smaregi's Platform API per source (its webhooks name transactions only). */
  smaregi?: ProcessorDeps['smaregi'];
};

export type ProcessEventsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

class RetryLater extends Error {
  constructor(readonly outcome: ProcessOutcome) {
    super(`retry: ${outcome.kind}`);
  }
}

/** The breaker is open: the event goes back without calling the service. */
class CircuitOpen extends Error {
  constructor() {
    super('retry: circuit_open (the Open API is failing; waiting for the next probe)');
  }
}

export function makeHandler(deps: ProcessEventsDeps): ProcessEventsHandler {
  const { logger, metrics } = deps;
  // UpstreamErrors / SampleCount(UpstreamLatency) is the upstream failure rate alarm
  // (infra/constructs/alarms.ts): business answers (customer unknown, not enough points) are not failures.
  const { settings } = deps;
  const random = deps.random ?? Math.random;
  const breaker = deps.breaker ?? createCircuitBreaker({ openMs: settings.circuitOpenSeconds * 1000, now: deps.clock });
  const openapi = instrumentPointsApi(deps.openapi, ({ operation, ms, upstreamFailure, errorKind }) => {
    metrics.addMetric(METRIC.upstreamLatency, 'Milliseconds', ms);
    if (upstreamFailure) metrics.addMetric(METRIC.upstreamErrors, 'Count', 1);
    metrics.addMetric(upstreamCallsMetric(operation), 'Count', 1);
    breaker.record(errorKind === undefined ? { ok: true } : { ok: false, errorKind });
  });
  const processor = createProcessor({ ...deps, openapi });
  const budget = deps.budget ?? createInvocationBudget();

  /** Deferral seconds chosen for this batch's messages (by message id). */
  const recordHandler = (delays: Map<string, number>, ran: Set<string>) => async (record: SQSRecord) => {
    ran.add(record.messageId);
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1');
    // Not Powertools batch's `parser` option: SqsFifoPartialProcessorAsync (2.35) takes no parser
    // config, and a body failing the schema would fail before this handler runs, with no recorded
    // `invalid_event` outcome. The processor checks the event schema and records that outcome itself.
    const body = parseJsonOrUndefined(record.body) ?? record.body; // not JSON: the text, refused as invalid_event
    const where = { messageId: record.messageId, receiveCount, ...eventIds(body) };
    const ageMs = Math.max(0, deps.clock() - Number(record.attributes?.SentTimestamp ?? deps.clock()));
    const defer = (verdict: Verdict, reason: string) => {
      if (!verdict.defer) {
        if (verdict.why === 'horizon_passed') logger.error('event waited past the retry horizon', { ...where, reason });
        return;
      }
      delays.set(record.messageId, verdict.seconds);
      metrics.addMetric(METRIC.eventsDeferred, 'Count', 1);
      metrics.addMetric(METRIC.deferredEventAgeSeconds, 'Seconds', Math.round(ageMs / 1000));
    };

    const admission = breaker.admit();
    if (admission === 'reject') {
      defer(deferralFor('circuit_open', { receive: receiveCount, ageMs }, settings, random, breaker.remainingMs() / 1000), 'circuit_open');
      throw new CircuitOpen();
    }
    let outcome: ProcessOutcome;
    try {
      const left = budget.remainingMs();
      // Not started (nothing claimed, nothing called): back to the queue rather than cut off by the timeout.
      outcome =
        left !== undefined && left < DEFAULT_MIN_CALL_MS
          ? { kind: 'upstream_error', action: 'retry', errorKind: 'timeout', reason: 'too little time left in this invocation to start' }
          : await processor.process(body, {
              receiveCount,
              ...(record.attributes?.MessageGroupId ? { groupId: record.attributes.MessageGroupId } : {}),
            });
    } catch (e) {
      // A bug or an infrastructure failure (DynamoDB): the message goes back, the lease expires.
      logger.error('event failed', { ...where, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
      metrics.addMetric(outcomeMetric(UNEXPECTED_ERROR_OUTCOME), 'Count', 1);
      throw e;
    } finally {
      if (admission === 'probe') breaker.probeDone();
    }
    const line = { ...where, ...outcomeFields(outcome) };
    if (outcome.kind === 'invalid_event') logger.error('event processed', line);
    else if (outcome.action === 'retry') logger.warn('event processed', line);
    else logger.info('event processed', line);
    recordOutcomeMetrics(metrics, outcome);
    if (outcome.action === 'retry') {
      defer(deferralFor(outcome.kind, { receive: receiveCount, ageMs }, settings, random), outcome.kind);
      throw new RetryLater(outcome);
    }
  };

  return async (event, context) => {
    // One processor per invocation: it keeps the batch's state.
    const batch = new SqsFifoPartialProcessorAsync();
    if (context) budget.start(() => context.getRemainingTimeInMillis());
    const delays = new Map<string, number>();
    const ran = new Set<string>();
    try {
      const response = await processPartialResponse(event, recordHandler(delays, ran), batch, {
        ...(context ? { context } : {}),
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      });
      await deferMessages(event, response, delays, ran);
      return response;
    } finally {
      budget.end();
      metrics.addMetric(METRIC.circuitBreakerOpen, 'Seconds', Math.round(breaker.openForMs() / 1000));
      metrics.publishStoredMetrics();
    }
  };

  /**
   * Waiting messages get their visibility set to their deferral; the later messages of their group
   * (failed unprocessed, to keep FIFO order) wait as long, so the group comes back together. Messages
   * that failed otherwise keep the queue's visibility timeout and spend their dead-letter budget.
   */
  async function deferMessages(event: SQSEvent, response: SQSBatchResponse, delays: Map<string, number>, ran: Set<string>) {
    const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    const groupDelay = new Map<string, number>();
    const changes: VisibilityChange[] = [];
    for (const record of event.Records) {
      if (!failed.has(record.messageId)) continue;
      const group = record.attributes?.MessageGroupId ?? '';
      let seconds = delays.get(record.messageId);
      const head = groupDelay.get(group);
      if (seconds === undefined && !ran.has(record.messageId) && head !== undefined) seconds = head;
      if (seconds === undefined) continue;
      if (head === undefined) groupDelay.set(group, seconds);
      changes.push({ receiptHandle: record.receiptHandle, eventSourceARN: record.eventSourceARN, seconds });
    }
    if (changes.length === 0 || deps.visibility === undefined) return;
    try {
      await deps.visibility.changeVisibility(changes);
    } catch (e) {
      // The messages come back after the queue's visibility timeout instead: later, never lost.
      logger.warn('deferral failed', { messages: changes.length, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
    }
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
        credentials: secretId ? secretsManagerCredentials(secretId, createSecretsManagerReader()) : environmentCredentials(env),
        ratePerMinute: settings.rateBudgetPerMinute,
        remainingMs: budget.remainingMs,
      }),
    ...squareOrdersDeps(env, overrides),
    ...smaregiDeps(env, overrides),
    logger: overrides.logger ?? powertoolsLogger(env, 'process-events'),
    metrics: overrides.metrics ?? powertoolsMetrics(env, 'process-events'),
    ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
    // In Lambda the worker defers waiting messages on the queue they came from (sqs:ChangeMessageVisibility);
    // elsewhere (tests, local) the caller passes its queue, or messages wait out the visibility timeout.
    ...(overrides.visibility || env.AWS_LAMBDA_FUNCTION_NAME ? { visibility: overrides.visibility ?? createSqsVisibility() } : {}),
    ...(overrides.breaker ? { breaker: overrides.breaker } : {}),
    ...(overrides.random ? { random: overrides.random } : {}),
  };
}

/** Square's Orders API, for sources earning on their orders without tax (env SQUARE_ORDERS). */
function squareOrdersDeps(env: NodeJS.ProcessEnv, overrides: Partial<ProcessEventsDeps>): Partial<Pick<ProcessEventsDeps, 'squareOrders'>> {
  let reader: SecretReader | undefined;
  const squareOrders =
    overrides.squareOrders ?? squareOrdersFromEnv(env[SQUARE_ORDERS_ENV], () => (reader ??= createSecretsManagerReader()));
  return squareOrders ? { squareOrders } : {};
}

/** Smaregi's Platform API, for sources whose webhooks name transactions only (env SMAREGI). */
function smaregiDeps(env: NodeJS.ProcessEnv, overrides: Partial<ProcessEventsDeps>): Partial<Pick<ProcessEventsDeps, 'smaregi'>> {
  let reader: SecretReader | undefined;
  const smaregi = overrides.smaregi ?? smaregiFromEnv(env[SMAREGI_ENV], () => (reader ??= createSecretsManagerReader()));
  return smaregi ? { smaregi } : {};
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
