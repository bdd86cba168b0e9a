import { activityFromEnvironment, activityOf, watchBreaker, watchCalls } from '../activity/index.js';
import { ENV, processingSettingsFromEnv } from '../config/index.js';
import { powertoolsLogger } from '../logging/index.js';
import { powertoolsMetrics } from '../metrics/index.js';
import { createInvocationBudget, createOpenApiClient, credentialsFromEnvironment } from '../openapi/index.js';
import { createCircuitBreaker } from '../retry/index.js';
import { pullDeps, queueDeps, visibilityDeps } from './aws.js';
import { redemptionUsageOn } from './redemption.js';
import { sendersDeps } from './senders.js';
import { customersOn, lazyLedgerTable, ledgerOn, privacyOn } from './stores.js';
import type { WorkerDeps, WorkerOverrides } from './types.js';

/**
 * The worker's parts as the environment says (the Lambda's, the local stack's), each replaceable by an
 * override. Nothing here calls out: clients and SDKs are built now and connect on first use.
 */
export function workerDepsFromEnvironment(env: NodeJS.ProcessEnv, overrides: WorkerOverrides = {}): WorkerDeps {
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
  const ledgerTable = lazyLedgerTable(env, overrides.documentClient);
  const sharedClient = env[ENV.LEDGER_TABLE] ? () => ledgerTable().client : undefined;
  const activity = overrides.activity ?? activityFromEnvironment(env, logger, sharedClient);
  const customers = overrides.customers ?? customersOn(env, ledgerTable, settings, clock, openapi);
  const privacy = overrides.privacy ?? privacyOn(env, ledgerTable, settings, clock);
  // The activity record rides on the ledger's own writes: a purchase costs no write for it.
  const ledger = overrides.ledger ?? ledgerOn(ledgerTable(), settings, clock, activity);
  const redemption = overrides.redemption ?? redemptionUsageOn(env, ledgerTable, ledger, openapi, logger, clock);
  return {
    budget,
    settings,
    clock,
    ledger,
    ...(redemption ? { redemption } : {}),
    // Observed, not changed: the grants' markers and answers, the breaker's transitions (shared/activity).
    openapi: activity ? watchCalls(openapi, activity, clock) : openapi,
    breaker: activity ? watchBreaker(breaker, activity, env.AWS_LAMBDA_LOG_STREAM_NAME ?? `local-${process.pid}`) : breaker,
    ...activityOf(activity),
    ...(customers ? { customers } : {}),
    ...(privacy ? { privacy } : {}),
    ...sendersDeps(env, overrides),
    logger,
    metrics: overrides.metrics ?? powertoolsMetrics(env, 'process-events'),
    ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
    ...visibilityDeps(env, overrides),
    ...queueDeps(env, overrides),
    ...pullDeps(env, overrides, ledgerTable),
    ...(overrides.random ? { random: overrides.random } : {}),
  };
}
