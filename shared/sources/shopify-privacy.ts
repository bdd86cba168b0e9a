import * as z from 'zod';
import type { Delivery, PrivacyEvent } from '../events/index.js';
import { DateTimeWithOffset, invalid, NumericId, schemaError } from './payload.js';
import { ok, rejected, type Outcome } from './types.js';

/**
 * Shopify's mandatory compliance topics, as privacy events. Only ids are read: the customer's e-mail
 * and phone, which Shopify sends along, are never parsed, kept or queued. The shop is the one the
 * signed body names (the X-Shopify-Shop-Domain header is not signed).
 */

export const SHOPIFY_PRIVACY_TOPICS = {
  'customers/data_request': 'report_customer',
  'customers/redact': 'redact_customer',
  'shop/redact': 'redact_shop',
} as const;
export type ShopifyPrivacyTopic = keyof typeof SHOPIFY_PRIVACY_TOPICS;

/** More than any shop's request names; the queued event stays well under SQS's 256 KiB. */
const MAX_ORDERS = 5000;

// As the body says it (Shopify's own published sample reads "{shop}.myshopify.com"): compared, never trusted further.
const ShopDomain = z.string().min(1).max(255);
const OrderIds = z.array(NumericId).max(MAX_ORDERS).default([]);

export const ShopifyPrivacyRequest = z.object({
  shop_id: NumericId,
  shop_domain: ShopDomain,
  customer: z.object({ id: NumericId }).optional(),
  orders_to_redact: OrderIds,
  orders_requested: OrderIds,
  data_request: z.object({ id: NumericId }).optional(),
});
export type ShopifyPrivacyRequest = z.infer<typeof ShopifyPrivacyRequest>;

export function parsePrivacyRequest(json: unknown): Outcome<ShopifyPrivacyRequest> {
  const request = ShopifyPrivacyRequest.safeParse(json);
  return request.success ? ok(request.data) : rejected(schemaError(request.error));
}

/** The request as a privacy event: one per delivery (its retries share the delivery id). */
export function privacyEvent(
  request: ShopifyPrivacyRequest,
  context: { source: string; externalKey: string; topic: ShopifyPrivacyTopic; delivery: Delivery },
): Outcome<PrivacyEvent> {
  const action = SHOPIFY_PRIVACY_TOPICS[context.topic];
  const customerId = request.customer?.id;
  if (action !== 'redact_shop' && customerId === undefined) return rejected(invalid('customer.id', 'the request names no customer'));
  const triggeredAt = DateTimeWithOffset.safeParse(context.delivery.triggeredAt).data;
  const orderIds = action === 'report_customer' ? request.orders_requested : request.orders_to_redact;
  return ok({
    type: 'privacy',
    eventId: `${context.source}:privacy:${action}:${context.delivery.id}`,
    source: context.source,
    action,
    shopDomain: request.shop_domain,
    customer: action === 'redact_shop' || customerId === undefined ? null : { externalKey: context.externalKey, externalId: customerId },
    orderIds: [...new Set(orderIds)],
    ...(request.data_request ? { requestId: request.data_request.id } : {}),
    ...(triggeredAt ? { occurredAt: triggeredAt } : {}),
    delivery: context.delivery,
  });
}
