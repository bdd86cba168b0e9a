import type { StoredOrder, WebhookOrder, WebhookRefund } from './store.js';

/**
 * The stored webhook bodies in the GraphQL Admin API's shape (Order, Refund, MoneyBag.shopMoney,
 * gid://shopify/<Type>/<id> ids), for the fields the reconcile documents select.
 */

type Money = { amount: string; currency_code: string } | undefined;
const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

function bag(set: { shop_money: { amount: string; currency_code: string } } | undefined, plain: string | undefined, currency: string) {
  const money: Money = set?.shop_money ?? (plain === undefined ? undefined : { amount: plain, currency_code: currency });
  return money === undefined ? null : { shopMoney: { amount: money.amount, currencyCode: money.currency_code } };
}

const negate = (amount: string) =>
  amount.startsWith('-') ? amount.slice(1) : amount === '0' || /^0(\.0+)?$/.test(amount) ? amount : `-${amount}`;

function financialStatus(order: WebhookOrder, refunds: number): string | null {
  const status = order.financial_status?.toUpperCase() ?? null;
  // A refund moves a paid order to partially refunded (fully refunded is not worked out here).
  return status === 'PAID' && refunds > 0 ? 'PARTIALLY_REFUNDED' : status;
}

export function orderNode(stored: StoredOrder, limits: { shippingLines: number; refunds: number }) {
  const o = stored.order;
  return {
    id: gid('Order', o.id),
    name: o.name ?? null,
    test: o.test,
    createdAt: o.created_at,
    processedAt: o.processed_at ?? null,
    updatedAt: stored.updatedAt,
    cancelledAt: o.cancelled_at ?? null,
    currencyCode: o.currency,
    taxesIncluded: o.taxes_included,
    displayFinancialStatus: financialStatus(o, stored.refunds.length),
    customer: o.customer ? { id: gid('Customer', o.customer.id) } : null,
    discountCodes: o.discount_codes.map((d) => d.code),
    subtotalPriceSet: bag(o.subtotal_price_set, o.subtotal_price, o.currency),
    totalTaxSet: bag(o.total_tax_set, o.total_tax, o.currency),
    totalPriceSet: bag(o.total_price_set, o.total_price, o.currency) ?? { shopMoney: { amount: '0.0', currencyCode: o.currency } },
    shippingLines: {
      nodes: o.shipping_lines.slice(0, limits.shippingLines).map((l) => ({
        taxLines: l.tax_lines.map((t) => ({
          priceSet: bag(t.price_set, t.price, o.currency) ?? { shopMoney: { amount: '0.0', currencyCode: o.currency } },
        })),
      })),
    },
    refunds: stored.refunds.slice(0, limits.refunds).map((r) => ({ id: gid('Refund', r.refund.id), createdAt: r.createdAt })),
  };
}

export function refundNode(stored: StoredOrder, refund: WebhookRefund, page: { first: number; after: number }) {
  const currency = stored.order.currency;
  const zero = { shopMoney: { amount: '0.0', currencyCode: currency } };
  const lines = refund.refund_line_items.map((l) => ({
    subtotalSet: bag(l.subtotal_set, l.subtotal, currency) ?? zero,
    totalTaxSet: bag(l.total_tax_set, l.total_tax, currency) ?? zero,
    lineItem: { isGiftCard: l.line_item?.gift_card ?? false },
  }));
  const slice = lines.slice(page.after, page.after + page.first);
  const end = page.after + slice.length;
  const adjustments = refund.order_adjustments.filter((a) => a.kind !== 'shipping_refund');
  // REST's shipping_refund adjustments are GraphQL's refundShippingLines, with positive amounts.
  const shipping = refund.order_adjustments.filter((a) => a.kind === 'shipping_refund');
  const positive = (b: ReturnType<typeof bag>) =>
    b === null ? zero : { shopMoney: { ...b.shopMoney, amount: negate(b.shopMoney.amount) } };
  return {
    id: gid('Refund', refund.id),
    createdAt: refund.created_at,
    order: { id: gid('Order', stored.order.id) },
    refundLineItems: {
      pageInfo: { hasNextPage: end < lines.length, endCursor: slice.length > 0 ? cursorOf(end) : null },
      nodes: slice,
    },
    orderAdjustments: {
      nodes: adjustments.map((a) => ({
        amountSet: bag(a.amount_set, a.amount, currency) ?? zero,
        taxAmountSet: bag(a.tax_amount_set, a.tax_amount, currency) ?? zero,
      })),
    },
    refundShippingLines: {
      nodes: shipping.map((a) => ({
        subtotalAmountSet: positive(bag(a.amount_set, a.amount, currency)),
        taxAmountSet: positive(bag(a.tax_amount_set, a.tax_amount, currency)),
      })),
    },
  };
}

/** Opaque cursors, as Shopify's are: the position after which the next page starts. */
export function cursorOf(position: number): string {
  return Buffer.from(JSON.stringify({ last: position })).toString('base64url');
}

export function positionOf(cursor: unknown): number | undefined {
  if (cursor === null || cursor === undefined) return 0;
  if (typeof cursor !== 'string') return undefined;
  try {
    const value = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { last?: unknown }).last;
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `updated_at:>='…' updated_at:<='…'` (also > and <): the only search terms the stand-in reads. */
export function updatedAtFilter(query: string): ((updatedAt: string) => boolean) | { error: string } {
  const terms = [...query.matchAll(/updated_at:(>=|<=|>|<)'?([^'\s]+)'?/g)];
  const rest = query
    .replace(/updated_at:(>=|<=|>|<)'?([^'\s]+)'?/g, '')
    .replace(/\bAND\b/g, '')
    .trim();
  if (rest !== '') return { error: `the stand-in reads only updated_at terms, not "${rest.slice(0, 40)}"` };
  const bounds = terms.map(([, op, value]) => ({ op: op ?? '', at: Date.parse(value ?? '') }));
  if (bounds.some((b) => Number.isNaN(b.at))) return { error: 'updated_at needs an ISO 8601 date' };
  return (updatedAt) => {
    const t = Date.parse(updatedAt);
    return bounds.every(({ op, at }) => (op === '>=' ? t >= at : op === '<=' ? t <= at : op === '>' ? t > at : t < at));
  };
}
