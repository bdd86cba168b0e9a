import type { Delivery, LineQuantity, PurchaseEvent, QueuedEvent } from '../../events/index.js';
import type { Outcome } from '../types.js';
import { ignored, ok } from '../types.js';
import type { ShopifyDelivery, ShopifyOrder } from './webhook-payload.js';

/**
 * The events of an order that earn nothing themselves: Shopify's orders/create and an order cancelled
 * before payment, followed only for a redemption's code (shared/redemption/usage.ts).
 */

export function canonicalDelivery(delivery: ShopifyDelivery, fallbackId: string): Delivery {
  // The webhook id is the same for every retry of one delivery: SQS deduplicates on it.
  return { id: delivery.webhookId ?? delivery.eventId ?? fallbackId, ...delivery };
}

/** An order cancelled before payment that used a code: only the code's points come back (`cancelledUnpaid`). */
export function cancelledUnpaid(
  order: ShopifyOrder,
  context: {
    source: string;
    delivery: ShopifyDelivery;
    customer: PurchaseEvent['customer'];
    currency: string;
    test: boolean;
    title: string;
  },
): Outcome<QueuedEvent> {
  const eventId = `${context.source}:refund:${order.id}:cancel`;
  return ok({
    type: 'refund',
    eventId,
    source: context.source,
    orderId: order.id,
    refundId: 'cancel',
    customer: context.customer,
    currency: context.currency,
    occurredAt: order.cancelled_at ?? order.created_at,
    pointTitle: context.title,
    test: context.test,
    delivery: canonicalDelivery(context.delivery, eventId),
    refundAmount: 0,
    refundsRemainder: true,
    cancelledUnpaid: true,
  });
}

/**
 * `orders/create`: points come with `orders/paid`, so only an order that used a code becomes an event
 * (`orderCreated`): its code is linked to it at once, reserved while the payment is pending (konbini,
 * bank transfer), so the sweep never returns a code whose order is still to be paid.
 */
export function createdOrder(
  order: ShopifyOrder,
  lines: LineQuantity[] | undefined,
  context: { source: string; delivery: ShopifyDelivery; customer: PurchaseEvent['customer']; currency: string },
): Outcome<QueuedEvent> {
  if (order.discount_codes.length === 0) return ignored('order created: its points come with orders/paid');
  if (order.cancelled_at) return ignored('order is cancelled');
  const eventId = `${context.source}:order-created:${order.id}`;
  return ok({
    type: 'purchase',
    eventId,
    source: context.source,
    orderId: order.id,
    customer: context.customer,
    currency: context.currency,
    occurredAt: order.created_at,
    pointTitle: '',
    test: order.test,
    delivery: canonicalDelivery(context.delivery, eventId),
    eligibleAmount: 0,
    expiryDays: null,
    discountCodes: order.discount_codes,
    ...(lines ? { orderLines: lines } : {}),
    orderCreated: true,
  });
}
