import * as z from 'zod';
import type { PurchaseEvent } from '../../events/index.js';
import { lazyObject } from '../../schema/index.js';

/**
 * Square's part of a payment's purchase (`amountFrom` in the queued message): a payment carries no tax
 * breakdown, its order does, so for the `subtotal_excluding_tax` basis the worker reads the amount the
 * points are calculated on from the order (order-amount.ts). The share base of refunds stays the payment.
 */
export const SquareAmountFrom = lazyObject(z.object, () => ({
  kind: z.literal('square_order'),
  orderId: z.string().regex(/^[A-Za-z0-9_-]{1,192}$/),
  /** This payment's money with its tip, in minor units: its share of an order paid in parts. */
  paymentMinor: z.number().int().nonnegative(),
  rule: z.enum(['major_floor', 'minor']),
}));
export type SquareAmountFrom = z.infer<typeof SquareAmountFrom>;

/** A payment's purchase whose amount is its order's. */
export type SquareOrderPurchase = PurchaseEvent & { amountFrom: SquareAmountFrom };
