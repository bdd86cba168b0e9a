import { ConfigurationError, envInteger, processingSettingsFromEnv, workerConcurrency } from '../../shared/config/index.js';

/** The variable: how many workers `npm start` runs, each as a container of its own. */
export const WORKER_CONCURRENCY_ENV = 'WORKER_CONCURRENCY';
/** More workers than this in one process only measures the machine. */
export const MAX_LOCAL_WORKERS = 50;

/**
 * `npm start`'s workers: `WORKER_CONCURRENCY`, else what the stack derives from the budget
 * (`UPSTREAM_BUDGET_PER_MINUTE`) at the assumed mean latency (shared/config/throughput.ts): 13 at the default.
 * A bad value refuses to start, naming the variable.
 */
export function localWorkerCount(env: NodeJS.ProcessEnv): number {
  const derived = Math.min(MAX_LOCAL_WORKERS, workerConcurrency(processingSettingsFromEnv(env).upstreamBudgetPerMinute));
  return envInteger(
    env,
    WORKER_CONCURRENCY_ENV,
    { fallback: derived, min: 1, max: MAX_LOCAL_WORKERS },
    (raw) =>
      new ConfigurationError(
        'invalid_local_config',
        `${WORKER_CONCURRENCY_ENV} must be a whole number of workers from 1 to ${MAX_LOCAL_WORKERS}, got "${raw.slice(0, 20)}"`,
      ),
  );
}
