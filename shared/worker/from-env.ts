import { activityFromEnv, activityOf, watchBreaker, watchCalls } from '../activity/index.js';
import { ENV, processingSettingsFromEnv } from '../config/index.js';
import { loggerFromEnv } from '../logging/index.js';
import { metricsFromEnv, upstreamCallsMetric } from '../metrics/index.js';
import { createInvocationBudget, createOpenApiClient, credentialsFromEnv } from '../openapi/index.js';
import { createCircuitBreaker } from '../retry/index.js';
import { upstreamBudgetFromEnv } from '../upstream/index.js';
import { pullFromEnv, queueFromEnv, visibilityFromEnv } from './aws.js';
import { redemptionUsageFromEnv } from './redemption.js';
import { sendersFromEnv } from './senders.js';
import { customersFromEnv, ledgerTableFromEnv, ledgerOn, privacyFromEnv, tillMirrorsFromEnv, tillReturnsFromEnv } from './stores.js';
import { workerTillMirrorFromEnv } from './till-mirror.js';
import type { WorkerDeps, WorkerOverrides } from './types.js';

/**
 * The worker's parts as the environment says (the Lambda's, the local stack's), each replaceable by an
 * override. Nothing here calls out: clients and SDKs are built now and connect on first use.
 */
export function workerDepsFromEnv(env: NodeJS.ProcessEnv, overrides: WorkerOverrides = {}): WorkerDeps {
  const settings = overrides.settings ?? processingSettingsFromEnv(env);
  const clock = overrides.clock ?? Date.now;
  const budget = overrides.budget ?? createInvocationBudget();
  const logger = overrides.logger ?? loggerFromEnv(env, 'process-events');
  const metrics = overrides.metrics ?? metricsFromEnv(env, 'process-events');
  const openapi =
    overrides.openapi ??
    createOpenApiClient({
      credentials: overrides.credentials ?? credentialsFromEnv(env),
      // The deployment's one budget (shared/upstream), on the ledger's document client.
      ...upstreamBudgetFromEnv(env, overrides.documentClient ? { client: overrides.documentClient } : {}),
      remainingMs: budget.remainingMs,
      ...(overrides.tokenScope === undefined ? {} : { tokenScope: overrides.tokenScope }),
      // Every request sent, per endpoint: the dashboard's upstream-calls figure and the budget alarm.
      onSend: (operation) => metrics.addMetric(upstreamCallsMetric(operation), 'Count', 1),
    });
  const breaker = overrides.breaker ?? createCircuitBreaker({ openMs: settings.circuitOpenSeconds * 1000, now: clock });
  // One document client for the ledger table, whoever of the ledger, the activity record and the customer records needs it.
  const ledgerTable = ledgerTableFromEnv(env, overrides.documentClient);
  const sharedClient = env[ENV.LEDGER_TABLE] ? () => ledgerTable().client : undefined;
  const activity = overrides.activity ?? activityFromEnv(env, logger, sharedClient);
  const customers = overrides.customers ?? customersFromEnv(env, ledgerTable, settings, clock, openapi);
  const privacy = overrides.privacy ?? privacyFromEnv(env, ledgerTable, settings, clock);
  // The activity record rides on the ledger's own writes: a purchase costs no write for it.
  const ledger = overrides.ledger ?? ledgerOn(ledgerTable(), settings, clock, activity);
  const redemption = overrides.redemption ?? redemptionUsageFromEnv(env, ledgerTable, ledger, openapi, logger, clock);
  const tillReturns = overrides.tillReturns ?? tillReturnsFromEnv(env, ledgerTable, settings, clock);
  const tillMirrors = overrides.tillMirrors ?? tillMirrorsFromEnv(env, ledgerTable, settings, clock);
  const senders = sendersFromEnv(env, overrides);
  const tillMirror =
    overrides.tillMirror ??
    workerTillMirrorFromEnv(env, {
      senders: senders.senders,
      steps: tillMirrors,
      openapi,
      logger,
      inDoubtSeconds: settings.inDoubtSeconds,
    });
  return {
    budget,
    settings,
    clock,
    ledger,
    ...(redemption ? { redemption } : {}),
    ...(tillReturns ? { tillReturns } : {}),
    ...(tillMirrors ? { tillMirrors } : {}),
    ...(tillMirror ? { tillMirror } : {}),
    // Observed, not changed: the grants' markers and answers, the breaker's transitions (shared/activity).
    openapi: activity ? watchCalls(openapi, activity, clock) : openapi,
    breaker: activity ? watchBreaker(breaker, activity, env.AWS_LAMBDA_LOG_STREAM_NAME ?? `local-${process.pid}`) : breaker,
    ...activityOf(activity),
    ...(customers ? { customers } : {}),
    ...(privacy ? { privacy } : {}),
    ...senders,
    logger,
    metrics,
    ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
    ...visibilityFromEnv(env, overrides),
    ...queueFromEnv(env, overrides),
    ...pullFromEnv(env, overrides, ledgerTable),
    ...(overrides.random ? { random: overrides.random } : {}),
  };
}
