import type { PurchaseEvent, RefundEvent } from '../events/index.js';
import { compareDecimals, type Decimal, formatDecimal, parseDecimal, subtractDecimals, ZERO } from '../money/index.js';

/**
 * An order's credits as the ledger holds them, for a sender that tells what the order earns now (an
 * `earns` event, earns.ts): the purchase of the sale, then one supplementary purchase per edit that raised the amount above what was left credited (`<id>/up-1`, `<id>/up-2`, …,
 * each with its own marker). The membership service only grants points computed from an amount (no
 * preview, no rate exposed), so a raise to U credits the calculation on U in full and then takes back,
 * with the refund `superseded`, everything left of the credits before it: the member nets the
 * calculation on U less what was already credited, and the sale's credits add up to the service's own
 * calculation on the final amount, with no rounding of ours. At any time one credited purchase of the
 * chain, the last, is live: lowering edits, voids and returns take back from it (the earlier ones are
 * already taken back in full), so no refund can take back more than the sale's credits together.
 */

/** What the ledger holds of one purchase of the sale's chain (undefined: never seen). */
export interface OrderFacts {
  /** The ledger's order id (the sale's order id, or `<id>/up-<k>`). */
  orderId: string;
  state: 'stub' | 'pending' | 'done';
  outcome?: string | undefined;
  /** Why it earned nothing (`sale_moved`: it waited for a link while the chain moved on). */
  reason?: string | undefined;
  eligibleExact?: string | undefined;
  /** The member's external id the purchase was recorded for. */
  externalId?: string | undefined;
  /** Every refund id seen on the order. */
  refundIds: readonly string[];
  /** The refunds booked on the order (applied: debited, or found nothing left to debit). */
  booked: readonly string[];
  /** The points the order's grant moved (exact, else the balance difference): a deduction's are negative. */
  points?: number | undefined;
  /**
   * The chain's refunds (`adj-<T>`, `superseded`, `detached`, `cancel`) booked on the order whose record is
   * not finished (the worker died between booking and finishing): sent again, each is finished from the book.
   */
  unfinishedRefunds?: readonly string[] | undefined;
}

/** The sale's purchase and its supplements, oldest first. */
export interface SaleChain {
  sale: OrderFacts | undefined;
  supplements: readonly OrderFacts[];
}

export const SUPERSEDED_REFUND_ID = 'superseded';
/** Taken back because the member was taken off the sale: the purchase no longer counts (a member attached again earns anew). */
export const DETACHED_REFUND_ID = 'detached';
/** Taken back because the order earns nothing now (cancelled): what is left of each purchase of the chain. */
export const CANCEL_REFUND_ID = 'cancel';
/** Walking a chain stops there: a sale edited upward more often than this is not credited further. */
export const MAX_SUPPLEMENTS = 50;
const ADJUSTMENT = /^adj-(\d{1,18}(?:\.\d{1,12})?)$/;
const REMAINDERS: readonly string[] = [SUPERSEDED_REFUND_ID, DETACHED_REFUND_ID, CANCEL_REFUND_ID];
/** A refund the chain itself sends (an edit's `adj-<T>`, or a remainder taken back), not one a sender's event carries. */
export const isChainRefund = (refundId: string) => ADJUSTMENT.test(refundId) || REMAINDERS.includes(refundId);
/** The amount T of an `adj-<T>` refund id (undefined: not an adjustment). */
export function adjustmentOf(refundId: string): Decimal | undefined {
  const t = ADJUSTMENT.exec(refundId)?.[1];
  return t === undefined ? undefined : (parseDecimal(t) ?? ZERO);
}

export const supplementId = (saleId: string, generation: number) => `${saleId}/up-${generation}`;

const credited = (o: OrderFacts | undefined): o is OrderFacts => o?.state === 'done' && o.outcome === 'credited';
/**
 * A sale that found no member (a customer code no member holds) and waits for that customer's link: it
 * stands for its customer until an edit names another (or another amount), which a supplement then
 * credits; the link finds the chain moved on (`laterInChain`) and credits the sale to nobody.
 */
export const awaitingLink = (o: OrderFacts | undefined): o is OrderFacts => o?.state === 'done' && o.outcome === 'customer_not_found';
/**
 * A sale that waited for its customer's link and was skipped by it (`sale_moved`): its chain goes on (a later
 * edit naming that customer again, now a member, must still move the sale's points to them).
 */
const movedAway = (o: OrderFacts | undefined): o is OrderFacts =>
  o?.state === 'done' && o.outcome === 'skipped' && o.reason === 'sale_moved';
/** The sale a chain hangs off: credited, waiting for its customer's link, or skipped by that link. */
export const chainBase = (o: OrderFacts | undefined): o is OrderFacts => credited(o) || awaitingLink(o) || movedAway(o);
/** The chain's last purchase (the sale when it has no supplement). */
export const lastOfChain = (chain: SaleChain): OrderFacts | undefined => chain.supplements[chain.supplements.length - 1] ?? chain.sale;
const larger = (a: Decimal, b: Decimal) => (compareDecimals(a, b) >= 0 ? a : b);

/** The largest amount lowering edits have taken off the order (its `adj-<T>` refunds). */
export function takenOff(order: OrderFacts): Decimal {
  return order.refundIds
    .map((id) => ADJUSTMENT.exec(id)?.[1])
    .filter((t): t is string => t !== undefined)
    .map((t) => parseDecimal(t) ?? ZERO)
    .reduce(larger, ZERO);
}

/**
 * The order's largest lowering edit when its refund took the order but never booked (its debit in doubt:
 * a crash, a lost answer): it already counts as taken off (takenOff), so it must be sent again to be
 * settled, for what it added over the largest booked one.
 */
export function unbookedAdjustment(order: OrderFacts): { refundId: string; adds: Decimal } | undefined {
  const adjustments = order.refundIds.flatMap((id) => {
    const t = ADJUSTMENT.exec(id)?.[1];
    return t === undefined ? [] : [{ id, t: parseDecimal(t) ?? ZERO }];
  });
  const largest = adjustments.reduce<(typeof adjustments)[number] | undefined>(
    (a, b) => (a && compareDecimals(a.t, b.t) >= 0 ? a : b),
    undefined,
  );
  if (!largest || order.booked.includes(largest.id)) return undefined;
  const booked = adjustments
    .filter((a) => order.booked.includes(a.id))
    .map((a) => a.t)
    .reduce(larger, ZERO);
  return { refundId: largest.id, adds: subtractDecimals(largest.t, booked) };
}

/** What the ledger's credits stand for: the live purchase, the amount it is left credited on, the older ones still to take back. */
export interface ChainState {
  live: OrderFacts;
  liveEligible: Decimal;
  /** The live purchase's amount less what lowering edits took off it. */
  net: Decimal;
  /** Credited purchases before the live one whose remainder is not yet taken back. */
  toSupersede: OrderFacts[];
  /** Credited purchases not taken back for a detached member (none: the sale earns anew). */
  active: OrderFacts[];
  /** The last supplement when it is not finished (claimed or in doubt): it runs again before anything else. */
  unfinished: OrderFacts | undefined;
  /** The last supplement when it finished without a credit (e.g. the member withdrew), for the amount it was for. */
  failed: OrderFacts | undefined;
}

/**
 * The chain's state, or undefined while the sale itself is no chain's base (nothing to adjust). A sale
 * waiting for its customer's link (or skipped by it) is `live` while nothing of its chain is credited: not a credit.
 */
export function chainState(chain: SaleChain): ChainState | undefined {
  if (!chainBase(chain.sale)) return undefined;
  const orders = [chain.sale, ...chain.supplements];
  const creditedOrders = orders.filter(credited).filter((o) => !o.refundIds.includes(DETACHED_REFUND_ID));
  const live = creditedOrders[creditedOrders.length - 1] ?? chain.sale;
  const liveEligible = parseDecimal(live.eligibleExact ?? '') ?? ZERO;
  const last = chain.supplements[chain.supplements.length - 1];
  return {
    live,
    liveEligible,
    net: creditedOrders.length ? subtractDecimals(liveEligible, takenOff(live)) : ZERO,
    toSupersede: creditedOrders.slice(0, -1).filter((o) => !o.booked.includes(SUPERSEDED_REFUND_ID)),
    active: creditedOrders,
    unfinished: last && last.state !== 'done' ? last : undefined,
    failed: last && last.state === 'done' && !credited(last) ? last : undefined,
  };
}

/** The supplementary purchase crediting the calculation on `amount` (the whole raised total) under the order id `orderId`. */
export function supplementOf(sale: PurchaseEvent, orderId: string, amount: Decimal, units: number): PurchaseEvent {
  // A supplement follows a credited sale: it earns at once, whatever wait the sale had (its day has come).
  const { earnAfter: _, ...earned } = sale;
  return {
    ...earned,
    eventId: `${sale.source}:transaction:${orderId}`,
    orderId,
    eligibleAmount: units,
    eligibleExact: formatDecimal(amount),
  };
}

/** The refund taking back whatever is left of one purchase of the chain (`cancel`, `superseded`). */
export function remainderOf(template: RefundEvent, orderId: string, refundId: string): RefundEvent {
  return {
    ...template,
    eventId: `${template.source}:refund:${orderId}:${refundId}`,
    orderId,
    refundId,
    refundsRemainder: true,
  };
}

/** The ledger's order as the chain reads it (structural: the ledger's records, without importing its types). */
export interface ChainOrder {
  state: OrderFacts['state'];
  outcome?: string | undefined;
  reason?: string | undefined;
  eligibleExact?: string | undefined;
  externalId?: string | undefined;
  refundIds: readonly string[];
  refunds: Record<string, unknown>;
  pointsCredited?: number | undefined;
  pointsHint?: number | undefined;
}
export type ChainReader = (ref: { source: string; orderId: string }) => Promise<ChainOrder | undefined>;
/** The refund record's state as the ledger holds it (structural: `done` is final). */
export type RefundStateReader = (ref: { source: string; orderId: string; refundId: string }) => Promise<{ state: string } | undefined>;
/** What reaching an order reads: its orders and the records of the chain's booked refunds. */
export interface ChainLedger {
  getOrder: ChainReader;
  getRefund: RefundStateReader;
}

/** The order's facts; with `getRefund`, also which of the chain's booked refunds have a record not finished. */
export async function orderFacts(
  getOrder: ChainReader,
  source: string,
  orderId: string,
  getRefund?: RefundStateReader,
): Promise<OrderFacts | undefined> {
  const order = await getOrder({ source, orderId });
  if (!order) return undefined;
  const { state, outcome, reason, eligibleExact, refundIds, externalId } = order;
  const points = order.pointsCredited ?? order.pointsHint;
  const booked = Object.keys(order.refunds);
  const facts: OrderFacts = {
    orderId,
    state,
    outcome,
    eligibleExact,
    externalId,
    refundIds,
    booked,
    points,
    ...(reason ? { reason } : {}),
  };
  if (!getRefund) return facts;
  const chainBooked = booked.filter(isChainRefund);
  const records = await Promise.all(chainBooked.map((refundId) => getRefund({ source, orderId, refundId })));
  const unfinishedRefunds = chainBooked.filter((_, i) => records[i] !== undefined && records[i]?.state !== 'done');
  return unfinishedRefunds.length ? { ...facts, unfinishedRefunds } : facts;
}

const SUPPLEMENT = /^(.+)\/up-(\d{1,4})$/;

/**
 * The purchase of its sale's chain that came after `orderId` (the sale's first supplement, or the
 * supplement after this one), when the ledger holds it: the chain has moved on from `orderId` (a later
 * edit named another customer or amount), so what `orderId` was for is no longer the sale's truth.
 * Undefined: `orderId` is its chain's last purchase (or belongs to no chain: a sender without `earns`).
 */
export async function laterInChain(getOrder: ChainReader, source: string, orderId: string): Promise<string | undefined> {
  const supplement = SUPPLEMENT.exec(orderId);
  const next = supplement ? supplementId(supplement[1] as string, Number(supplement[2]) + 1) : supplementId(orderId, 1);
  return (await getOrder({ source, orderId: next })) ? next : undefined;
}

/**
 * The sale's purchase and its supplements (only a chain's base has any: credited, waiting for its
 * customer's link, or skipped by it), as the ledger holds them.
 * With `getRefund` (to reach what the order earns), the chain's booked refunds left unfinished are read too.
 */
export async function readChain(getOrder: ChainReader, source: string, saleId: string, getRefund?: RefundStateReader): Promise<SaleChain> {
  const sale = await orderFacts(getOrder, source, saleId, getRefund);
  const supplements: OrderFacts[] = [];
  if (!chainBase(sale)) return { sale, supplements };
  for (let k = 1; k <= MAX_SUPPLEMENTS; k++) {
    const next = await orderFacts(getOrder, source, supplementId(saleId, k), getRefund);
    if (!next) break;
    supplements.push(next);
  }
  return { sale, supplements };
}
