import * as z from 'zod';
import { AmountBasis } from '../events/index.js';
import { AmountRule } from '../money/index.js';
import { lazySchema } from '../schema/index.js';
import { renderTitle, TITLE_PLACEHOLDER, TITLE_PLACEHOLDERS, type TitleValues } from '../text/index.js';

export { AmountBasis };

/**
 * Settings pieces every source shares. Each source's full schema (shopify.ts, pos.ts) is built
 * from these; defaults live here, in one place.
 */

/** A membership-service external key: letters, digits, `_`, `-`, at most 64 (Open API rule). */
export const ExternalKey = lazySchema(() => z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an external key is 1-64 letters, digits, _ or -'));

/** An external ID value as the Open API accepts it: letters, digits and `* - . _`, at most 255. */
export const EXTERNAL_ID = /^[A-Za-z0-9*._-]{1,255}$/;

export const AmountSettings = lazySchema(() =>
  z
    .object({
      basis: AmountBasis.default('subtotal_excluding_tax'),
      /** `major_floor`: whole major units rounded down (default); `minor`: minor units (cents). */
      rule: AmountRule.default('major_floor'),
    })
    .strict(),
);
export type AmountSettings = z.infer<typeof AmountSettings>;

// The rendering is shared/text's: the points core renders the titles of the refunds an order's earning needs.
export { renderTitle, TITLE_PLACEHOLDERS, type TitleValues };

/** A point title template such as "Purchase {order}"; only known placeholders are allowed. */
export const TitleTemplate = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(255)
    .refine((t) => [...t.matchAll(TITLE_PLACEHOLDER)].every((m) => (TITLE_PLACEHOLDERS as readonly string[]).includes(m[1] ?? '')), {
      message: `unknown placeholder; use ${TITLE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
    }),
);

export const TestOrders = lazySchema(() => z.enum(['ignore', 'record', 'credit']));
export type TestOrders = z.infer<typeof TestOrders>;

/** Settings every source has. */
export const commonSettings = () => ({
  amount: AmountSettings.prefault({}),
  pointTitle: TitleTemplate.default('Purchase {order}'),
  refundTitle: TitleTemplate.default('Refund {order}'),
  /** Days until granted points expire; null: the membership service's default expiry. */
  expiryDays: z.number().int().positive().max(36_500).nullable().default(null),
  /**
   * The sender's test orders (Shopify development stores make nothing else; POS training mode):
   * `ignore` answers them 200 `ignored` and queues nothing; `record` queues them and processing
   * records them as `skipped` (reason `test`) without calling the membership service; `credit`
   * treats them as real sales (points credited and debited), for a staging stage fed by a dev store.
   */
  testOrders: TestOrders.default('ignore'),
});
