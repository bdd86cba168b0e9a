import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ActivityRecorder, activityFromEnvironment, activityOf, watchBreaker, watchCalls } from '../shared/activity/index.js';
import {
  createSecretsManagerReader,
  ENV,
  type ProcessingSettings,
  processingSettingsFromEnv,
  requiredSetting,
  type SecretReader,
} from '../shared/config/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import { instrumentSmaregi, SMAREGI_ENV, smaregiFromEnv } from '../shared/smaregi/index.js';
import {
  batchHandler,
  createEventSourceMappingSwitch,
  isRecoveryTick,
  ledgerPlannedPause,
  openApiProbe,
  type PlannedPauseRecords,
  type RECOVERY_TICK,
  pauseOnOutage,
  resumeWhenUp,
  type BatchHandler,
  type PullSwitch,
  type RecoveryResult,
} from '../shared/consumer/index.js';
import { createCustomerRecords, type CustomerRecords, type EnrolApi, withCustomerEvents } from '../shared/customers/index.js';
import { type Clock, createLedger, createRedemptionLedger, type Ledger } from '../shared/ledger/index.js';
import type * as logging from '../shared/logging/index.js';
import { powertoolsLogger } from '../shared/logging/index.js';
import { METRIC, powertoolsMetrics, upstreamCallsMetric } from '../shared/metrics/index.js';
import {
  createInvocationBudget,
  type CredentialsProvider,
  createOpenApiClient,
  credentialsFromEnvironment,
  type InvocationBudget,
} from '../shared/openapi/index.js';
import {
  createProcessor,
  instrumentPointsApi,
  type Checkpoint,
  type MetricsSink,
  type PointsApi,
  type Processor,
  type ProcessorDeps,
} from '../shared/points/index.js';
import { createPrivacyRequests, type PrivacyDeps, withPrivacyEvents } from '../shared/privacy/index.js';
import { redemptionDepsFromEnv, type UsageDeps, withRedemptionUsage } from '../shared/redemption/index.js';
import { loadSources } from '../shared/sources/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../shared/quarantine/index.js';
import { createSqsQueue, createSqsVisibility, type EventQueue, type MessageVisibility } from '../shared/queue/index.js';
import { createCircuitBreaker, type CircuitBreaker } from '../shared/retry/index.js';
import { SQUARE_ORDERS_ENV, squareOrdersFromEnv } from '../shared/square-orders/index.js';

/**
 * process-events: SQS FIFO -> the points processor (shared/consumer: one record at a time, partial
 * batch responses; waiting events set aside, failing ones deferred towards the DLQ).
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
  /**
   * The queue the worker reads, to set a waiting message aside in a group of its own (shared/queue/aside.ts)
   * instead of holding its customer's group while it waits. Without it, waiting messages wait in place.
   */
  queue?: EventQueue;
  /** Pauses and resumes the worker's pulling (the event source mapping; the local queue under `npm start`). */
  pull?: PullSwitch;
  /** A planned pause (`npm run pause`): the recovery probe leaves pulling off until its end. */
  plannedPause?: PlannedPauseRecords;
  /** The container's circuit breaker (default: one per handler, i.e. per container). */
  breaker?: CircuitBreaker;
  /** Jitter source for deferrals (tests pass a fixed one). */
  random?: () => number;
  /** Square's Orders API per source (sources earning on their orders without tax). */
  squareOrders?: ProcessorDeps['squareOrders'];
  /** The activity record (best effort, never read to decide): each receive with its outcome and grant calls. */
  activity?: ActivityRecorder;
  /** Enrolling customers (the customer records, and the register call): customer events need it. */
  customers?: { records: CustomerRecords; openapi: EnrolApi };
  /** Smaregi's Platform API per source (its webhooks name transactions only). */
  smaregi?: ProcessorDeps['smaregi'];
  /** Redemptions (shared/redemption): orders using a code mark it used; refunds of such orders give points back. */
  redemption?: UsageDeps;
  /** Privacy requests (the ledger table's client, the quarantine): privacy events need it. */
  privacy?: Pick<PrivacyDeps, 'client' | 'tableName' | 'records' | 'quarantine' | 'requests'>;
};

export type ProcessEventsHandler = BatchHandler;

export function makeHandler(deps: ProcessEventsDeps): ProcessEventsHandler {
  const { metrics, settings } = deps;
  const breaker = deps.breaker ?? createCircuitBreaker({ openMs: settings.circuitOpenSeconds * 1000, now: deps.clock });
  // UpstreamErrors / SampleCount(UpstreamLatency) is the upstream failure rate alarm
  // (infra/constructs/alarms.ts): business answers (customer unknown, not enough points) are not failures.
  const openapi = instrumentPointsApi(deps.openapi, ({ operation, ms, upstreamFailure, errorKind }) => {
    metrics.addMetric(METRIC.upstreamLatency, 'Milliseconds', ms);
    if (upstreamFailure) metrics.addMetric(METRIC.upstreamErrors, 'Count', 1);
    metrics.addMetric(upstreamCallsMetric(operation), 'Count', 1);
    breaker.record(errorKind === undefined ? { ok: true } : { ok: false, errorKind });
    if (errorKind !== undefined && breaker.isOpen()) outagePause.failedWhileOpen();
  });
  // The service is down: stop pulling rather than set every queued event aside each breaker period.
  const outagePause = pauseOnOutage({
    pull: deps.pull,
    now: deps.clock,
    minIntervalMs: settings.circuitOpenSeconds * 1000,
    logger: deps.logger,
  });
  const customers = deps.customers && { ...deps.customers, ledger: deps.ledger, clock: deps.clock, logger: deps.logger };
  const budget = deps.budget ?? createInvocationBudget();
  const privacy = deps.privacy && {
    ...deps.privacy,
    remainingMs: budget.remainingMs,
    ledger: deps.ledger,
    ledgerTtlDays: settings.ledgerTtlDays,
    clock: deps.clock,
    logger: deps.logger,
  };
  // SmaregiApiErrors: the alarm of that name (Smaregi down, throttling us, or the app's access revoked).
  const smaregi = deps.smaregi && instrumentSmaregi(deps.smaregi, () => metrics.addMetric(METRIC.smaregiApiErrors, 'Count', 1));
  // Orders using a redemption's code mark it used (and refunds give its points back) inside the activity scope too.
  const points = withRedemptionUsage(createProcessor({ ...deps, openapi, ...(smaregi ? { smaregi } : {}) }), deps.redemption);
  const processor = withActivityScope(withPrivacyEvents(withCustomerEvents(points, customers), privacy), deps.activity);
  // The breaker's half-open trial is the recovery probe's read, through the client it records (instrumented above).
  return batchHandler({ ...deps, breaker, outagePause, budget, probe: openApiProbe(openapi, 'shopify') }, processor);
}

/** Each receive runs in its activity scope, so what it observes rides on its ledger writes (shared/activity/carry.ts). */
function withActivityScope(processor: Processor, activity: ActivityRecorder | undefined): Processor {
  if (!activity) return processor;
  return {
    ...processor,
    process: (body, ctx = {}) =>
      ctx.messageId === undefined
        ? processor.process(body, ctx)
        : activity.within({ messageId: ctx.messageId, receiveCount: ctx.receiveCount ?? 1, body }, () => processor.process(body, ctx)),
  };
}

/**
 * What a caller may give instead of what the environment would build: deps, the Open API credentials (the local
 * stack's store) and the ledger table's client (the bench counts at it).
 */
export type ProcessEventsOverrides = Partial<ProcessEventsDeps> & {
  credentials?: CredentialsProvider;
  documentClient?: LedgerTable['client'];
};

export function depsFromEnvironment(env: NodeJS.ProcessEnv, overrides: ProcessEventsOverrides = {}): ProcessEventsDeps {
  const settings = overrides.settings ?? processingSettingsFromEnv(env);
  const clock = overrides.clock ?? Date.now;
  const budget = overrides.budget ?? createInvocationBudget();
  const logger = overrides.logger ?? powertoolsLogger(env, 'process-events');
  const openapi =
    overrides.openapi ??
    createOpenApiClient({
      credentials: overrides.credentials ?? credentialsFromEnvironment(env),
      ratePerMinute: settings.rateBudgetPerMinute,
      remainingMs: budget.remainingMs,
    });
  const breaker = overrides.breaker ?? createCircuitBreaker({ openMs: settings.circuitOpenSeconds * 1000, now: clock });
  // One document client for the ledger table, whoever of the ledger, the activity record and the customer records needs it.
  let table: LedgerTable | undefined;
  const ledgerTable = () => (table ??= ledgerTableFromEnv(env, overrides.documentClient));
  const sharedClient = env[ENV.LEDGER_TABLE] ? () => ledgerTable().client : undefined;
  const activity = overrides.activity ?? activityFromEnvironment(env, logger, sharedClient);
  const customers = overrides.customers ?? customersFromEnv(env, ledgerTable, settings, clock, openapi);
  const privacy = overrides.privacy ?? privacyFromEnv(env, ledgerTable, settings, clock);
  const ledger = overrides.ledger ?? ledgerFromEnv(ledgerTable(), settings, clock, activity);
  const redemption = overrides.redemption ?? redemptionUsageFromEnv(env, ledgerTable, ledger, openapi, logger, clock);
  return {
    budget,
    settings,
    clock,
    // The activity record rides on the ledger's own writes: a purchase costs no write for it.
    ledger,
    ...(redemption ? { redemption } : {}),
    // Observed, not changed: the grants' markers and answers, the breaker's transitions (shared/activity).
    openapi: activity ? watchCalls(openapi, activity, clock) : openapi,
    breaker: activity ? watchBreaker(breaker, activity, env.AWS_LAMBDA_LOG_STREAM_NAME ?? `local-${process.pid}`) : breaker,
    ...activityOf(activity),
    ...(customers ? { customers } : {}),
    ...(privacy ? { privacy } : {}),
    ...squareOrdersDeps(env, overrides),
    ...smaregiDeps(env, overrides),
    logger,
    metrics: overrides.metrics ?? powertoolsMetrics(env, 'process-events'),
    ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
    // In Lambda the worker defers waiting messages on the queue they came from (sqs:ChangeMessageVisibility);
    // elsewhere (tests, local) the caller passes its queue, or messages wait out the visibility timeout.
    ...(overrides.visibility || env.AWS_LAMBDA_FUNCTION_NAME ? { visibility: overrides.visibility ?? createSqsVisibility() } : {}),
    // Waiting events are set aside on the queue they came from (sqs:SendMessage on it).
    ...queueDeps(env, overrides),
    ...pullDeps(env, overrides, ledgerTable),
    ...(overrides.random ? { random: overrides.random } : {}),
  };
}

function queueDeps(env: NodeJS.ProcessEnv, overrides: Partial<ProcessEventsDeps>): Partial<Pick<ProcessEventsDeps, 'queue'>> {
  if (overrides.queue) return { queue: overrides.queue };
  const queueUrl = env[ENV.QUEUE_URL];
  return queueUrl ? { queue: createSqsQueue({ queueUrl }) } : {};
}

/** In Lambda, pulling is the function's event source mapping (paused while the Open API is down). */
function pullDeps(
  env: NodeJS.ProcessEnv,
  overrides: Partial<ProcessEventsDeps>,
  ledgerTable: () => LedgerTable,
): Partial<Pick<ProcessEventsDeps, 'pull' | 'plannedPause'>> {
  // The planned pause is a record of the ledger table (shared/consumer/planned-pause.ts).
  const planned = overrides.plannedPause ?? (env[ENV.LEDGER_TABLE] ? ledgerPlannedPause(ledgerTable()) : undefined);
  const plannedPause = planned ? { plannedPause: planned } : {};
  if (overrides.pull) return { pull: overrides.pull, ...plannedPause };
  const parameterName = env[ENV.PULL_MAPPING_PARAMETER];
  return parameterName ? { pull: createEventSourceMappingSwitch({ parameterName }), ...plannedPause } : {};
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

function ledgerFromEnv(
  { client, tableName }: LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
  activity?: ActivityRecorder,
): Ledger {
  const carried = activity ? { activity: activity.ledger } : {};
  return createLedger({ client, tableName, clock, ttlDays: settings.ledgerTtlDays, leaseSeconds: settings.leaseSeconds, ...carried });
}

type LedgerTable = { client: ReturnType<typeof documentClientFromEnv>; tableName: string };

function ledgerTableFromEnv(env: NodeJS.ProcessEnv, client?: LedgerTable['client']): LedgerTable {
  const tableName = requiredSetting(env, ENV.LEDGER_TABLE, 'the ledger table name is required');
  return { client: client ?? documentClientFromEnv(env), tableName };
}

/** The customer records live in the ledger table; enrolment needs the full client (register), not a narrowed one. */
function customersFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
  openapi: PointsApi,
) {
  if (!env[ENV.LEDGER_TABLE] || !('registerMember' in openapi)) return undefined;
  const { client, tableName } = ledgerTable();
  const records = createCustomerRecords({ client, tableName, clock, leaseSeconds: settings.leaseSeconds, ttlDays: settings.ledgerTtlDays });
  return { records, openapi: openapi as PointsApi & EnrolApi };
}

/** The sources that redeem, each with its redemption records (in the ledger table). */
function redemptionUsageFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  ledger: Ledger,
  openapi: PointsApi,
  logger: ProcessEventsLogger,
  clock: Clock,
): UsageDeps | undefined {
  if (!env[ENV.LEDGER_TABLE] || !('getMemberByExternalId' in openapi)) return undefined;
  const sources = loadSources(env[ENV.SOURCES_CONFIG]);
  const api = openapi as unknown as Parameters<typeof redemptionDepsFromEnv>[3]['openapi'];
  const bySource = new Map<string, ReturnType<typeof redemptionDepsFromEnv>>();
  for (const name of sources.keys()) {
    const { client, tableName } = ledgerTable();
    const ledgerOf = createRedemptionLedger({ client, tableName, clock });
    bySource.set(name, redemptionDepsFromEnv(env, sources, name, { openapi: api, logger, ledger: ledgerOf, now: clock }));
  }
  if (![...bySource.values()].some((d) => d !== undefined)) return undefined;
  return { redemption: (source) => bySource.get(source), ledger };
}

/** Privacy requests change the ledger table and the quarantine table (its bodies). */
function privacyFromEnv(env: NodeJS.ProcessEnv, ledgerTable: () => LedgerTable, settings: ProcessingSettings, clock: Clock) {
  const quarantineTable = env[ENV.QUARANTINE_TABLE];
  if (!env[ENV.LEDGER_TABLE] || !quarantineTable) return undefined;
  const { client, tableName } = ledgerTable();
  const records = createCustomerRecords({ client, tableName, clock, leaseSeconds: settings.leaseSeconds, ttlDays: settings.ledgerTtlDays });
  // ttlDays: only for entries the worker never creates (intake keeps them).
  const quarantine = createQuarantineStore({ client, tableName: quarantineTable, clock, ttlDays: DEFAULT_QUARANTINE_TTL_DAYS });
  return { client, tableName, records, quarantine, requests: createPrivacyRequests({ client, tableName, clock }) };
}

/** Probes between checks of a paused upstream, within one scheduled invocation. */
export const RECOVERY_PROBE_INTERVAL_MS = 10_000;

/**
 * The scheduled recovery probe: when the worker has paused its pulling, it probes the Open API every
 * few seconds for as long as the invocation allows, and resumes pulling on the first answer.
 */
export function makeRecovery(deps: ProcessEventsDeps): (context?: Context) => Promise<RecoveryResult> {
  const probe = openApiProbe(deps.openapi, 'shopify');
  return async (context) => {
    if (deps.pull === undefined) return 'running';
    const now = Date.now;
    const left = context ? context.getRemainingTimeInMillis() : RECOVERY_PROBE_INTERVAL_MS;
    const result = await resumeWhenUp({
      pull: deps.pull,
      probe,
      now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      intervalMs: RECOVERY_PROBE_INTERVAL_MS,
      // Ends a probe interval plus a margin before the Lambda timeout.
      untilMs: now() + left - 2 * RECOVERY_PROBE_INTERVAL_MS,
      ...(deps.plannedPause ? { planned: deps.plannedPause } : {}),
    });
    if (result !== 'running') deps.logger.warn('recovery probe', { result });
    // The dashboard's "Pulling paused" widget: one datapoint a minute, 1 while pulling is off (planned or outage).
    deps.metrics.addMetric(METRIC.pullingPaused, 'Count', result === 'planned' || result === 'still_down' ? 1 : 0);
    deps.metrics.publishStoredMetrics();
    return result;
  };
}

let lambdaDeps: ProcessEventsDeps | undefined;
let lambdaHandler: ProcessEventsHandler | undefined;

/** The Lambda entry point: dependencies are built from process.env on the first invocation, then kept. */
export const handler = async (event: SQSEvent | typeof RECOVERY_TICK, context: Context): Promise<SQSBatchResponse | RecoveryResult> => {
  lambdaDeps ??= depsFromEnvironment(process.env);
  if (isRecoveryTick(event)) return makeRecovery(lambdaDeps)(context);
  lambdaHandler ??= makeHandler(lambdaDeps);
  return lambdaHandler(event as SQSEvent, context);
};
