import { ENV, processingSettingsFromEnv } from '../config/index.js';
import { emfLine, METRICS_NAMESPACE, upstreamCallsMetric } from '../metrics/index.js';
import { documentClientFromEnv } from '../dynamodb/index.js';
import { ledgerBudgetStore } from '../ledger/index.js';
import {
  type BudgetClass,
  createOpenApiClient,
  createSharedBudget,
  type OpenApiClient,
  type OpenApiClientOptions,
} from '../openapi/index.js';

export type BudgetOptions = Pick<OpenApiClientOptions, 'upstreamBudget' | 'ratePerMinute'>;

export interface UpstreamBudgetContext {
  /** `storefront` for the App Proxy (it may take the reserved share), `bulk` for everyone else. */
  class?: BudgetClass;
  now?: () => number;
  /** The document client to reach the table with (one per container, shared with the ledger). */
  client?: ReturnType<typeof documentClientFromEnv>;
}

/**
 * The Open API client's pacing as the environment says: the deployment's shared budget
 * (`UPSTREAM_BUDGET_PER_MINUTE`, counted in the table `UPSTREAM_BUDGET_TABLE`: the ledger table) when
 * the function has the table, as every deployed one and `npm start` do; without it (a test, a bench of
 * one process), a per-container limiter at the same figure.
 */
export function upstreamBudgetFromEnv(env: NodeJS.ProcessEnv, context: UpstreamBudgetContext = {}): BudgetOptions {
  const perMinute = processingSettingsFromEnv(env).upstreamBudgetPerMinute;
  const tableName = env[ENV.UPSTREAM_BUDGET_TABLE];
  if (!tableName) return { ratePerMinute: perMinute };
  return upstreamBudgetOn({ client: context.client ?? documentClientFromEnv(env), tableName }, perMinute, context);
}

/** The shared budget over a table the caller already holds (the operator commands', the local stack's). */
export function upstreamBudgetOn(
  table: Parameters<typeof ledgerBudgetStore>[0],
  perMinute: number,
  context: Omit<UpstreamBudgetContext, 'client'> = {},
): BudgetOptions {
  const store = ledgerBudgetStore(table);
  return { upstreamBudget: createSharedBudget({ store, perMinute, class: context.class ?? 'bulk', now: context.now ?? Date.now }) };
}

/**
 * Counts each request sent as `UpstreamCalls_<endpoint>` (the dashboard's upstream-calls figure and the
 * budget alarm) for a function without Powertools Metrics (the App Proxy, the sweep): one EMF line per
 * request, on stdout, with the `service` dimension like the worker's. Nothing when the function's
 * metrics are off (`POWERTOOLS_METRICS_DISABLED`, Powertools Metrics' own switch): in-process runs (the
 * local stack unless its handler logs are `powertools`, the chaos harness), where no CloudWatch reads stdout.
 */
export function upstreamCallCounterFromEnv(env: NodeJS.ProcessEnv, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  if (metricsDisabled(env)) return (_operation: string): void => undefined;
  const service = env.POWERTOOLS_SERVICE_NAME ?? 'loyalty-points-bridge';
  const namespace = env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE;
  return (operation: string): void =>
    write(
      emfLine({
        namespace,
        dimensions: { service },
        metrics: { [upstreamCallsMetric(operation)]: { unit: 'Count', value: 1 } },
        timestamp: Date.now(),
      }),
    );
}

/** `POWERTOOLS_METRICS_DISABLED` read as Powertools reads its booleans (true, 1, yes, on). */
function metricsDisabled(env: NodeJS.ProcessEnv): boolean {
  return /^(true|1|yes|on)$/i.test((env.POWERTOOLS_METRICS_DISABLED ?? '').trim());
}

/**
 * A function's Open API client as the environment says: its credentials, drawing from the deployment's
 * one budget, every request it sends counted per endpoint (the figure the budget alarm reads).
 */
export function openApiClientFromEnv(
  env: NodeJS.ProcessEnv,
  credentials: OpenApiClientOptions['credentials'],
  context: UpstreamBudgetContext = {},
): OpenApiClient {
  return createOpenApiClient({ credentials, ...upstreamBudgetFromEnv(env, context), onSend: upstreamCallCounterFromEnv(env) });
}
