import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { lazyObject, lazySchema } from '../../schema/index.js';

/**
 * The parts of a Square `Order` (Orders API `RetrieveOrder`) the eligible amount is read from. Money
 * is `{amount, currency}` with `amount` an integer in the currency's smallest unit (yen for JPY).
 */
const Money = lazySchema(() =>
  z.object({ amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), currency: z.string().regex(/^[A-Z]{3}$/) }),
);

export const SquareOrderLine = lazyObject(z.object, () => ({
  /** `ITEM` (default), `CUSTOM_AMOUNT` or `GIFT_CARD`: a gift card sold is money, not a sale. */
  item_type: z.string().optional(),
  /** The line after its discounts, with its tax when the tax is added to the price. */
  total_money: Money,
  /** The line's tax, added or included (Square reports both kinds here). */
  total_tax_money: Money.optional(),
}));

export const SquareOrder = lazyObject(z.object, () => ({
  id: z.string(),
  location_id: z.string().optional(),
  line_items: z.array(SquareOrderLine).default([]),
  total_money: Money,
  total_tax_money: Money.optional(),
}));
export type SquareOrder = z.infer<typeof SquareOrder>;

export const RetrieveOrderAnswer = lazySchema(() => z.object({ order: SquareOrder }));

/**
 * What the order sold without consumption tax, after discounts: each line's `total_money` less its
 * `total_tax_money` (an included tax is inside the total, an added one on top: taking it out is right
 * for both), over every line but gift cards. Tips and service charges are not lines, so they are out.
 */
export function subtotalExcludingTax(order: SquareOrder): { minor: bigint; currency: string } {
  let minor = 0n;
  for (const line of order.line_items) {
    if (line.item_type === 'GIFT_CARD') continue;
    minor += BigInt(line.total_money.amount) - BigInt(line.total_tax_money?.amount ?? 0);
  }
  return { minor: minor < 0n ? 0n : minor, currency: order.total_money.currency };
}
