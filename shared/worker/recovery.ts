import type { Context } from 'aws-lambda';
import { openApiProbe, type RecoveryResult, resumeWhenUp } from '../consumer/index.js';
import { METRIC } from '../metrics/index.js';
import type { WorkerDeps } from './types.js';

/** Probes between checks of a paused upstream, within one scheduled invocation. */
export const RECOVERY_PROBE_INTERVAL_MS = 10_000;

export type WorkerRecovery = (context?: Context) => Promise<RecoveryResult>;

/**
 * The scheduled recovery probe: when the worker has paused its pulling, it probes the Open API every
 * few seconds for as long as the invocation allows, and resumes pulling on the first answer.
 */
export function workerRecovery(deps: WorkerDeps): WorkerRecovery {
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
