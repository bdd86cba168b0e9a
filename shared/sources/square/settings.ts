import * as z from 'zod';
import { AmountRule } from '../../money/index.js';
import { ExternalKey, TitleTemplate } from '../settings.js';
import type { SourceSettingsKind } from '../types.js';
import { lazySchema } from '../../schema/index.js';

/** A Square source's settings (SOURCES_CONFIG), apart from its webhook parsing: what non-intake functions read. */
export const SquareSettings = lazySchema(() =>
  z
    .object({
      /** The external key a Square `customer_id` is looked up by. */
      externalKey: ExternalKey.default('square'),
      /**
       * The URL Square was given for this subscription: Square signs it together with the body, and
       * behind API Gateway or a proxy the request's own URL differs. The stack and `npm start` fill it in.
       */
      notificationUrl: z.url({ protocol: /^https?$/ }).optional(),
      amount: z
        .object({
          /**
           * `amount`: `amount_money`, without the tip (default); `total`: `total_money`, tip included;
           * `subtotal_excluding_tax`: what the payment's order sold without consumption tax, after
           * discounts, without gift cards, tips and service charges, read from Square's Orders API by the
           * worker (the web shop's basis; needs the source's Orders API token, docs/square.md). Refunds
           * take back the share of the payment they return.
           */
          basis: z.enum(['amount', 'total', 'subtotal_excluding_tax']).default('amount'),
          rule: AmountRule.default('major_floor'),
        })
        .strict()
        .prefault({}),
      pointTitle: TitleTemplate.default('Purchase {order}'),
      refundTitle: TitleTemplate.default('Refund {order}'),
      expiryDays: z.number().int().positive().max(36_500).nullable().default(null),
      /**
       * Square may attach `customer_id` to a completed payment later (asynchronous customer matching).
       * For this long after a completed payment was first seen without a customer, a later delivery
       * naming the customer still earns its points; 0: the first outcome is final.
       */
      customerMatchWindowSeconds: z
        .number()
        .int()
        .min(0)
        .max(30 * 86_400)
        .default(86_400),
    })
    .strict(),
);
export type SquareSettings = z.infer<typeof SquareSettings>;

/** The settings side of the square source (its webhook.ts adds the parsing). */
export const squareSettingsKind: SourceSettingsKind<SquareSettings> = {
  kind: 'square',
  settingsSchema: SquareSettings,
};
