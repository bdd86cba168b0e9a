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
    quantity: /^\d{1,9}$/.test(String(l.quantity)) ? Number(l.quantity) : 0,
    lineItem: {
      isGiftCard: l.line_item?.gift_card ?? false,
      ...(/^\d{1,20}$/.test(String(l.line_item_id)) ? { id: gid('LineItem', String(l.line_item_id)) } : {}),
    },
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

/** `order(id:) { lineItems }`: each line's id and ordered quantity (LineItem.quantity), a page at a time. */
export function orderLinesNode(stored: StoredOrder, page: { first: number; after: number }) {
  const lines = stored.order.line_items.flatMap((l) => {
    const { id, quantity } = (typeof l === 'object' && l !== null ? l : {}) as { id?: unknown; quantity?: unknown };
    return /^\d{1,20}$/.test(String(id)) && /^\d{1,9}$/.test(String(quantity))
      ? [{ id: gid('LineItem', String(id)), quantity: Number(quantity) }]
      : [];
  });
  const slice = lines.slice(page.after, page.after + page.first);
  const end = page.after + slice.length;
  return {
    id: gid('Order', stored.order.id),
    lineItems: { pageInfo: { hasNextPage: end < lines.length, endCursor: slice.length > 0 ? cursorOf(end) : null }, nodes: slice },
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

/**
 * Shopify's order search as far as the bridge uses it: `updated_at:>='…' updated_at:<='…'` (also > and <)
 * and `discount_code:CODE` (the orders that used a code, ignoring case as Shopify's codes do); any other
 * term is refused, so a document the stand-in cannot answer never gets a wrong answer.
 */
export function orderSearch(query: string): ((stored: StoredOrder) => boolean) | { error: string } {
  const UPDATED = /updated_at:(>=|<=|>|<)'?([^'\s]+)'?/g;
  const CODE = /discount_code:(?:"([^"]{1,255})"|'([^']{1,255})'|(\S{1,255}))/g;
  const terms = [...query.matchAll(UPDATED)];
  const codes = [...query.matchAll(CODE)].map((m) => (m[1] ?? m[2] ?? m[3] ?? '').toLowerCase());
  const rest = query
    .replace(UPDATED, '')
    .replace(CODE, '')
    .replace(/\bAND\b/g, '')
    .trim();
  if (rest !== '') return { error: `the stand-in reads only updated_at and discount_code terms, not "${rest.slice(0, 40)}"` };
  const bounds = terms.map(([, op, value]) => ({ op: op ?? '', at: Date.parse(value ?? '') }));
  if (bounds.some((b) => Number.isNaN(b.at))) return { error: 'updated_at needs an ISO 8601 date' };
  return (stored) => {
    const t = Date.parse(stored.updatedAt);
    const used = stored.order.discount_codes.map((d) => d.code.toLowerCase());
    return (
      bounds.every(({ op, at }) => (op === '>=' ? t >= at : op === '<=' ? t <= at : op === '>' ? t > at : t < at)) &&
      codes.every((c) => used.includes(c))
    );
  };
}
