import * as z from 'zod';
import { lazySchema } from '../schema/index.js';

/**
 * A Shopify source's redemption settings (points turned into a single-use discount code, docs/redemption.md).
 * The stage file's `sources.<shopify>.redemption` and `npm start`'s SHOPIFY_REDEMPTION_* variables both
 * end in this schema, so both get the same defaults and the same refusals.
 */

/** One point's value in the shop's currency: a decimal string, never a float (`1`, `0.5`). */
const ValuePerPoint = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,9}(?:\.\d{1,6})?$/, 'a decimal such as "1" or "0.5"')
    .refine((v) => /[1-9]/.test(v), 'must be above 0'),
);

export const REDEMPTION_DEFAULT_VALID_SECONDS = 30 * 86_400;
/**
 * How long after a code's end the sweep waits before it asks Shopify for the code's orders and gives
 * anything back. An hour: a checkout that took the code just before its end, and a delayed-payment
 * order, are orders at Shopify within minutes, and Shopify's order search (and its asyncUsageCount)
 * lag seconds to minutes; returning points an hour late costs the customer nothing they could spend
 * in between (the code still holds them), while returning them early risks a claw-back.
 */
export const REDEMPTION_DEFAULT_GRACE_SECONDS = 3600;

export const RedemptionSettings = lazySchema(() =>
  z
    .object({
      /** Customers may turn points into codes (the App Proxy's points page and redeem route). */
      enabled: z.boolean().default(false),
      valuePerPoint: ValuePerPoint.default('1'),
      /** Fewest points one redemption takes. */
      minPoints: z.number().int().min(1).max(999_999_999).default(100),
      /** Points are redeemed in multiples of this. */
      step: z.number().int().min(1).max(999_999_999).default(1),
      /** How long a code can be used; after it, an unused code is ended and its points come back. */
      validSeconds: z
        .number()
        .int()
        .min(10)
        .max(366 * 86_400)
        .default(REDEMPTION_DEFAULT_VALID_SECONDS),
      /** The sweep waits this long after a code's end before it returns anything (0 … 7 days). */
      graceSeconds: z
        .number()
        .int()
        .min(0)
        .max(7 * 86_400)
        .default(REDEMPTION_DEFAULT_GRACE_SECONDS),
      /**
       * What a refund of an order that used a code does with the redeemed points: `full` (default) gives
       * them back once the order is refunded in full or cancelled; `any` on its first refund, even partial;
       * `never` keeps them spent.
       */
      onRefund: z.enum(['full', 'any', 'never']).default('full'),
      /**
       * Whether a code combines with shipping discounts (`combinesWith.shippingDiscounts`). Default true:
       * the points are the customer's own, and a shop's automatic free shipping ("送料無料 over ¥X") lost
       * by paying with them is a surprise at checkout; false for a shop whose shipping offers must not stack.
       */
      combinesWithShipping: z.boolean().default(true),
      /**
       * The shop's currency, in which the code's amount is made: checked against the shop's own
       * (`shop { currencyCode }`) when a redeeming function starts, and refused when they differ.
       */
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .default('JPY'),
    })
    .strict(),
);
export type RedemptionSettings = z.infer<typeof RedemptionSettings>;
