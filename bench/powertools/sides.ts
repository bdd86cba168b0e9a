import { depsFromEnv, makeHandler } from '../../functions/process-events.js';
import type { PurchaseEvent } from '../../shared/events/index.js';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../../shared/openapi/index.js';
import { productionWorkerEnv } from '../production.js';
import { refund, sqsEvent } from '../worker/events.js';
import { quiet, quietMetrics } from '../worker/harness.js';
import {
  createIdempotencyTable,
  lambdaContext,
  makePowertoolsHandler,
  makePowertoolsRefundHandler,
  type PowertoolsStep,
} from './handler.js';
import { CLIENT_TIMEOUT_MS, LAMBDA_TIMEOUT_MS, type PlannedEvent, type PlannedPurchase } from './plan.js';
import type { SideServers } from './servers.js';

/**
 * The two implementations behind one face, so the run gives both the same deliveries. An attempt may be
 * told to die at a line: its code then never gets past that line (the process is gone, as when a
 * Lambda is killed or times out); nothing after it runs, no clean-up either.
 */

export type CrashLine = 'before-call' | 'after-call';

export type SideName = 'bridge' | 'powertools' | 'powertoolsHistory';

export interface Side {
  name: SideName;
  /** One delivery of the event (`n`: which delivery of it, 1 for the first); true when the handler acknowledged it. */
  attempt(e: PlannedEvent, crash: CrashLine | undefined, n: number): Promise<boolean>;
  /** What the queue waits before it delivers a failed or lost attempt again (a lease or in-progress record lapses). */
  beforeRedelivery(): Promise<void>;
}

export const COMPARISON_CLIENT = { id: 'bench-compare', secret: 'bench-compare-secret' };

export function openApiClient(url: string): OpenApiClient {
  return createOpenApiClient({
    credentials: staticCredentials({ baseUrl: url, clientId: COMPARISON_CLIENT.id, clientSecret: COMPARISON_CLIENT.secret }),
    ratePerMinute: 1_000_000,
    timeouts: { connectMs: CLIENT_TIMEOUT_MS, headersMs: CLIENT_TIMEOUT_MS, bodyMs: CLIENT_TIMEOUT_MS },
  });
}

/** One crash per attempt: `arm` says where the next attempt dies; the returned promise settles when it has. */
function crashSwitch() {
  let armed: { line: CrashLine; died: () => void } | undefined;
  return {
    arm(line: CrashLine | undefined): Promise<false> {
      // An attempt that ended before its crash line (it threw earlier) must not leave the crash to the next one.
      armed = undefined;
      if (!line) return new Promise<false>(() => undefined);
      return new Promise<false>((resolve) => {
        armed = { line, died: () => resolve(false) };
      });
    },
    async at(line: CrashLine): Promise<void> {
      if (armed?.line !== line) return;
      const { died } = armed;
      armed = undefined;
      died();
      await new Promise<never>(() => undefined);
    },
  };
}

export function purchaseEvent(p: PlannedPurchase): PurchaseEvent {
  const receivedAt = new Date().toISOString();
  return {
    type: 'purchase',
    eventId: `shopify:order:${p.orderId}`,
    source: 'shopify',
    orderId: p.orderId,
    customer: { externalKey: 'shopify', externalId: p.externalId },
    currency: 'JPY',
    occurredAt: '2026-01-15T19:00:00+09:00',
    pointTitle: `Purchase #${p.orderId}`,
    test: false,
    delivery: { id: `d-${p.orderId}`, topic: 'orders/paid', receivedAt },
    eligibleAmount: p.amount,
    expiryDays: null,
  };
}

export async function bridgeSide(servers: SideServers): Promise<Side> {
  // The ledger's clock: a redelivery comes after the lease has lapsed (the queue's visibility timeout outlasts it).
  let offsetMs = 0;
  const clock = () => Date.now() + offsetMs;
  const crash = crashSwitch();
  // The worker as the production stack builds it (its environment, the activity record on), on this side's
  // dynalite (through the counting proxy) and the comparison's Open API client.
  const deps = depsFromEnv(productionWorkerEnv(servers.dynamo.tableName), {
    documentClient: servers.documentClient,
    openapi: openApiClient(servers.emulatorUrl),
    clock,
    logger: quiet,
    metrics: quietMetrics,
    // The same two boundaries as the Powertools side: before the grant (the order is held), after it.
    checkpoint: async (step) => {
      if (step === 'purchase:customer' || step === 'refund:order-claimed') await crash.at('before-call');
      if (step === 'purchase:granted' || step === 'refund:granted') await crash.at('after-call');
    },
  });
  const { settings } = deps;
  const handler = makeHandler(deps);
  return {
    name: 'bridge',
    attempt: (e, line, n) => {
      const died = crash.arm(line);
      const event = e.type === 'purchase' ? purchaseEvent(e) : refund(purchaseEvent(e.purchase), e.refundId, e.amount);
      const done = handler(sqsEvent(event, n)).then(
        (r) => r.batchItemFailures.length === 0,
        () => false,
      );
      return Promise.race([done, died]);
    },
    beforeRedelivery: async () => {
      offsetMs += (settings.leaseSeconds + 1) * 1000;
    },
  };
}

export async function powertoolsSide(servers: SideServers, tableName: string, historyCheck = false): Promise<Side> {
  await createIdempotencyTable(servers.dynamo.client, tableName);
  const crash = crashSwitch();
  const deps = {
    openapi: openApiClient(servers.emulatorUrl),
    client: servers.client,
    tableName,
    checkpoint: (step: PowertoolsStep) => crash.at(step === 'customer' ? 'before-call' : 'after-call'),
    historyCheck,
  };
  const purchase = makePowertoolsHandler(deps);
  const refundOf = makePowertoolsRefundHandler(deps);
  const source = 'shopify';
  return {
    name: historyCheck ? 'powertoolsHistory' : 'powertools',
    attempt: (e, line, attempt) => {
      const died = crash.arm(line);
      const context = lambdaContext(LAMBDA_TIMEOUT_MS);
      const { orderId, externalId, amount } = e;
      const run =
        e.type === 'purchase'
          ? purchase({ attempt, source, orderId, externalId, amount, title: `Purchase #${orderId}` }, context)
          : refundOf(
              {
                attempt,
                source,
                orderId,
                refundId: e.refundId,
                externalId,
                amount,
                orderAmount: e.purchase.amount,
                title: `Refund #${orderId}`,
              },
              context,
            );
      const done = run.then(
        () => true,
        () => false,
      );
      return Promise.race([done, died]);
    },
    // SQS makes a message visible again only after its visibility timeout, which AWS requires to be at
    // least the function's timeout: by then a dead attempt's in-progress record has lapsed.
    beforeRedelivery: () => new Promise((resolve) => setTimeout(resolve, LAMBDA_TIMEOUT_MS + 30)),
  };
}
