import { type BatchHandler, batchHandler, openApiProbe } from '../consumer/index.js';
import { createInvocationBudget } from '../openapi/index.js';
import { createCircuitBreaker } from '../retry/index.js';
import { breakerFed } from './feed.js';
import { workerProcessor } from './processor.js';
import { withTimeToStart } from './time-to-start.js';
import type { WorkerDeps } from './types.js';

/**
 * SQS FIFO -> the points processor (shared/consumer: one record at a time, partial batch responses;
 * waiting events set aside, failing ones deferred towards the DLQ), around it the container's breaker.
 */
export function workerHandler(deps: WorkerDeps): BatchHandler {
  const breaker = deps.breaker ?? createCircuitBreaker({ openMs: deps.settings.circuitOpenSeconds * 1000, now: deps.clock });
  const { openapi, outagePause } = breakerFed(deps, breaker);
  const budget = deps.budget ?? createInvocationBudget();
  const processor = withTimeToStart(workerProcessor(deps, openapi, budget), budget);
  // The breaker's half-open trial is the recovery probe's read, through the client it records (breakerFed above).
  return batchHandler({ ...deps, breaker, outagePause, budget, probe: openApiProbe(openapi, 'shopify') }, processor);
}
