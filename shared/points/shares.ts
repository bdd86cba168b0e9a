import type { FollowUp, ProcessOutcome, PurchaseEvent, RefundEvent } from '../events/index.js';
import type { OrderRecord, OrderRef } from '../ledger/index.js';
import type { ProcessorDeps } from './deps.js';
import { earnBaseOf } from './provisional.js';
import { processPurchase } from './purchase.js';
import { processRefund } from './refund.js';

/**
 * Partial fulfilments (issue 53, `earnAfter: fulfilled`): each partial-fulfilment delivery names the
 * cumulative share of the order shipped so far. The shipped share earns one calculation on its cumulative
 * amount (the order's amount as paid times the share, rounded down once), as an order of its own,
 * `<order>/ship-<amount>`, through the purchase protocol (its own marker); the share it replaces is then
 * taken back whole by the refund protocol (refund `superseded`, its own marker). So the member holds one
 * calculation on what has shipped, never the sum of per-share roundings. At orders/fulfilled the order
 * itself is credited as any provisional order, and every share is taken back; an order that will never earn
 * (refunded in full or cancelled before it is fulfilled) takes them back too. Refunds before fulfilment are
 * booked on the order as for any provisional order and settled with its credit.
 */

/** The share orders' refund: what a share earned goes back once a larger share or the whole order replaces it. */
export const SUPERSEDED_SHARE = 'superseded';
/** Title suffix of the entry taking a share back (the member sees the share replaced, not a return). */
const REPLACED_TITLE = (title: string) => `${title}（分割発送分の振替）`;

/** The order a shipped share is credited as. */
export const shareOrderId = (orderId: string, amount: number) => `${orderId}/ship-${amount}`;

/** The order's amount (units) that an exact fraction of it carries, rounded down once (all of it: all). */
export function shippedUnits(whole: number, shipped: { num: string; den: string }): number {
  const num = BigInt(shipped.num);
  const den = BigInt(shipped.den);
  if (num <= 0n || whole <= 0) return 0;
  if (num >= den) return whole;
  return Number((BigInt(whole) * num) / den);
}

/** What the processor hands over: its own purchase run (waiting refunds included), for the order's payment or moment. */
export type RunPurchase = (event: PurchaseEvent) => Promise<ProcessOutcome>;

/** One orders/partially_fulfilled delivery: the cumulative share credited once, the share it replaces taken back. */
export async function earnShippedShare(deps: ProcessorDeps, event: PurchaseEvent, runPurchase: RunPurchase): Promise<ProcessOutcome> {
  const ref: OrderRef = { source: event.source, orderId: event.orderId };
  const payment: PurchaseEvent = { ...withoutShare(event), eventId: `${event.source}:order:${event.orderId}` };
  let order = await deps.ledger.getOrder(ref);
  if (order?.state !== 'done') {
    // The payment not seen yet (its webhook late), or its attempt unfinished: the delivery carries the whole
    // order, run as the payment first (provisional), or retried while another attempt holds it.
    const first = await runPurchase(payment);
    if (first.action === 'retry') return first;
    order = await deps.ledger.getOrder(ref);
  }
  if (order?.state !== 'done' || order.outcome !== 'pending_earn' || order.earning) {
    // Earned (or never to be) already: a share delivered late changes nothing but finishing the take-backs.
    const followUps = order?.state === 'done' ? await settleShares(deps, order, event) : [];
    return withFollowUps({ kind: 'duplicate', action: 'ack', previous: order?.outcome ?? 'pending' }, followUps);
  }
  const whole = earnBaseOf(order).amount;
  const amount = shippedUnits(whole, event.shipped ?? { num: '0', den: '1' });
  // Every line shipped by these fulfilments: the order's moment (the sender's fulfilment may follow; it changes nothing then).
  if (amount >= whole) return runPurchase({ ...payment, eventId: `${payment.eventId}:fulfilled`, earnMoment: 'fulfilled' });
  if (amount === 0) return { kind: 'skipped', action: 'ack', reason: 'amount_zero' };
  const noted = await deps.ledger.addShippedShare(ref, amount);
  // Earned meanwhile (the moment ran between the read and the note): the share earns nothing.
  if (!noted) return earnShippedShare(deps, event, runPurchase);
  // The largest share noted is the live one (a smaller share delivered late only confirms it).
  const live = Math.max(...noted.shippedShares.map(Number));
  const credited = await processPurchase(deps, shareEvent(payment, live), { shippedShare: true });
  if (credited.order?.outcome !== 'credited') return credited.outcome;
  // The order itself may have been credited meanwhile: then no share stays (settled on the order as it is now).
  // Else the largest share noted by now stays: one noted meanwhile by another delivery is not taken back by this one.
  const now = (await deps.ledger.getOrder(ref)) ?? noted;
  const keep = now.outcome === 'pending_earn' && now.state === 'done' ? Math.max(live, ...now.shippedShares.map(Number)) : undefined;
  return withFollowUps(credited.outcome, await settleShares(deps, now, event, keep));
}

/**
 * Takes back every credited share of the order but `keep` (each by its `superseded` refund, once): after a
 * larger share, and, with no `keep`, once the order is credited or will never earn. A share whose purchase
 * is still under way is finished first when `from` carries the order (a purchase), else waited for.
 */
export async function settleShares(deps: ProcessorDeps, order: OrderRecord, from: PurchaseEvent | RefundEvent, keep?: number) {
  const followUps: FollowUp[] = [];
  for (const amount of order.shippedShares.map(Number)) {
    if (amount === keep) continue;
    let share = await deps.ledger.getOrder({ source: order.source, orderId: shareOrderId(order.orderId, amount) });
    if (share && share.state !== 'done') {
      // Under way (its attempt died after its grant, or runs now). A delivery of the order finishes it by the
      // purchase protocol (its doubt settled, found or sent) so it can be taken back: its own delivery, once the
      // order no longer waits, only settles, so waiting for it here left both messages retrying until the
      // dead-letter list and the share credited for good. A refund carries no order to finish it with: it waits.
      const finished =
        from.type === 'purchase' ? await processPurchase(deps, shareEvent(withoutShare(from), amount), { shippedShare: true }) : undefined;
      if (!finished || finished.outcome.action === 'retry' || finished.order?.state !== 'done') {
        followUps.push({ refundId: `ship-${amount}/${SUPERSEDED_SHARE}`, kind: finished?.outcome.kind ?? 'lease_held', action: 'retry' });
        continue;
      }
      share = finished.order;
    }
    if (share?.state !== 'done' || share.outcome !== 'credited') continue;
    const ref = { source: order.source, orderId: share.orderId, refundId: SUPERSEDED_SHARE };
    // Booked on the share is not finished: an attempt that died between the two leaves its record for the refund
    // protocol to finish from the book (no second debit).
    if (share.refunds[SUPERSEDED_SHARE] && (await deps.ledger.getRefund(ref))?.state === 'done') continue;
    const outcome = await processRefund(deps, takeBack(order, amount, from, deps.clock()));
    followUps.push({
      refundId: `ship-${amount}/${SUPERSEDED_SHARE}`,
      kind: outcome.kind,
      action: outcome.action,
      ...('points' in outcome ? { points: outcome.points } : {}),
    });
  }
  return followUps;
}

/** The purchase of a share: the order's own event on the share's amount, earning at once, with no redemption code. */
function shareEvent(payment: PurchaseEvent, amount: number): PurchaseEvent {
  const {
    eligibleExact: _exact,
    calculationAmount: _calc,
    discountCodes: _codes,
    orderLines: _lines,
    earnAfter: _after,
    ...rest
  } = payment;
  const orderId = shareOrderId(payment.orderId, amount);
  return { ...rest, orderId, eventId: `${payment.source}:order:${orderId}`, eligibleAmount: amount };
}

function withoutShare(event: PurchaseEvent): PurchaseEvent {
  const { earnMoment: _moment, shipped: _shipped, ...rest } = event;
  return rest;
}

/** The refund taking a share's whole credit back. */
function takeBack(order: OrderRecord, amount: number, from: PurchaseEvent | RefundEvent, nowMs: number): RefundEvent {
  const orderId = shareOrderId(order.orderId, amount);
  return {
    type: 'refund',
    eventId: `${order.source}:refund:${orderId}:${SUPERSEDED_SHARE}`,
    source: order.source,
    orderId,
    refundId: SUPERSEDED_SHARE,
    customer: null,
    currency: from.currency,
    occurredAt: new Date(nowMs).toISOString(),
    pointTitle: (from.type === 'purchase' ? REPLACED_TITLE(from.pointTitle) : from.pointTitle).slice(0, 255),
    test: false,
    delivery: from.delivery,
    refundAmount: amount,
    refundsRemainder: true,
  };
}

function withFollowUps(outcome: ProcessOutcome, followUps: FollowUp[]): ProcessOutcome {
  if (followUps.length === 0) return outcome;
  const action = followUps.some((f) => f.action === 'retry') ? 'retry' : outcome.action;
  return { ...outcome, action, followUps: [...('followUps' in outcome ? (outcome.followUps ?? []) : []), ...followUps] } as ProcessOutcome;
}
