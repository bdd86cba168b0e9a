import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bareDecimal, bareInteger as bare, jsonWithBareIntegers, shopifyHeaders, signPos, signShopify } from '../senders.js';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../shared/sources/index.js';
import { SHOPIFY_ADMIN_LOCAL } from '../../stand-ins/shopify-admin/local.js';

/**
 * Webhook requests as the senders build them: Shopify's REST webhook payloads signed with the app
 * secret (base64 HMAC-SHA256 of the raw body), and the project's POS format (docs/pos-format.md)
 * signed `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`.
 */
export interface WebhookRequest {
  path: `/webhooks/${string}`;
  headers: Record<string, string>;
  body: string;
}

export { signPos, signShopify };

/**
 * The request as API Gateway's HTTP API hands it to receive-webhook, for calling the handler in-process: only
 * what intake reads (path, headers, body, method); kit/fixture-webhooks.ts's `apiGatewayEvent` builds a full event.
 */
export function asApiGatewayEvent(w: WebhookRequest): APIGatewayProxyEventV2 {
  const event = { rawPath: w.path, headers: w.headers, body: w.body, isBase64Encoded: false, requestContext: { http: { method: 'POST' } } };
  return event as unknown as APIGatewayProxyEventV2;
}

/** The shop domain of the local stack: the Shopify Admin stand-in's shop, and the sender of the sample webhooks. */
export const LOCAL_SHOP = SHOPIFY_ADMIN_LOCAL.shop;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Whose shop sends the webhook, and its event id (Shopify's X-Shopify-Event-Id), if not the local stack's defaults. */
export interface ShopifySender {
  shopDomain?: string;
  eventId?: string;
  /** The stack's source name the webhook goes to (default `shopify`): a second Shopify source has its own route. */
  source?: string;
}

export function shopifyRequest(
  topic: string,
  payload: unknown,
  secret: string,
  webhookId: string,
  nowMs: number,
  sender: ShopifySender = {},
): WebhookRequest {
  const body = jsonWithBareIntegers(payload);
  return {
    path: `/webhooks/${sender.source ?? 'shopify'}`,
    headers: shopifyHeaders(body, secret, {
      topic,
      shopDomain: sender.shopDomain ?? LOCAL_SHOP,
      apiVersion: DEFAULT_SHOPIFY_API_VERSION,
      webhookId,
      eventId: sender.eventId ?? `event-${webhookId}`,
      triggeredAt: isoSeconds(nowMs),
    }),
    body,
  };
}

export interface ShopifyOrderInput {
  orderId: string;
  name: string;
  /** Shopify customer id (digits); null: a guest checkout. */
  customerId: string | null;
  /** Subtotal after discounts as a decimal string in `currency`: with the tax when prices include it. */
  subtotal: string;
  tax: string;
  currency: string;
  /** The shop's prices include tax ("All prices include tax", the norm in Japan); default false. */
  taxesIncluded?: boolean;
  /** Discount codes the order used (a redemption's code), each with the amount it took off. */
  discountCodes?: { code: string; amount: string }[];
  /**
   * The order's lines (Shopify's `line_items[].id`, `quantity`, and `price` per unit when given); default one
   * line, id the order's, quantity 1.
   */
  lines?: { id: string; quantity: number; price?: string }[];
  /** The quantities shipped so far (one `success` fulfilment of these lines): orders/partially_fulfilled. */
  shipped?: { id: string; quantity: number }[];
}

/** The order webhooks Shopify sends, as the intake reads them. */
export type ShopifyOrderTopic = 'orders/create' | 'orders/paid' | 'orders/partially_fulfilled' | 'orders/fulfilled' | 'orders/cancelled';

/**
 * An order webhook as Shopify sends it: `topic`, the order's `financial_status` (`paid`; `pending` for
 * konbini or bank transfer not paid yet; `refunded` once a cancelled paid order is refunded), and what
 * the topic sets besides: orders/fulfilled the `fulfillment_status` (the moment provisional points are
 * earned under `earnAfter: fulfilled`; orders/partially_fulfilled `partial`, with the order's `shipped`
 * lines as its fulfilment), orders/cancelled the `cancelled_at`.
 */
export function shopifyOrderWebhook(
  topic: ShopifyOrderTopic,
  status: 'paid' | 'pending' | 'refunded',
  order: ShopifyOrderInput,
  secret: string,
  webhookId: string,
  nowMs: number,
  sender: ShopifySender = {},
): WebhookRequest {
  const extra = {
    ...(topic === 'orders/fulfilled' ? { fulfillment_status: 'fulfilled' } : {}),
    ...(topic === 'orders/partially_fulfilled' ? { fulfillment_status: 'partial' } : {}),
    ...(topic === 'orders/cancelled' ? { cancelled_at: isoSeconds(nowMs) } : {}),
  };
  return shopifyRequest(topic, { ...shopifyOrderBody(order, nowMs, status), ...extra }, secret, webhookId, nowMs, sender);
}

function shopifyOrderBody(order: ShopifyOrderInput, nowMs: number, financialStatus: string) {
  const taxesIncluded = order.taxesIncluded ?? false;
  const total = taxesIncluded
    ? order.subtotal
    : (Number(order.subtotal) + Number(order.tax)).toFixed(order.subtotal.split('.')[1]?.length ?? 0);
  const payload = {
    id: bare(order.orderId),
    name: order.name,
    test: false,
    currency: order.currency,
    taxes_included: taxesIncluded,
    financial_status: financialStatus,
    created_at: isoSeconds(nowMs),
    processed_at: isoSeconds(nowMs),
    customer: order.customerId === null ? null : { id: bare(order.customerId) },
    current_subtotal_price: order.subtotal,
    current_total_tax: order.tax,
    current_total_price: total,
    subtotal_price: order.subtotal,
    total_tax: order.tax,
    total_price: total,
    shipping_lines: [],
    discount_codes: (order.discountCodes ?? []).map((d) => ({ code: d.code, amount: d.amount, type: 'fixed_amount' })),
    line_items: (order.lines ?? [{ id: order.orderId, quantity: 1 }]).map((l) => ({
      id: bare(l.id),
      quantity: l.quantity,
      gift_card: false,
      ...(l.price !== undefined ? { price: l.price } : {}),
    })),
    ...(order.shipped
      ? {
          fulfillments: [
            {
              // One fulfilment of the order (its id is not read for points).
              id: bare('1'),
              status: 'success',
              line_items: order.shipped.map((l) => ({ id: bare(l.id), quantity: l.quantity })),
            },
          ],
        }
      : {}),
  };
  return payload;
}

export interface ShopifyRefundInput {
  refundId: string;
  orderId: string;
  /** Refunded line items' subtotal (with their tax when the shop's prices include it). */
  subtotal: string;
  tax: string;
  currency: string;
  /** The lines refunded (`refund_line_items[].line_item_id`, `quantity`); default the order's one line (id the order's), 1. */
  lines?: { lineItemId: string; quantity: number }[];
}

export function shopifyRefundCreate(
  refund: ShopifyRefundInput,
  secret: string,
  webhookId: string,
  nowMs: number,
  sender: ShopifySender = {},
): WebhookRequest {
  const payload = {
    id: bare(refund.refundId),
    order_id: bare(refund.orderId),
    created_at: isoSeconds(nowMs),
    processed_at: isoSeconds(nowMs),
    // The amounts on the first line refunded, zero on the others.
    refund_line_items: (refund.lines ?? [{ lineItemId: refund.orderId, quantity: 1 }]).map((l, i) => {
      const subtotal = i === 0 ? refund.subtotal : '0';
      const tax = i === 0 ? refund.tax : '0';
      return {
        line_item_id: bare(l.lineItemId),
        quantity: l.quantity,
        // As Shopify writes them: JSON numbers here, strings in the *_set forms.
        subtotal: bareDecimal(subtotal),
        subtotal_set: { shop_money: { amount: subtotal, currency_code: refund.currency } },
        total_tax: bareDecimal(tax),
        total_tax_set: { shop_money: { amount: tax, currency_code: refund.currency } },
      };
    }),
    order_adjustments: [],
    transactions: [{ kind: 'refund', status: 'success', currency: refund.currency }],
  };
  return shopifyRequest('refunds/create', payload, secret, webhookId, nowMs, sender);
}

export interface PosCommon {
  cardNumber: string | null;
  subtotal: string;
  tax: string;
  currency: string;
}

function posCommon(input: PosCommon, nowMs: number) {
  return {
    storeId: 'store-001',
    registerId: 'till-1',
    issuedAt: isoSeconds(nowMs),
    currency: input.currency,
    customer: input.cardNumber === null ? null : { cardNumber: input.cardNumber },
    subtotal: input.subtotal,
    taxIncluded: false,
    tax: input.tax,
    total: (Number(input.subtotal) + Number(input.tax)).toFixed(input.subtotal.split('.')[1]?.length ?? 0),
  };
}

function posRequest(payload: unknown, secret: string, nowMs: number): WebhookRequest {
  const body = JSON.stringify(payload);
  return {
    path: '/webhooks/pos',
    headers: { 'content-type': 'application/json', 'x-signature': signPos(body, secret, nowMs) },
    body,
  };
}

export function posSale(input: PosCommon & { receiptId: string }, secret: string, nowMs: number): WebhookRequest {
  return posRequest({ type: 'sale', receiptId: input.receiptId, ...posCommon(input, nowMs) }, secret, nowMs);
}

export function posReturn(
  input: PosCommon & { returnId: string; originalReceiptId: string; fullReturn: boolean },
  secret: string,
  nowMs: number,
): WebhookRequest {
  return posRequest(
    {
      type: 'return',
      returnId: input.returnId,
      originalReceiptId: input.originalReceiptId,
      fullReturn: input.fullReturn,
      ...posCommon(input, nowMs),
    },
    secret,
    nowMs,
  );
}

/** A `curl` line that sends the request to `baseUrl` (single quotes escaped for POSIX shells). */
export function curlFor(baseUrl: string, request: WebhookRequest): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const headers = Object.entries(request.headers).map(([name, value]) => `-H ${quote(`${name}: ${value}`)}`);
  return ['curl -i -X POST', quote(`${baseUrl}${request.path}`), ...headers, `--data-raw ${quote(request.body)}`].join(' \\\n  ');
}

/**
 * A POS request as shell lines that sign at paste time (the signature holds a timestamp that goes
 * stale after the tolerance window, so a pre-computed one would not survive the 5 minutes).
 */
export function posCurlScript(baseUrl: string, body: string, secret: { literal: string } | { envVar: string }): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // A secret set in the environment stays there: the script reads the variable (its first entry).
  const key = 'literal' in secret ? quote(secret.literal) : `"\${${secret.envVar}%%,*}"`;
  return [
    `body=${quote(body)}`,
    `t=$(date +%s)`,
    `sig=$(printf '%s' "$t.$body" | openssl dgst -sha256 -hmac ${key} | sed 's/^.*= //')`,
    `curl -i -X POST ${quote(`${baseUrl}/webhooks/pos`)} -H 'content-type: application/json' -H "x-signature: t=$t,v1=$sig" --data-raw "$body"`,
  ].join('\n');
}
