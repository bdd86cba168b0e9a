import * as z from 'zod';
import type { Delivery, PrivacyEvent } from '../../events/index.js';
import { DateTimeWithOffset, invalid, NumericId, schemaError } from '../payload.js';
import { ok, rejected, type Outcome } from '../types.js';
import { lazyObject, lazySchema } from '../../schema/index.js';

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

/** A host name, as X-Shopify-Shop-Domain must be (intake/headers.ts): no control characters reach a store or a terminal. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** Shopify's own published samples (and so its test deliveries) read this placeholder. */
const SAMPLE_SHOP = '{shop}.myshopify.com';
// As the signed body says it: compared, never trusted further.
const ShopDomain = lazySchema(() =>
  z.string().refine((v) => HOST_NAME.test(v) || v === SAMPLE_SHOP, 'expected a host name such as example.myshopify.com'),
);
const OrderIds = lazySchema(() => z.array(NumericId).max(MAX_ORDERS).default([]));

export const ShopifyPrivacyRequest = lazyObject(z.object, () => ({
  shop_id: NumericId,
  shop_domain: ShopDomain,
  customer: z.object({ id: NumericId }).optional(),
  orders_to_redact: OrderIds,
  orders_requested: OrderIds,
  data_request: z.object({ id: NumericId }).optional(),
}));
export type ShopifyPrivacyRequest = z.infer<typeof ShopifyPrivacyRequest>;

export function parsePrivacyRequest(json: unknown): Outcome<ShopifyPrivacyRequest> {
  const request = ShopifyPrivacyRequest.safeParse(json);
  return request.success ? ok(request.data) : rejected(schemaError(request.error));
}

/** The request as a privacy event: one per delivery (its retries share the delivery id). */
export function privacyEvent(
  request: ShopifyPrivacyRequest,
  context: { source: string; externalKey: string; topic: ShopifyPrivacyTopic; delivery: Delivery; shopDomains: readonly string[] },
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
    ...(context.shopDomains.length === 1 && context.shopDomains[0] === request.shop_domain ? { soleShop: true } : {}),
    customer: action === 'redact_shop' || customerId === undefined ? null : { externalKey: context.externalKey, externalId: customerId },
    orderIds: [...new Set(orderIds)],
    ...(request.data_request ? { requestId: request.data_request.id } : {}),
    ...(triggeredAt ? { occurredAt: triggeredAt } : {}),
    delivery: context.delivery,
  });
}
