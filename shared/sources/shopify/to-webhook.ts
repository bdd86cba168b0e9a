import { LosslessNumber, stringify } from 'lossless-json';
import type { SignedRequest } from '../index.js';
import { ADMIN_API_VERSION } from './queries.js';
import { type AdminOrder, type AdminOrderLine, type AdminRefund, legacyId, type MoneyBag } from './schemas.js';

/**
 * GraphQL Admin API objects rewritten as the REST webhook payloads Shopify would have delivered
 * (`orders/paid`, `orders/cancelled`, `refunds/create`), so a reconciled order goes through the
 * Shopify source's own parse and normalise: one mapping, the same event ids and amounts as its
 * webhook. Ids become bare JSON integers (as in Shopify's JSON), amounts stay decimal strings.
 *
 * The order's `current_*` totals are left out on purpose: GraphQL reports them as they are now,
 * after any refund, while the orders/paid snapshot had them before; the normaliser then reads the
 * original totals (`subtotal_price` …), which is what the paid webhook carried. Refunds are
 * reconciled as their own events.
 */

const id = (gid: string) => new LosslessNumber(legacyId(gid));

function moneyFields(name: string, bag: MoneyBag | null): Record<string, unknown> {
  if (bag === null) return {};
  return {
    [name]: bag.shopMoney.amount,
    [`${name}_set`]: { shop_money: { amount: bag.shopMoney.amount, currency_code: bag.shopMoney.currencyCode } },
  };
}

/**
 * An order as the REST webhook body (orders/paid, orders/cancelled), with its line items' ids and
 * quantities when they were read (`lines`: an order that used a code), as the webhook's `line_items`.
 */
export function orderWebhookBody(order: AdminOrder, lines?: readonly AdminOrderLine[]): Record<string, unknown> {
  return {
    id: id(order.id),
    admin_graphql_api_id: order.id,
    name: order.name,
    test: order.test,
    currency: order.currencyCode,
    taxes_included: order.taxesIncluded,
    financial_status: order.displayFinancialStatus?.toLowerCase() ?? null,
    created_at: order.createdAt,
    processed_at: order.processedAt,
    updated_at: order.updatedAt,
    cancelled_at: order.cancelledAt,
    customer: order.customer === null ? null : { id: id(order.customer.id) },
    ...moneyFields('subtotal_price', order.subtotalPriceSet),
    ...moneyFields('total_tax', order.totalTaxSet),
    ...moneyFields('total_price', order.totalPriceSet),
    discount_codes: order.discountCodes.map((code) => ({ code })),
    shipping_lines: order.shippingLines.nodes.map((line) => ({
      tax_lines: line.taxLines.map((t) => moneyFields('price', t.priceSet)),
    })),
    ...(lines ? { line_items: lines.map((l) => ({ id: id(l.id), quantity: l.quantity })) } : {}),
  };
}

const negated = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : `-${amount}`);

/** A refund as the REST refunds/create body. */
export function refundWebhookBody(refund: AdminRefund): Record<string, unknown> {
  return {
    id: id(refund.id),
    order_id: id(refund.orderId),
    admin_graphql_api_id: refund.id,
    created_at: refund.createdAt,
    refund_line_items: refund.refundLineItems.map((l) => ({
      ...moneyFields('subtotal', l.subtotalSet),
      ...moneyFields('total_tax', l.totalTaxSet),
      // A refunded gift card takes nothing back (its purchase earned nothing).
      ...(l.lineItem ? { line_item: { gift_card: l.lineItem.isGiftCard } } : {}),
      // Which line and how many: a redemption's order is refunded in full once every line is.
      ...(l.lineItem?.id !== undefined && l.quantity !== undefined ? { line_item_id: id(l.lineItem.id), quantity: l.quantity } : {}),
    })),
    // GraphQL's order adjustments are refund discrepancies (shipping refunds are refundShippingLines);
    // REST writes shipping refunds as `shipping_refund` adjustments, negative like the others.
    order_adjustments: [
      ...refund.orderAdjustments.map((a) => ({
        kind: 'refund_discrepancy',
        ...moneyFields('amount', a.amountSet),
        ...moneyFields('tax_amount', a.taxAmountSet),
      })),
      ...refund.refundShippingLines.map((s) => ({
        kind: 'shipping_refund',
        ...moneyFields('amount', {
          shopMoney: { ...s.subtotalAmountSet.shopMoney, amount: negated(s.subtotalAmountSet.shopMoney.amount) },
        }),
        ...moneyFields('tax_amount', { shopMoney: { ...s.taxAmountSet.shopMoney, amount: negated(s.taxAmountSet.shopMoney.amount) } }),
      })),
    ],
    transactions: [],
  };
}

export type ReconcileTopic = 'orders/paid' | 'orders/cancelled' | 'refunds/create';

/**
 * The request the Shopify source reads (parse + normalise), as a webhook delivery without a webhook
 * id: the event's delivery id is then its event id, the same for every reconcile run.
 */
export function webhookRequest(topic: ReconcileTopic, body: Record<string, unknown>, shopDomain: string, now: Date): SignedRequest {
  return {
    rawBody: Buffer.from(stringify(body) ?? '{}'),
    headers: {
      'X-Shopify-Topic': topic,
      'X-Shopify-Shop-Domain': shopDomain,
      'X-Shopify-API-Version': ADMIN_API_VERSION,
      'X-Shopify-Triggered-At': now.toISOString(),
    },
  };
}
