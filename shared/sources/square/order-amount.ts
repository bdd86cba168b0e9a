import type { PurchaseEvent } from '../../events/index.js';
import { currencyDigits, toUnits } from '../../money/index.js';
import type { SquareOrdersClient } from './client.js';
import { SquareOrdersError } from './errors.js';
import { subtotalExcludingTax } from './order.js';
import type { ResolveDeps } from '../resolution.js';
import type { ProcessOutcome } from '../../events/index.js';
import type { SquareOrderPurchase } from './thin.js';

type Measured = { event: PurchaseEvent; outcome?: undefined } | { outcome: Extract<ProcessOutcome, { action: 'retry' }> };

/**
 * The amount a purchase's points are calculated on, when its sender left it to its order (Square):
 * the order's lines without tax and without gift cards, this payment's share of it when the order was
 * paid in parts. Read before the order is claimed, so nothing is recorded until it is known; the same
 * order gives the same amount to every attempt. Refund shares stay those of the payment.
 */
export async function measuredPurchase(
  deps: Pick<ResolveDeps, 'ledger'>,
  orders: Pick<SquareOrdersClient, 'retrieveOrder'> | undefined,
  event: SquareOrderPurchase,
): Promise<Measured> {
  const from = event.amountFrom;
  if (!from || event.customer === null || event.test) return { event };
  // A redelivery of a purchase already done is a duplicate whatever its order says: no call to Square.
  const recorded = await deps.ledger.getOrder({ source: event.source, orderId: event.orderId });
  if (recorded?.state === 'done' && recorded.awaitingCustomerUntil === undefined) return { event };
  if (!orders) {
    const reason = `source ${event.source} earns on its Square orders without tax, but the worker has no Square Orders API access for it`;
    return { outcome: { kind: 'configuration_error', action: 'retry', errorKind: 'square_orders_not_configured', reason } };
  }
  let order: Awaited<ReturnType<typeof orders.retrieveOrder>>;
  try {
    order = await orders.retrieveOrder(from.orderId);
  } catch (e) {
    if (!(e instanceof SquareOrdersError)) throw e;
    const errorKind = `square_orders_${e.kind}`;
    // Square down or throttling: wait like any upstream; anything else needs people (token, scope, merchant).
    if (e.kind === 'unavailable') return { outcome: { kind: 'upstream_error', action: 'retry', errorKind, reason: e.message } };
    return { outcome: { kind: 'configuration_error', action: 'retry', errorKind, reason: e.message } };
  }
  const { minor, currency } = subtotalExcludingTax(order);
  if (currency !== event.currency) {
    const reason = `Square order ${from.orderId} is in ${currency}, its payment in ${event.currency}`;
    return { outcome: { kind: 'configuration_error', action: 'retry', errorKind: 'square_orders_currency', reason } };
  }
  // This payment's share of an order paid in parts (split tender); the whole order otherwise.
  const orderMinor = BigInt(order.total_money.amount);
  const paid = BigInt(from.paymentMinor);
  const shareMinor = paid < orderMinor && orderMinor > 0n ? (minor * paid) / orderMinor : minor;
  const units = toUnits({ units: shareMinor, scale: currencyDigits(currency) }, currency, from.rule);
  return { event: { ...event, calculationAmount: Number(units) } };
}
