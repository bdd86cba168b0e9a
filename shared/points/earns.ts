import type { PointsEvent, PurchaseEvent, RefundEvent } from '../events/index.js';
import {
  type AmountRule,
  compareDecimals,
  type Decimal,
  formatDecimal,
  parseDecimal,
  subtractDecimals,
  toUnits,
  ZERO,
} from '../money/index.js';
import { renderTitle } from '../text/index.js';
import {
  adjustmentOf,
  awaitingLink,
  CANCEL_REFUND_ID,
  chainBase,
  chainState,
  DETACHED_REFUND_ID,
  lastOfChain,
  MAX_SUPPLEMENTS,
  type OrderFacts,
  remainderOf,
  type SaleChain,
  SUPERSEDED_REFUND_ID,
  supplementId,
  supplementOf,
  unbookedAdjustment,
} from './chain.js';

/**
 * "This order now earns X": the canonical event of a sender that tells the current truth of a sale
 * (what it earns now, whatever changed it) rather than each change. The points core reaches X from what
 * the ledger holds of the order's chain (chain.ts) with purchases and refunds of stable ids, so the
 * exactly-once protocol makes a repeat of any of them change nothing:
 *
 * - earns nothing now (`cancelled`): the order's purchase when known, then the refund `cancel` taking
 *   back what is left of each purchase of its chain (a sale first seen cancelled is credited and taken
 *   back at once: the ledger shows both, the balance does not move);
 * - less than its credits stand for: the refund `adj-<T>` on the chain's live purchase, T the amount
 *   taken off its amount; it adds T less the largest T already seen there, so repeats add nothing;
 * - more: the supplementary purchase `<id>/up-<k>` on the new total, then (the next round, once it is
 *   credited) the refund `superseded` of the purchases before it;
 * - the member taken off: the refund `detached` of every credited purchase; another member: a
 *   supplement credited to them, then the earlier credits taken back (`superseded`); another customer the
 *   supplement could not credit (no member holds the code, the member withdrew): `detached`, as when the
 *   member is taken off, so the earning never stays with the old member.
 */
export interface EarnsEvent {
  type: 'earns';
  source: string;
  /** The sale's order id: the chain's ids hang off it (`<orderId>/up-<k>`). */
  orderId: string;
  /**
   * What the order earns now, as its canonical purchase (customer: null when no member now; the exact
   * amount and its units, titles, terms). Undefined only when cancelled and the sale itself is not known.
   */
  purchase: PurchaseEvent | undefined;
  /** The order earns nothing now: whatever it earned is taken back. */
  cancelled: boolean;
  /** What the refunds reaching X carry: the change's time, delivery, test flag and the refund title template. */
  refunds: {
    occurredAt: string;
    delivery: PurchaseEvent['delivery'];
    test: boolean;
    /** The refund title (`{order}`, `{orderId}`, `{source}`), rendered with the order the refund is on. */
    title: string;
    /** The change's own amount (its magnitude): the amount a refund taking back a remainder is sent with. */
    amount: Decimal;
  };
  currency: string;
  rule: AmountRule;
}

/** The events reaching what the order earns, in order. */
export interface Reach {
  events: PointsEvent[];
  /** Something the order asks for that is not done (a sale raised more often than the chain allows). */
  note?: string;
  /** A supplement is among the events: reach again once it ran, to take back what it supersedes. */
  again?: boolean;
}

const MAX_UNITS = 999_999_999n;
export { CANCEL_REFUND_ID };

/** The exact amount in whole units of the event's rule, within what a grant may carry. */
export function earnsUnits(earns: Pick<EarnsEvent, 'currency' | 'rule'>, amount: Decimal): number {
  const u = toUnits(amount, earns.currency, earns.rule);
  return Number(u > MAX_UNITS ? MAX_UNITS : u < 0n ? 0n : u);
}

/** A refund of the order's change on `orderId` (the whole change's amount; a remainder: what is left of the order). */
export function earnsRefund(earns: EarnsEvent, orderId: string, refundId: string, remainder: boolean): RefundEvent {
  const { refunds } = earns;
  return {
    type: 'refund',
    eventId: `${earns.source}:refund:${orderId}:${refundId}`,
    source: earns.source,
    orderId,
    refundId,
    customer: null,
    currency: earns.currency,
    occurredAt: refunds.occurredAt,
    pointTitle: renderTitle(refunds.title, { order: orderId, orderId, source: earns.source }),
    test: refunds.test,
    delivery: refunds.delivery,
    refundAmount: earnsUnits(earns, refunds.amount),
    refundExact: formatDecimal(refunds.amount),
    refundsRemainder: remainder,
  };
}

/** The purchases and refunds that bring the order's credits (its chain, as the ledger holds it) to what it earns now. */
export function reachEarns(earns: EarnsEvent, chain: SaleChain): Reach {
  const reach = reachOnly(earns, chain);
  const unfinished = finishing(earns, chain);
  if (!unfinished.length) return reach;
  // After the sale's purchase (a refund never runs ahead of it), before what the order asks for now.
  const [first, ...rest] = reach.events;
  const events = first?.type === 'purchase' ? [first, ...unfinished, ...rest] : [...unfinished, ...reach.events];
  const ids = events.map((e) => e.eventId);
  return { ...reach, events: events.filter((e, i) => ids.indexOf(e.eventId) === i) };
}

function reachOnly(earns: EarnsEvent, chain: SaleChain): Reach {
  if (earns.cancelled) return { events: cancelChain(earns, chain) };
  if (!earns.purchase) return { events: [] };
  return adjusted(earns, earns.purchase, chain);
}

/**
 * The chain's refunds booked on their order whose record was never finished (the worker died between
 * booking the debit and finishing the record): sent again, the refund protocol finds them booked and
 * finishes them from the book without a second debit (or answers `duplicate` once they are done), so
 * each ends in its recorded outcome. Nothing else would send them again: what is booked counts as done.
 */
function finishing(earns: EarnsEvent, chain: SaleChain): RefundEvent[] {
  const template = earnsRefund(earns, earns.orderId, CANCEL_REFUND_ID, true);
  const orders = [chain.sale, ...chain.supplements].filter((o): o is OrderFacts => o !== undefined);
  return orders.flatMap(({ orderId, unfinishedRefunds }) =>
    (unfinishedRefunds ?? []).map((refundId) => {
      const t = adjustmentOf(refundId);
      return t ? adjustment(earns, orderId, refundId, t) : remainderOf(template, orderId, refundId);
    }),
  );
}

/**
 * The refund `cancel` of every purchase of the sale's chain (what is left of each: the sale's credits
 * together), after the sale's purchase when known and a supplement left unfinished, so none waits for
 * a purchase nobody runs.
 */
function cancelChain(earns: EarnsEvent, chain: SaleChain): PointsEvent[] {
  const sale = earns.purchase;
  const cancel = earnsRefund(earns, earns.orderId, CANCEL_REFUND_ID, true);
  // A sale recorded as earning nothing (no member, not a sale) has nothing to take back; its refund would
  // only wait for a member a cancelled sale never gets. Not one its link skipped: its chain may hold credits.
  if (chain.sale?.state === 'done' && chain.sale.outcome === 'skipped' && !chainBase(chain.sale)) return sale ? [sale] : [];
  const unfinished = sale ? chainState(chain)?.unfinished : undefined;
  return [
    ...(sale ? [sale] : []),
    ...(sale && unfinished ? [rerun(earns, sale, unfinished)] : []),
    cancel,
    ...chain.supplements.map((o) => remainderOf(cancel, o.orderId, CANCEL_REFUND_ID)),
  ];
}

/** An unfinished supplement, run again on the amount it was claimed for. */
function rerun(earns: EarnsEvent, sale: PurchaseEvent, order: OrderFacts): PurchaseEvent {
  const amount = parseDecimal(order.eligibleExact ?? '') ?? ZERO;
  return supplementOf(sale, order.orderId, amount, earnsUnits(earns, amount));
}

/**
 * What the sale earns now, reached (`reaching`); and when it earns nothing for anyone now (no customer,
 * ¥0, not a sale) while its chain's last purchase waits for a customer's link, the next purchase of the
 * chain recording that (`closing`), so the link finds the chain moved on and credits the waiting one to nobody.
 */
function adjusted(earns: EarnsEvent, purchase: PurchaseEvent, chain: SaleChain): Reach {
  const reach = reaching(earns, purchase, chain);
  const close = closing(earns, purchase, chain);
  if (!close || reach.again || reach.events.some((e) => e.eventId === close.eventId)) return reach;
  return { ...reach, events: [...reach.events, close] };
}

/**
 * "Nothing now" as a purchase of the chain, after a purchase waiting for its customer's link: recorded
 * `skipped` (its reason: no customer, ¥0, ...) by the usual protocol with no call, it is a later purchase
 * of the chain (`laterInChain`), and the chain's base all the same, so a later edit naming a member
 * makes the next supplement as after any purchase that credited nobody.
 */
function closing(earns: EarnsEvent, purchase: PurchaseEvent, chain: SaleChain): PurchaseEvent | undefined {
  const now = parseDecimal(purchase.eligibleExact ?? '0') ?? ZERO;
  const earnsNothing = !purchase.customer || purchase.notEarning !== undefined || earnsUnits(earns, now) === 0;
  if (!earnsNothing || !awaitingLink(lastOfChain(chain)) || chain.supplements.length >= MAX_SUPPLEMENTS) return undefined;
  // Final as it stands: no window for a customer named later (an edit naming one makes the next supplement).
  const { customerMatchWindowSeconds: _, ...nothing } = purchase;
  return supplementOf(nothing, supplementId(earns.orderId, chain.supplements.length + 1), now, earnsUnits(earns, now));
}

/** A credited sale whose current amount differs from what is left credited: the supplement or the refund of the difference. */
function reaching(earns: EarnsEvent, purchase: PurchaseEvent, chain: SaleChain): Reach {
  const state = chainState(chain);
  if (!state) return { events: [purchase] };
  // The sale waits for its customer's link and still names them, for the same amount: nothing changed.
  if (awaitingLink(state.live) && chain.supplements.length === 0 && unchanged(state.live, purchase)) return { events: [purchase] };
  if (state.unfinished) return { events: [purchase, rerun(earns, purchase, state.unfinished)], again: true };
  const template = earnsRefund(earns, earns.orderId, SUPERSEDED_REFUND_ID, true);
  const events: PointsEvent[] = [purchase, ...state.toSupersede.map((o) => remainderOf(template, o.orderId, SUPERSEDED_REFUND_ID))];
  const member = purchase.customer?.externalId;
  // What the sale earned goes back from the member it was credited to (a member attached again earns anew).
  const detached: Reach = { events: [purchase, ...state.active.map((o) => remainderOf(template, o.orderId, DETACHED_REFUND_ID))] };
  // The member was taken off the sale (staff moved them to another sale).
  if (!member) return detached;
  // A lowering edit's refund left in doubt counts as taken off below: sent again, the refund protocol settles it.
  const inDoubt = unbookedAdjustment(state.live);
  if (inDoubt) events.push(adjustment(earns, state.live.orderId, inDoubt.refundId, inDoubt.adds));
  const now = parseDecimal(purchase.eligibleExact ?? '0') ?? ZERO;
  // Another member now: the sale's points move to them (a supplement credited to them, then the earlier credits taken back).
  const moved = state.live.externalId !== undefined && state.live.externalId !== member;
  const direction = compareDecimals(now, moved || state.active.length === 0 ? ZERO : state.net);
  if (direction > 0) {
    // A supplement that ended uncredited (the member withdrew, points unavailable) is not tried again for the same amount.
    const failedFor = state.failed ? parseDecimal(state.failed.eligibleExact ?? '') : undefined;
    if (failedFor && compareDecimals(failedFor, now) === 0 && state.failed?.externalId === member) {
      // Moved to a customer it could not credit (no member holds the code, withdrawn): the sale is no
      // longer the old member's, so their credits go back as when the member is taken off.
      return moved ? detached : { events };
    }
    if (chain.supplements.length >= MAX_SUPPLEMENTS) {
      const note = `order ${earns.orderId} was raised more than ${MAX_SUPPLEMENTS} times: the increase to ${formatDecimal(now)} is not credited`;
      return { events, note };
    }
    const id = supplementId(earns.orderId, chain.supplements.length + 1);
    return { events: [...events, supplementOf(purchase, id, now, earnsUnits(earns, now))], again: true };
  }
  if (direction < 0) {
    const off = subtractDecimals(state.liveEligible, now);
    events.push(adjustment(earns, state.live.orderId, `adj-${formatDecimal(off)}`, subtractDecimals(state.net, now)));
  }
  return { events };
}

/** The order was recorded for the purchase's customer and amount. */
function unchanged(order: OrderFacts, purchase: PurchaseEvent): boolean {
  const was = parseDecimal(order.eligibleExact ?? '') ?? ZERO;
  const now = parseDecimal(purchase.eligibleExact ?? '') ?? ZERO;
  return order.externalId === purchase.customer?.externalId && compareDecimals(was, now) === 0;
}

/** The refund of a lowering edit on the live purchase, for what it adds. */
function adjustment(earns: EarnsEvent, orderId: string, refundId: string, adds: Decimal): RefundEvent {
  return { ...earnsRefund(earns, orderId, refundId, false), refundAmount: earnsUnits(earns, adds), refundExact: formatDecimal(adds) };
}
