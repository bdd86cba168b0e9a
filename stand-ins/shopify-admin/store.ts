import { parse } from 'lossless-json';
import * as z from 'zod';
import { refundMoneyShape } from '../../shared/sources/shopify/index.js';

/**
 * What the stand-in holds: the shop's orders and refunds, taken from webhook bodies (orders/paid,
 * refunds/create) and served in the GraphQL Admin API's shape. Numbers in the bodies are kept as
 * their exact digits (ids are 64-bit; refund amounts may be JSON numbers).
 */

const Id = z.string().regex(/^\d{1,20}$/, 'expected an integer id');
const Amount = z.string().regex(/^-?\d{1,18}(?:\.\d{1,12})?$/, 'expected a decimal amount');
const Currency = z.string().regex(/^[A-Z]{3}$/);
const MoneySet = z.object({ shop_money: z.object({ amount: Amount, currency_code: Currency }) });

const WebhookOrder = z.object({
  id: Id,
  name: z.string().nullish(),
  test: z.boolean().default(false),
  currency: Currency,
  taxes_included: z.boolean().default(false),
  financial_status: z.string().nullish(),
  created_at: z.string(),
  processed_at: z.string().nullish(),
  cancelled_at: z.string().nullish(),
  customer: z.object({ id: Id }).nullish(),
  discount_codes: z.array(z.object({ code: z.string() })).default([]),
  // Each line's id and quantity are answered (`order { lineItems }`); an odd line is left out there, never refused here.
  line_items: z.array(z.unknown()).default([]),
  subtotal_price: Amount.optional(),
  // The goods before any discount (`total_line_items_price`) and the discounts (`total_discounts`): a
  // code's minimum is measured on the subtotal before it (Shopify's "minimum purchase amount").
  total_line_items_price: Amount.optional(),
  total_discounts: Amount.optional(),
  subtotal_price_set: MoneySet.optional(),
  total_tax: Amount.optional(),
  total_tax_set: MoneySet.optional(),
  total_price: Amount.optional(),
  total_price_set: MoneySet.optional(),
  shipping_lines: z
    .array(z.object({ tax_lines: z.array(z.object({ price: Amount.optional(), price_set: MoneySet.optional() })).default([]) }))
    .default([]),
});
type WebhookOrder = z.infer<typeof WebhookOrder>;

const WebhookRefund = z.object({
  id: Id,
  order_id: Id,
  created_at: z.string(),
  ...refundMoneyShape(Amount, MoneySet),
});
type WebhookRefund = z.infer<typeof WebhookRefund>;

export interface StoredOrder {
  order: WebhookOrder;
  updatedAt: string;
  refunds: { refund: WebhookRefund; createdAt: string }[];
}

export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
  constructor(
    readonly kind: 'malformed_json' | 'invalid_payload' | 'unknown_order',
    message: string,
  ) {
    super(message);
  }
}

function read<T>(schema: z.ZodType<T>, text: string): T {
  let json: unknown;
  try {
    json = parse(text, null, (digits) => digits);
  } catch {
    throw new StoreInputError('malformed_json', 'the body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoreInputError('invalid_payload', `${(issue?.path ?? []).map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Reads an order body as putOrder would, storing nothing (StoreInputError when it cannot be stored). */
export const readOrder = (body: string): WebhookOrder => read(WebhookOrder, body);

/**
 * The subtotal a checkout measures a code's minimum against: the goods before discounts
 * (`total_line_items_price`, else the discounted subtotal plus the discounts, else the subtotal).
 */
export function subtotalBeforeDiscounts(order: WebhookOrder): string {
  if (order.total_line_items_price !== undefined) return order.total_line_items_price;
  const subtotal = order.subtotal_price ?? order.subtotal_price_set?.shop_money.amount ?? '0';
  return order.total_discounts === undefined ? subtotal : String(Number(subtotal) + Number(order.total_discounts));
}

export interface ShopStore {
  /** Stores an orders/paid (or orders/cancelled) body; a known order is replaced, keeping its refunds. */
  putOrder(body: string): StoredOrder;
  /** Stores a refunds/create body under its order. */
  putRefund(body: string, options?: { holdIfOrderUnknown?: boolean }): void;
  /** Every order, oldest update first (then by id). */
  list(): StoredOrder[];
  get(orderId: string): StoredOrder | undefined;
  findRefund(refundId: string): { stored: StoredOrder; refund: WebhookRefund } | undefined;
  clear(): void;
}

export function createShopStore(now: () => number = Date.now): ShopStore {
  const orders = new Map<string, StoredOrder>();
  // Refunds whose order has not arrived yet (webhooks can come out of order), by order id.
  const held = new Map<string, WebhookRefund[]>();
  const stamp = () => new Date(now()).toISOString();

  function attach(stored: StoredOrder, refund: WebhookRefund) {
    if (stored.refunds.some((r) => r.refund.id === refund.id)) return;
    stored.refunds.push({ refund, createdAt: refund.created_at });
    stored.updatedAt = stamp();
  }

  return {
    putOrder(body) {
      const order = read(WebhookOrder, body);
      const previous = orders.get(order.id);
      const stored: StoredOrder = { order, updatedAt: stamp(), refunds: previous?.refunds ?? [] };
      orders.set(order.id, stored);
      for (const refund of held.get(order.id) ?? []) attach(stored, refund);
      held.delete(order.id);
      return stored;
    },
    putRefund(body, options = {}) {
      const refund = read(WebhookRefund, body);
      const stored = orders.get(refund.order_id);
      if (stored) return attach(stored, refund);
      if (!options.holdIfOrderUnknown) {
        throw new StoreInputError('unknown_order', `order ${refund.order_id} is not in the store: POST it to /__shopify/orders first`);
      }
      held.set(refund.order_id, [...(held.get(refund.order_id) ?? []), refund]);
    },
    list() {
      return [...orders.values()].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || compareIds(a.order.id, b.order.id));
    },
    get: (orderId) => orders.get(orderId),
    findRefund(refundId) {
      for (const stored of orders.values()) {
        const found = stored.refunds.find((r) => r.refund.id === refundId);
        if (found) return { stored, refund: found.refund };
      }
      return undefined;
    },
    clear() {
      orders.clear();
      held.clear();
    },
  };
}

export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export type { WebhookOrder, WebhookRefund };
