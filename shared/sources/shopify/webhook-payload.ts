import * as z from 'zod';
import { CurrencyCode, DateTimeWithOffset, DecimalAmount, NumericId } from '../payload.js';
import type { ShopifyCustomer } from './webhook-customers.js';
import type { ShopifyPrivacyRequest, ShopifyPrivacyTopic } from './webhook-privacy.js';
import { lazyObject, lazySchema } from '../../schema/index.js';
import { type LineQuantity, MAX_LINES } from '../../events/index.js';

/**
 * The parts of Shopify's webhook payloads intake reads (REST webhook format, API 2024-01 and later).
 * Everything else in the payload is ignored. Money: the `*_set.shop_money` form is preferred (it is
 * in the shop's currency, whatever the customer paid in); the plain field is the fallback. Amounts
 * may be strings or JSON numbers (refund line items use numbers), both read exactly.
 */

const ShopMoney = lazySchema(() => z.object({ amount: DecimalAmount, currency_code: CurrencyCode }));
export const MoneySet = lazySchema(() => z.object({ shop_money: ShopMoney }));
export type MoneySet = z.infer<typeof MoneySet>;

const TaxLine = lazySchema(() => z.object({ price: DecimalAmount.optional(), price_set: MoneySet.optional() }));

const Allocation = lazySchema(() => z.object({ amount: DecimalAmount.optional(), amount_set: MoneySet.optional() }));

/** A gift-card line item: buying a gift card earns nothing (it is money, not a sale; spending it is). */
export const ShopifyLineItem = lazyObject(z.object, () => ({
  gift_card: z.boolean().default(false),
  price: DecimalAmount.optional(),
  price_set: MoneySet.optional(),
  quantity: z.number().int().nonnegative().default(0),
  /** Quantity after removals and refunds (newer API versions); the `current_*` totals count it. */
  current_quantity: z.number().int().nonnegative().nullish(),
  discount_allocations: z.array(Allocation).default([]),
}));
export type ShopifyLineItem = z.infer<typeof ShopifyLineItem>;

export const ShopifyOrder = lazyObject(z.object, () => ({
  id: NumericId,
  /** "#1001": what the customer knows the order by. */
  name: z.string().max(100).nullish(),
  test: z.boolean().default(false),
  currency: CurrencyCode,
  taxes_included: z.boolean().default(false),
  created_at: DateTimeWithOffset,
  processed_at: DateTimeWithOffset.nullish(),
  cancelled_at: DateTimeWithOffset.nullish(),
  financial_status: z.string().nullish(),
  customer: z.object({ id: NumericId }).nullish(),
  current_subtotal_price: DecimalAmount.optional(),
  current_subtotal_price_set: MoneySet.optional(),
  current_total_tax: DecimalAmount.optional(),
  current_total_tax_set: MoneySet.optional(),
  current_total_price: DecimalAmount.optional(),
  current_total_price_set: MoneySet.optional(),
  subtotal_price: DecimalAmount.optional(),
  subtotal_price_set: MoneySet.optional(),
  total_tax: DecimalAmount.optional(),
  total_tax_set: MoneySet.optional(),
  total_price: DecimalAmount.optional(),
  total_price_set: MoneySet.optional(),
  shipping_lines: z.array(z.object({ tax_lines: z.array(TaxLine).default([]) })).default([]),
  /** Gift-card lines only: nothing else of a line is read, so no other line can make an order unreadable. */
  line_items: z
    .array(z.unknown())
    .default([])
    .transform((lines) => lines.filter((l) => typeof l === 'object' && l !== null && (l as { gift_card?: unknown }).gift_card === true))
    .pipe(z.array(ShopifyLineItem)),
  /**
   * The codes the order used (redemptions, docs/redemption.md): only the `code` of each, and never a
   * reason to refuse the order (an entry that is not a code is left out).
   */
  discount_codes: z
    .array(z.unknown())
    .default([])
    .transform((codes) =>
      codes
        .flatMap((c) => {
          const code = typeof c === 'object' && c !== null ? (c as { code?: unknown }).code : undefined;
          return typeof code === 'string' && code.length >= 1 && code.length <= 255 ? [code] : [];
        })
        .slice(0, 50),
    ),
}));
export type ShopifyOrder = z.infer<typeof ShopifyOrder>;

/**
 * A refunds/create body's money: its line items (goods and their tax) and its adjustments (shipping and
 * other refunds), each amount over `amount` and `moneySet`. Intake reads them with the exact decimals
 * above; the Shopify Admin stand-in keeps the same parts as the body's digits (stand-ins/shopify-admin/store.ts).
 */
export function refundMoneyShape<A extends z.ZodType, M extends z.ZodType>(amount: A, moneySet: M) {
  return {
    refund_line_items: z
      .array(
        z.object({
          subtotal: amount.optional(),
          subtotal_set: moneySet.optional(),
          total_tax: amount.optional(),
          total_tax_set: moneySet.optional(),
          line_item: z.object({ gift_card: z.boolean().default(false) }).nullish(),
          // Which line and how many: kept as given (the stand-in serves them back); intake reads them apart (refundLineQuantities).
          line_item_id: z.unknown().optional(),
          quantity: z.unknown().optional(),
        }),
      )
      .default([]),
    order_adjustments: z
      .array(
        z.object({
          kind: z.string(),
          amount: amount.optional(),
          amount_set: moneySet.optional(),
          tax_amount: amount.optional(),
          tax_amount_set: moneySet.optional(),
        }),
      )
      .default([]),
  };
}

export const ShopifyRefund = lazyObject(z.object, () => ({
  id: NumericId,
  order_id: NumericId,
  created_at: DateTimeWithOffset,
  processed_at: DateTimeWithOffset.nullish(),
  ...refundMoneyShape(DecimalAmount, MoneySet),
  transactions: z.array(z.object({ currency: CurrencyCode.nullish() })).default([]),
}));
export type ShopifyRefund = z.infer<typeof ShopifyRefund>;

/**
 * The lines of an order (`line_items[].id`, `quantity`) or of a refund (`refund_line_items[].line_item_id`,
 * `quantity`), read apart from the order itself: a redemption's order is refunded in full once every line's
 * quantity is. An odd line never makes the order unreadable: the lines are then unknown (undefined), and
 * only a cancellation counts as in full.
 */
const Line = lazySchema(() => z.object({ id: NumericId, quantity: z.number().int().nonnegative().max(999_999_999) }));
const OrderLines = lazySchema(() => z.object({ line_items: z.array(Line).max(MAX_LINES) }));
const RefundLines = lazySchema(() =>
  z.object({
    refund_line_items: z
      .array(z.object({ line_item_id: NumericId, quantity: z.number().int().nonnegative().max(999_999_999) }))
      .max(MAX_LINES)
      .default([]),
  }),
);

export function orderLineQuantities(json: unknown): LineQuantity[] | undefined {
  const parsed = OrderLines.safeParse(json);
  return parsed.success ? parsed.data.line_items.map((l) => ({ id: l.id, quantity: l.quantity })) : undefined;
}

export function refundLineQuantities(json: unknown): LineQuantity[] | undefined {
  const parsed = RefundLines.safeParse(json);
  return parsed.success ? parsed.data.refund_line_items.map((l) => ({ id: l.line_item_id, quantity: l.quantity })) : undefined;
}

/** The topics intake handles, and what each becomes. */
export const SHOPIFY_TOPICS = {
  /** Only for an order that used a code: the code is reserved by it while its payment is pending. */
  'orders/create': 'created',
  'orders/paid': 'purchase',
  'refunds/create': 'refund',
  'orders/cancelled': 'cancellation',
  // The moment provisional points are earned under `earnAfter: fulfilled` (ignored otherwise).
  'orders/fulfilled': 'fulfilment',
  // A share shipped (the whole order with its fulfilments so far): earns the cumulative shipped share.
  'orders/partially_fulfilled': 'partial_fulfilment',
  'customers/create': 'customer',
} as const;
export type ShopifyTopic = keyof typeof SHOPIFY_TOPICS;

export type ShopifyPayload =
  | {
      readonly kind: 'purchase' | 'created' | 'cancellation' | 'fulfilment' | 'partial_fulfilment';
      readonly order: ShopifyOrder;
      readonly lines: LineQuantity[] | undefined;
      /** orders/partially_fulfilled: the share its successful fulfilments ship (fulfilled-share.ts). */
      readonly shipped?: { readonly num: bigint; readonly den: bigint };
      readonly delivery: ShopifyDelivery;
    }
  | {
      readonly kind: 'refund';
      readonly refund: ShopifyRefund;
      readonly lines: LineQuantity[] | undefined;
      readonly delivery: ShopifyDelivery;
    }
  | { readonly kind: 'customer'; readonly customer: ShopifyCustomer; readonly delivery: ShopifyDelivery }
  | {
      readonly kind: 'privacy';
      readonly topic: ShopifyPrivacyTopic;
      readonly request: ShopifyPrivacyRequest;
      readonly delivery: ShopifyDelivery;
    };

/** What Shopify's headers said about this delivery. */
export interface ShopifyDelivery {
  readonly topic: ShopifyTopic | ShopifyPrivacyTopic;
  readonly shopDomain?: string;
  readonly apiVersion?: string;
  readonly webhookId?: string;
  readonly eventId?: string;
  readonly triggeredAt?: string;
}
