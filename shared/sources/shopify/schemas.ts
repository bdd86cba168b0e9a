import * as z from 'zod';
import { lazyObject, lazySchema } from '../../schema/index.js';

/** The answers of the GraphQL Admin API, as far as the client reads them. */

export const ShopMoney = lazySchema(() => z.object({ amount: z.string(), currencyCode: z.string() }));
export const MoneyBag = lazySchema(() => z.object({ shopMoney: ShopMoney }));
export type MoneyBag = z.infer<typeof MoneyBag>;

const PageInfo = lazySchema(() => z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }));

/** `gid://shopify/Order/123`: the numeric id the webhooks carry is the last segment. */
export const Gid = lazySchema(() => z.string().regex(/^gid:\/\/shopify\/[A-Za-z]+\/\d{1,20}$/, 'expected a gid://shopify/<Type>/<id>'));

export const AdminOrder = lazyObject(z.object, () => ({
  id: Gid,
  name: z.string().nullable(),
  test: z.boolean(),
  createdAt: z.string(),
  processedAt: z.string().nullable(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullable(),
  currencyCode: z.string(),
  taxesIncluded: z.boolean(),
  displayFinancialStatus: z.string().nullable(),
  customer: z.object({ id: Gid }).nullable(),
  subtotalPriceSet: MoneyBag.nullable(),
  totalTaxSet: MoneyBag.nullable(),
  totalPriceSet: MoneyBag,
  shippingLines: z.object({ nodes: z.array(z.object({ taxLines: z.array(z.object({ priceSet: MoneyBag })) })) }),
  refunds: z.array(z.object({ id: Gid, createdAt: z.string() })),
  /** `Order.discountCodes`: the codes the order used (a redemption's code marks it used). */
  discountCodes: z.array(z.string()).default([]),
}));
export type AdminOrder = z.infer<typeof AdminOrder>;

export const OrdersPage = lazyObject(z.object, () => ({
  orders: z.object({ pageInfo: PageInfo, nodes: z.array(AdminOrder) }),
}));
export type OrdersPage = z.infer<typeof OrdersPage>;

const RefundLine = lazySchema(() =>
  z.object({
    subtotalSet: MoneyBag,
    totalTaxSet: MoneyBag,
    /** How many of the line this refund gives back (a redemption's order is refunded in full once every line is). */
    quantity: z.number().int().nonnegative().optional(),
    lineItem: z.object({ isGiftCard: z.boolean(), id: Gid.optional() }).nullish(),
  }),
);
const Adjustment = lazySchema(() => z.object({ amountSet: MoneyBag, taxAmountSet: MoneyBag }));
const ShippingRefund = lazySchema(() => z.object({ subtotalAmountSet: MoneyBag, taxAmountSet: MoneyBag }));

export const RefundAnswer = lazyObject(z.object, () => ({
  refund: z
    .object({
      id: Gid,
      createdAt: z.string(),
      order: z.object({ id: Gid }),
      refundLineItems: z.object({ pageInfo: PageInfo, nodes: z.array(RefundLine) }),
      orderAdjustments: z.object({ nodes: z.array(Adjustment) }),
      refundShippingLines: z.object({ nodes: z.array(ShippingRefund) }),
    })
    .nullable(),
}));

/** One of an order's line items: its id and the quantity ordered. */
const OrderLine = lazySchema(() => z.object({ id: Gid, quantity: z.number().int().nonnegative() }));
export type AdminOrderLine = z.infer<typeof OrderLine>;

export const OrderLinesAnswer = lazyObject(z.object, () => ({
  order: z.object({ id: Gid, lineItems: z.object({ pageInfo: PageInfo, nodes: z.array(OrderLine) }) }).nullable(),
}));
export type OrderLinesAnswer = z.infer<typeof OrderLinesAnswer>;

/** A refund with every line item (all pages joined). */
export interface AdminRefund {
  id: string;
  createdAt: string;
  orderId: string;
  refundLineItems: z.infer<typeof RefundLine>[];
  orderAdjustments: z.infer<typeof Adjustment>[];
  refundShippingLines: z.infer<typeof ShippingRefund>[];
}

/** `extensions.cost` of every answer (https://shopify.dev/docs/api/usage/limits). */
export const Cost = lazyObject(z.object, () => ({
  requestedQueryCost: z.number(),
  actualQueryCost: z.number().nullable(),
  throttleStatus: z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() }),
}));
export type Cost = z.infer<typeof Cost>;

export const GraphqlAnswer = lazyObject(z.object, () => ({
  data: z.unknown().optional(),
  errors: z
    .array(z.object({ message: z.string(), extensions: z.object({ code: z.string().optional() }).loose().optional() }).loose())
    .optional(),
  extensions: z.object({ cost: Cost.optional() }).loose().optional(),
}));

/** The numeric id at the end of a gid. */
export function legacyId(gid: string): string {
  return gid.slice(gid.lastIndexOf('/') + 1);
}
export type RefundAnswer = z.infer<typeof RefundAnswer>;
