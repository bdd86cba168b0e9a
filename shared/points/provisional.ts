import { type BeforeEarnRefund, NO_MEMBER, type OrderRecord, pendingEarnKey, type ProvisionalRevision } from '../ledger/index.js';
import type { CustomerRef, EarnAfter, PurchaseEvent, RefundEvent } from '../events/index.js';
import { parseDecimal, subtractDecimals } from '../money/index.js';
import { DAY_MS } from '../time/index.js';
import { refundShare } from './debit.js';
import type { ProcessorDeps } from './deps.js';
import type { PurchaseProcessed } from './purchase-parts.js';

/**
 * Provisional points (issue 53): a source's `earnAfter` holds a purchase's points until its moment (the
 * order shipped, or N days after payment). The amount is computed at the moment, by the membership
 * service's calculation through the engine (its rank rate then, as at payment for the others), on the
 * whole amount as paid; each refund before it booked its share of the amount (the provisional figure
 * shrinks, a full refund ends the order `not_earned`) and debits its share of the credit at the moment,
 * by the design's proportion rule, like a refund after it. Nothing is called before the moment.
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

/**
 * What the order earns on at the moment: its whole amount as paid. The refunds before the moment are
 * listed on the order and debit their shares of that credit right after it, by the refund rule, so the
 * balance is the same whichever came first: credited C on the whole, refunds together take
 * floor(C x refunded / paid). (Earning on the remainder instead, the calculation's own floor on a smaller
 * amount, could differ from that by a point.)
 */
export function earnBaseOf(order: OrderRecord): { amount: number; exact: string | undefined } {
  const base = order.earnBase ?? { amount: order.eligibleAmount ?? 0, exact: order.eligibleExact };
  return { amount: base.amount, exact: base.exact };
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

/**
 * An edit of a sale before its day, told by a sender of the sale's current state (`earnAfter.current`,
 * a till's sender): what the provisional order earns on from now, or undefined when the delivery is a plain
 * repeat (or the order is not a provisional one it may revise). The chain of edits then ends in one
 * credit of the sale's final state at the day (nothing supplemented or taken back before it); the member
 * taken off leaves the order naming nobody (no page shows it; at the day it ends `not_earned` / `no_member`,
 * `endWithoutMember`; a member attached again before the day, or after it within the sender's window, earns it).
 */
export function revisionOf(order: OrderRecord | undefined, event: PurchaseEvent, nowMs: number): ProvisionalRevision | undefined {
  if (event.earnAfter?.kind !== 'days' || !event.earnAfter.current || event.earnMoment) return undefined;
  if (order?.state !== 'done' || order.outcome !== 'pending_earn' || order.earning || momentCame(order, event, nowMs)) return undefined;
  const base = { amount: event.calculationAmount ?? event.eligibleAmount, ...(event.eligibleExact ? { exact: event.eligibleExact } : {}) };
  const customer = event.customer;
  const same =
    order.earnBase?.amount === base.amount &&
    order.earnBase.exact === base.exact &&
    order.externalId === customer?.externalId &&
    order.externalKey === customer?.externalKey;
  if (same) return undefined;
  return {
    event: JSON.stringify(event),
    base,
    eligibleAmount: event.eligibleAmount,
    eligibleExact: event.eligibleExact,
    member: customer
      ? {
          externalKey: customer.externalKey,
          externalId: customer.externalId,
          customer: pendingEarnKey(event.source, customer.externalKey, customer.externalId),
        }
      : undefined,
  };
}

/**
 * A provisional order's sale edited before its day (`revisionOf`): it earns on the sale's state now.
 * Undefined: nothing to revise (a repeat), or the order moved on meanwhile (the caller's usual answer follows).
 */
export async function reviseProvisional(
  deps: Pick<ProcessorDeps, 'ledger' | 'clock' | 'logger'>,
  event: PurchaseEvent,
  current: OrderRecord | undefined,
): Promise<PurchaseProcessed | undefined> {
  const revision = revisionOf(current, event, deps.clock());
  if (!revision || !current) return undefined;
  const ref = { source: event.source, orderId: event.orderId };
  const order = await deps.ledger.reviseProvisional(ref, revision);
  if (!order) {
    deps.logger?.warn('provisional order not revised: a refund was booked on it before the day', ref);
    return undefined;
  }
  return { outcome: { kind: 'pending_earn', action: 'ack', earnWhen: order.earnWhen ?? current.earnWhen ?? '' }, order };
}

/**
 * A `days` order whose sale names nobody at its day (a member taken off it before, never put back): it
 * ends `not_earned` / `no_member`, recorded, out of the ticker's way, rather than staying provisional for
 * nobody. The sender's window for a member attached late (`customerMatchWindowSeconds`) runs on from the
 * day: a delivery naming a member by then re-opens it for its credit (`reopensForEarn`). Undefined: the
 * order is not such a one (not provisional, or its day has not come).
 */
export async function endWithoutMember(
  deps: Pick<ProcessorDeps, 'ledger' | 'clock'>,
  event: PurchaseEvent,
  current: OrderRecord | undefined,
): Promise<PurchaseProcessed | undefined> {
  const nowMs = deps.clock();
  if (event.customer || current?.state !== 'done' || current.outcome !== 'pending_earn' || current.earning) return undefined;
  if (current.earnWhen === 'fulfilled' || !momentCame(current, event, nowMs)) return undefined;
  const window = event.customerMatchWindowSeconds;
  const order = await deps.ledger.endWithoutMember(current, window ? nowMs + window * 1000 : undefined);
  if (!order) return undefined;
  return { outcome: { kind: 'not_earned', action: 'ack', reason: NO_MEMBER }, order };
}

/** The order's moment came while it was provisional, or it ended then naming nobody and a member may still come. */
export function reopensForEarn(order: OrderRecord | undefined, event: PurchaseEvent, nowMs: number): boolean {
  if (order?.state !== 'done') return false;
  if (order.outcome === 'pending_earn') return momentCame(order, event, nowMs);
  return order.outcome === 'not_earned' && order.reason === NO_MEMBER && (order.awaitingCustomerUntil ?? 0) >= nowMs;
}
