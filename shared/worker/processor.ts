import type { ActivityRecorder } from '../activity/index.js';
import { withCustomerEvents } from '../customers/index.js';
import type { InvocationBudget } from '../openapi/index.js';
import { createProcessor, type PointsApi, type Processor } from '../points/index.js';
import { withPrivacyEvents } from '../privacy/index.js';
import { withRedemptionUsage } from '../redemption/index.js';
import { instrumentSmaregi } from '../smaregi/index.js';
import { METRIC } from '../metrics/index.js';
import type { WorkerDeps } from './types.js';

/**
 * Everything the queue carries, each kind to its own: points events to the points processor (orders using
 * a redemption's code mark it used), customer events to shared/customers, privacy requests to
 * shared/privacy; each receive in its activity scope.
 */
export function workerProcessor(deps: WorkerDeps, openapi: PointsApi, budget: InvocationBudget): Processor {
  const { metrics, settings } = deps;
  const customers = deps.customers && { ...deps.customers, ledger: deps.ledger, clock: deps.clock, logger: deps.logger };
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
  return withActivityScope(withPrivacyEvents(withCustomerEvents(points, customers), privacy), deps.activity);
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
