import type { ActivityRecorder } from '../activity/index.js';
import { withCustomerEvents } from '../customers/index.js';
import type { InvocationBudget } from '../openapi/index.js';
import { createProcessor, type PointsApi, type Processor } from '../points/index.js';
import { withPrivacyEvents } from '../privacy/index.js';
import { withRedemptionUsage } from '../redemption/index.js';
import { instrumentSenders, SENDER_RESOLUTIONS, withSenderResolution } from '../sources/resolution.entry.js';
import { withTillMirrorEvents } from '../sources/smaregi/index.js';
import type { WorkerDeps } from './types.js';

/**
 * Everything the queue carries, each kind to its own: points events to the points processor (orders using
 * a redemption's code mark it used), customer events to shared/customers, privacy requests to
 * shared/privacy, till mirrors to shared/sources/smaregi; each receive in its activity scope.
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
  // A sender's API errors metric (SmaregiApiErrors): the alarm of that name (down, throttling us, or the app's access revoked).
  const clients = instrumentSenders(SENDER_RESOLUTIONS, deps.senders ?? {}, (metric) => metrics.addMetric(metric, 'Count', 1));
  const senders = { resolutions: SENDER_RESOLUTIONS, clients };
  // Thin events (Square's order amount, Smaregi's current state) are resolved by their sender before the protocol.
  const resolving = withSenderResolution(createProcessor({ ...deps, openapi }), senders, {
    ledger: deps.ledger,
    openapi,
    logger: deps.logger,
    tillReturns: deps.tillReturns,
    tillMirrors: deps.tillMirrors,
    inDoubtSeconds: settings.inDoubtSeconds,
    metrics,
    campaigns: settings.campaigns ?? [],
  });
  // Orders using a redemption's code mark it used (and refunds give its points back) inside the activity scope too.
  const points = withRedemptionUsage(resolving, deps.redemption && { ...deps.redemption, metrics });
  // The App Proxy's web legs, mirrored to the tills with the Smaregi access only the worker holds.
  const mirrored = withTillMirrorEvents(points, deps.tillMirror);
  return withActivityScope(withPrivacyEvents(withCustomerEvents(mirrored, customers), privacy), deps.activity);
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
