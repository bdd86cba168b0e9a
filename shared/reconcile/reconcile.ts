import { fromFutureProblem } from '../intake/index.js';
import type { Ledger } from '../ledger/index.js';
import { PointsEvent } from '../events/index.js';
import { type EventQueue, queueMessageFor } from '../queue/index.js';
import {
  ADJUSTMENTS_LIMIT,
  type AdminOrder,
  legacyId,
  orderWebhookBody,
  type ReconcileTopic,
  REFUNDS_LIMIT,
  refundWebhookBody,
  type ShopifyAdminClient,
  webhookRequest,
} from '../sources/shopify/index.js';
import type { ConfiguredSource } from '../sources/index.js';
import { ConfigurationError } from '../config/index.js';

/**
 * Reconciliation with Shopify: every paid order (and its refunds, and its cancellation) updated in a
 * window is read from the Admin API, turned into the event its webhook would have produced (through
 * the Shopify source's own parse and normalise), and queued when the ledger has no record of it.
 * Queued events take the normal path (queue -> process-events -> ledger claim), so an event that
 * reconcile and its late webhook both deliver is still credited or debited once.
 */

/** Financial states of an order that was paid at some point (orders/paid fired). */
const PAID_STATES = new Set(['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED']);

export interface MissingEvent {
  kind: 'purchase' | 'refund' | 'cancellation';
  eventId: string;
  orderId: string;
  orderName: string | null;
  occurredAt: string;
}

export interface ReconcileProblem {
  eventId: string;
  message: string;
}

export interface ReconcileDeps {
  client: Pick<ShopifyAdminClient, 'orders' | 'refund' | 'orderLines'>;
  ledger: Pick<Ledger, 'getOrder' | 'getRefund'>;
  /** The configured Shopify source (its settings decide amounts, test orders, titles). */
  source: ConfiguredSource;
  shopDomain: string;
  /** Where missing events go: the same queue the webhooks feed. */
  queue: EventQueue;
  now: () => Date;
  /** Progress lines (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** Each event found missing, before it is queued. */
  onMissing?: (event: MissingEvent) => void;
  onProblem?: (problem: ReconcileProblem) => void;
}

export interface ReconcileOptions {
  since: Date;
  until: Date;
  /** List what is missing, queue nothing. */
  dryRun: boolean;
}

export interface ReconcileResult {
  /** Paid orders, their refunds and cancellations examined. */
  scanned: number;
  /** Of those, events the ledger had no record of. */
  missing: number;
  enqueued: number;
  /** Events that could not be mapped or read (each reported through onProblem). */
  problems: number;
}

export function checkWindow(since: Date, until: Date): void {
  if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime()))
    throw new ConfigurationError('invalid_window', 'since and until must be ISO 8601 dates');
  if (since.getTime() >= until.getTime()) throw new ConfigurationError('invalid_window', 'since must be before until');
}

export async function reconcileShopify(deps: ReconcileDeps, options: ReconcileOptions): Promise<ReconcileResult> {
  checkWindow(options.since, options.until);
  const source = deps.source.name;
  const result: ReconcileResult = { scanned: 0, missing: 0, enqueued: 0, problems: 0 };
  const problem = (eventId: string, message: string) => {
    result.problems += 1;
    deps.onProblem?.({ eventId, message });
  };

  /** Parse + normalise as the intake does; the event, or undefined when the source ignores it. */
  const eventOf = (topic: ReconcileTopic, body: Record<string, unknown>, fallbackId: string): PointsEvent | undefined => {
    const outcome = deps.source.read(webhookRequest(topic, body, deps.shopDomain, deps.now()));
    if (outcome.status === 'ignored') return undefined;
    if (outcome.status === 'rejected') {
      problem(fallbackId, `${topic}: ${outcome.error.message}`);
      return undefined;
    }
    const checked = PointsEvent.safeParse(outcome.value);
    if (!checked.success) {
      problem(fallbackId, `${topic}: not a valid event (${checked.error.issues[0]?.message ?? 'invalid'})`);
      return undefined;
    }
    // The same rule as intake: an event dated far ahead would never leave the replay window.
    const future = fromFutureProblem(checked.data, deps.now().getTime());
    if (future) {
      problem(fallbackId, `${topic}: ${future.message}`);
      return undefined;
    }
    return checked.data;
  };

  const found = async (kind: MissingEvent['kind'], event: PointsEvent, order: AdminOrder) => {
    result.missing += 1;
    deps.onMissing?.({ kind, eventId: event.eventId, orderId: event.orderId, orderName: order.name, occurredAt: event.occurredAt });
    if (options.dryRun) return;
    await deps.queue.send(queueMessageFor(event));
    result.enqueued += 1;
  };

  let page = 0;
  let orders = 0;
  for await (const nodes of deps.client.orders({ since: options.since, until: options.until })) {
    page += 1;
    for (const order of nodes) {
      orders += 1;
      if (!PAID_STATES.has(order.displayFinancialStatus ?? '')) continue;
      const orderId = legacyId(order.id);
      const ref = { source, orderId };
      result.scanned += 1;
      const body = orderWebhookBody(order);
      const record = await deps.ledger.getOrder(ref);
      // A stub is what a refund that came first left: the purchase itself was never seen.
      const purchaseSeen = record !== undefined && record.state !== 'stub';
      if (!purchaseSeen) {
        // An order that used a code carries its lines, as its webhook does: the code's points then come back
        // once every line is refunded, not only on cancellation (shared/redemption/usage.ts). Read only here:
        // they cost query points.
        const lines = order.discountCodes.length > 0 ? await deps.client.orderLines(order.id) : undefined;
        const purchase = eventOf('orders/paid', lines ? orderWebhookBody(order, lines) : body, `${source}:order:${orderId}`);
        if (purchase !== undefined) await found('purchase', purchase, order);
      }
      if (order.cancelledAt !== null) {
        result.scanned += 1;
        // A cancelled order whose purchase was never credited has nothing to take back.
        if (purchaseSeen && (await deps.ledger.getRefund({ ...ref, refundId: 'cancel' })) === undefined) {
          const cancellation = eventOf('orders/cancelled', body, `${source}:refund:${orderId}:cancel`);
          if (cancellation !== undefined) await found('cancellation', cancellation, order);
        }
      }
      if (order.refunds.length >= REFUNDS_LIMIT) {
        problem(
          `${source}:order:${orderId}`,
          `the order has ${REFUNDS_LIMIT} or more refunds; refunds past the first ${REFUNDS_LIMIT} are not read`,
        );
      }
      for (const listed of order.refunds) {
        result.scanned += 1;
        const refundId = legacyId(listed.id);
        if ((await deps.ledger.getRefund({ ...ref, refundId })) !== undefined) continue;
        const fallbackId = `${source}:refund:${orderId}:${refundId}`;
        // Only refunds the ledger lacks are read in full (their line items cost query points).
        const refund = await deps.client.refund(listed.id);
        if (refund === undefined) {
          problem(fallbackId, 'the refund is listed on the order but Shopify no longer returns it');
          continue;
        }
        if (refund.orderAdjustments.length >= ADJUSTMENTS_LIMIT || refund.refundShippingLines.length >= ADJUSTMENTS_LIMIT) {
          problem(fallbackId, `the refund has ${ADJUSTMENTS_LIMIT} or more order adjustments or shipping refunds; reconcile it by hand`);
          continue;
        }
        const event = eventOf('refunds/create', refundWebhookBody(refund), fallbackId);
        if (event !== undefined) await found('refund', event, order);
      }
    }
    deps.progress?.(`reconcile: page ${page}, ${orders} orders read, ${result.scanned} scanned, ${result.missing} missing`);
  }
  return result;
}

/** The fixed last line of a run. */
