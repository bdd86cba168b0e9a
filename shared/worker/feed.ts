import { type OutagePause, pauseOnOutage } from '../consumer/index.js';
import { METRIC } from '../metrics/index.js';
import { instrumentPointsApi, type PointsApi } from '../points/index.js';
import { type CircuitBreaker, isUnsentKind } from '../retry/index.js';
import type { WorkerDeps } from './types.js';

/**
 * The Open API client as the worker uses it: every call feeds the metrics and the circuit breaker, and a
 * failure while the breaker is open pauses pulling (the service is down: stop pulling rather than set
 * every queued event aside each breaker period).
 */
export function breakerFed(
  deps: Pick<WorkerDeps, 'openapi' | 'metrics' | 'settings' | 'pull' | 'clock' | 'logger'>,
  breaker: CircuitBreaker,
): { openapi: PointsApi; outagePause: OutagePause } {
  const { metrics } = deps;
  const outagePause = pauseOnOutage({
    pull: deps.pull,
    now: deps.clock,
    minIntervalMs: deps.settings.circuitOpenSeconds * 1000,
    logger: deps.logger,
  });
  // UpstreamErrors / SampleCount(UpstreamLatency) is the upstream failure rate alarm
  // (infra/constructs/alarms.ts): business answers (customer unknown, not enough points) are not failures.
  // Calls per endpoint are counted as they are sent, by the client (from-env.ts: onSend).
  const openapi = instrumentPointsApi(deps.openapi, ({ ms, upstreamFailure, errorKind }) => {
    // A call our client refused before sending (no slot of the budget, a closing lease) took no time
    // upstream: no latency sample, nor a sample in the failure rate's denominator.
    if (errorKind === undefined || !isUnsentKind(errorKind)) metrics.addMetric(METRIC.upstreamLatency, 'Milliseconds', ms);
    if (upstreamFailure) metrics.addMetric(METRIC.upstreamErrors, 'Count', 1);
    breaker.record(errorKind === undefined ? { ok: true } : { ok: false, errorKind });
    if (errorKind !== undefined && !isUnsentKind(errorKind) && breaker.isOpen()) outagePause.failedWhileOpen();
  });
  return { openapi, outagePause };
}
