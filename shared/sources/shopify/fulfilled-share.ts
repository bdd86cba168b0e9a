import * as z from 'zod';
import { type Decimal, subtractDecimals, sumDecimals, ZERO } from '../../money/index.js';
import { lazyObject } from '../../schema/index.js';
import { DecimalAmount, NumericId, schemaError } from '../payload.js';
import type { SourceError } from '../types.js';
import { MoneySet } from './webhook-payload.js';

/**
 * Partial fulfilments (issue 53, `earnAfter: fulfilled`): the share of an order its shipped lines carry,
 * read from the Order resource's `fulfillments` (every `orders/*` topic, orders/partially_fulfilled
 * included, sends the whole order with all its fulfilments so far). A line is worth its price times its
 * quantity less its discount allocations; a fulfilment of part of a line's quantity carries that part
 * of it. The share stays an exact fraction: the amount it earns on is rounded once, by the points core
 * (`shippedUnits`, shared/points/shares.ts), so fulfilments adding up to the whole order earn on exactly
 * the whole order's amount.
 */

const Line = lazyObject(z.object, () => ({
  id: NumericId,
  gift_card: z.boolean().default(false),
  price: DecimalAmount.optional(),
  price_set: MoneySet.optional(),
  quantity: z.number().int().nonnegative(),
  discount_allocations: z.array(z.object({ amount: DecimalAmount.optional(), amount_set: MoneySet.optional() })).default([]),
}));

const Fulfilment = lazyObject(z.object, () => ({
  id: NumericId,
  status: z.string().nullish(),
  line_items: z.array(z.object({ id: NumericId, quantity: z.number().int().nonnegative() })).default([]),
}));

const OrderLines = lazyObject(z.object, () => ({
  line_items: z.array(Line).default([]),
  fulfillments: z.array(Fulfilment).default([]),
}));

/** An exact fraction of the order (numerator over denominator, both non-negative, denominator > 0). */
export interface Share {
  readonly num: bigint;
  readonly den: bigint;
}

export interface FulfilledShare {
  /** The fulfilments counted (status `success`), by id: each share's marker names them. */
  readonly fulfilmentIds: readonly string[];
  /** What the shipped lines carry of the order's lines' worth (gift cards left out: they earn nothing). */
  readonly share: Share;
}

/** Only a fulfilment that happened ships goods: `failure`, `cancelled`, `error` and `pending` ship nothing. */
const SHIPPED = 'success';

function money(set: MoneySet | undefined, plain: Decimal | undefined): Decimal {
  return set?.shop_money.amount ?? plain ?? ZERO;
}

const scaled = (d: Decimal, scale: number): bigint => d.units * 10n ** BigInt(scale - d.scale);

/** The share of the order the successful fulfilments in `order` carry; bad lines are refused by path. */
export function fulfilledShare(order: unknown): FulfilledShare | SourceError {
  const parsed = OrderLines.safeParse(order);
  if (!parsed.success) return schemaError(parsed.error);
  const lines = parsed.data.line_items.filter((l) => !l.gift_card && l.quantity > 0);
  const worth = new Map(
    lines.map((l) => {
      const price = money(l.price_set, l.price);
      const discounts = sumDecimals(l.discount_allocations.map((a) => money(a.amount_set, a.amount)));
      return [
        l.id,
        { value: subtractDecimals({ units: price.units * BigInt(l.quantity), scale: price.scale }, discounts), quantity: l.quantity },
      ];
    }),
  );
  const shipped = parsed.data.fulfillments.filter((f) => f.status === SHIPPED);
  // Quantity shipped per line, capped at the line's quantity (a line shipped twice is not worth twice).
  const quantities = new Map<string, number>();
  for (const f of shipped) {
    for (const l of f.line_items) if (worth.has(l.id)) quantities.set(l.id, (quantities.get(l.id) ?? 0) + l.quantity);
  }
  const scale = Math.max(0, ...[...worth.values()].map((w) => w.value.scale));
  const whole = [...worth.values()].reduce((sum, w) => sum + scaled(w.value, scale), 0n);
  if (whole <= 0n) return { fulfilmentIds: shipped.map((f) => f.id), share: { num: 0n, den: 1n } };
  // Each line's shipped part is value × shippedQty / qty: summed over a common denominator, exactly.
  let num = 0n;
  let den = 1n;
  for (const [id, w] of worth) {
    const q = Math.min(quantities.get(id) ?? 0, w.quantity);
    if (q === 0) continue;
    const lineNum = scaled(w.value, scale) * BigInt(q);
    const lineDen = BigInt(w.quantity);
    num = num * lineDen + lineNum * den;
    den *= lineDen;
  }
  return { fulfilmentIds: shipped.map((f) => f.id), share: { num, den: den * whole } };
}
