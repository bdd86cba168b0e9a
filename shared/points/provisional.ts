import { type BeforeEarnRefund, type OrderRecord, pendingEarnKey } from '../ledger/index.js';
import type { CustomerRef, EarnAfter, PurchaseEvent, RefundEvent } from '../events/index.js';
import { formatDecimal, parseDecimal, subtractDecimals } from '../money/index.js';
import { DAY_MS } from '../time/index.js';
import { refundShare } from './debit.js';

/**
 * Provisional points (issue 53): a source's `earnAfter` holds a purchase's points until its moment (the
 * order shipped, or N days after payment). The amount is computed at the moment, by the membership
 * service's calculation through the engine (its rank rate then, as at payment for the others), on what
 * is left of the order after the refunds before it: each refund takes its share of the amount by the
 * design's proportion rule, exactly when the amounts are exact. Nothing is called before the moment.
 */

/** `fulfilled`, or the ISO time the points are due (`days` after the purchase happened). */
export function earnWhenOf(earnAfter: EarnAfter, occurredAt: string): string {
  if (earnAfter.kind === 'fulfilled') return 'fulfilled';
  const paid = Date.parse(occurredAt);
  return new Date((Number.isNaN(paid) ? 0 : paid) + earnAfter.days * DAY_MS).toISOString();
}

/** Whether an order's moment has come by `nowMs` (a `days` moment only: fulfilment is a webhook). */
export function isDue(earnWhen: string, nowMs: number): boolean {
  const at = Date.parse(earnWhen);
  return !Number.isNaN(at) && at <= nowMs;
}

/** What the purchase waits for now, or undefined when its points are earned at once. */
export function provisionalWhen(event: PurchaseEvent, nowMs: number): string | undefined {
  if (!event.earnAfter || event.earnMoment || event.fixedPoints !== undefined) return undefined;
  const when = earnWhenOf(event.earnAfter, event.occurredAt);
  // A late delivery whose day has passed earns at once (the ticker would do the same a minute later).
  return when !== 'fulfilled' && isDue(when, nowMs) ? undefined : when;
}

/** What the order earns on at the moment: its amount as paid less the refunds before it (units and exact). */
export function earnRemainder(order: OrderRecord): { amount: number; exact: string | undefined } {
  const base = order.earnBase ?? { amount: order.eligibleAmount ?? 0, exact: order.eligibleExact };
  if (order.earnRefunded === 0) return { amount: base.amount, exact: base.exact };
  const whole = base.exact === undefined ? undefined : parseDecimal(base.exact);
  const taken = order.earnRefundedExact === undefined ? undefined : parseDecimal(order.earnRefundedExact);
  if (!whole || !taken || whole.units <= 0n) return { amount: Math.max(0, base.amount - order.earnRefunded), exact: undefined };
  const left = subtractDecimals(whole, taken);
  if (left.units <= 0n) return { amount: 0, exact: '0' };
  // The amount rule rounded the whole once: the remainder is its proportion of the rounded amount, floored.
  const scale = Math.max(whole.scale, left.scale);
  const w = whole.units * 10n ** BigInt(scale - whole.scale);
  const l = left.units * 10n ** BigInt(scale - left.scale);
  return { amount: Number((BigInt(base.amount) * l) / w), exact: formatDecimal(left) };
}

/** A refund's share of a provisional order: by the refund rule on its amount as paid (no points taken). */
export function beforeEarnShare(order: OrderRecord, event: RefundEvent): BeforeEarnRefund {
  const base = order.earnBase ?? { amount: order.eligibleAmount ?? 0, exact: order.eligibleExact };
  const share = refundShare(
    {
      eligibleAmount: base.amount,
      credited: 0,
      refundedSoFar: order.earnRefunded,
      debitTarget: 0,
      eligibleExact: base.exact,
      refundedExact: order.earnRefundedExact,
      terms: order.terms,
      currency: order.currency,
    },
    event,
  );
  const exactLeft =
    share.exactRefundedAfter !== null && base.exact !== undefined
      ? (parseDecimal(base.exact)?.units ?? 0n) > 0n &&
        subtractDecimals(
          parseDecimal(base.exact) ?? { units: 0n, scale: 0 },
          parseDecimal(share.exactRefundedAfter) ?? { units: 0n, scale: 0 },
        ).units > 0n
      : share.refundedAfter < base.amount;
  return {
    refundId: event.refundId,
    amount: share.amount,
    refundedAfter: share.refundedAfter,
    exactRefundedAfter: share.exactRefundedAfter,
    nothingLeft: event.refundsRemainder || !exactLeft,
  };
}

/** Fulfilment ends a `fulfilled` wait; a `days` wait ends at its time, whoever delivers then. */
export function momentCame(order: OrderRecord, event: PurchaseEvent, nowMs: number): boolean {
  if (order.earnWhen === 'fulfilled') return event.earnMoment === 'fulfilled';
  return isDue(order.earnWhen ?? '', nowMs);
}

/**
 * What a provisional order keeps: its amount, its event (run again at the moment) and a key in its
 * customer's index (the points page).
 */
export function provisionalFacts(event: PurchaseEvent, customer: CustomerRef, earnWhen: string) {
  return {
    earnWhen,
    customer: pendingEarnKey(event.source, customer.externalKey, customer.externalId),
    purchasedAt: event.occurredAt,
    event: JSON.stringify(event),
    base: { amount: event.calculationAmount ?? event.eligibleAmount, ...(event.eligibleExact ? { exact: event.eligibleExact } : {}) },
  };
}
