import { randomUUID } from 'node:crypto';
import type { AppliedRefund, OrderRecord, RefundRecord, RefundResult } from '../ledger/index.js';
import type { OpenApiError, PointItem } from '../openapi/index.js';
import { type RefundShare, refundShare } from './debit.js';
import type { ProcessorDeps } from './deps.js';
import { RefundEvent } from './events.js';
import { refundWaitMs } from './refund-wait.js';
import { asOpenApiError, transientOutcome, unknownOutcome } from './failures.js';
import { findMarkers } from './history.js';
import { awaitsCustomer } from './late-customer.js';
import { purchaseMarker, refundMarker } from './markers.js';
import type { ProcessOutcome } from './outcome.js';

type Outcome = ProcessOutcome;

/**
 * Refund: claim the refund record (dedup) -> wait for the purchase (bounded, then parked and left on the
 * order for the purchase to pick up) -> take the ORDER's lease, so two refunds of one order never compute
 * from the same base -> reconcile what a previous lease holder may have debited -> one negative grant of
 * this refund's share, carrying its marker -> book it on the order (once: conditional on the refund id)
 * -> finish the refund record. A crash between booking and finishing is repaired by the next attempt,
 * which finds the refund booked on the order.
 */
export async function processRefund(deps: ProcessorDeps, event: RefundEvent, sharesPurchaseGroup = false): Promise<Outcome> {
  const { ledger, openapi, settings, clock } = deps;
  const checkpoint = deps.checkpoint ?? (() => undefined);
  const orderRef = { source: event.source, orderId: event.orderId };
  const ref = { ...orderRef, refundId: event.refundId };
  const owner = randomUUID();

  const claim = await ledger.claimRefund(ref, owner, JSON.stringify(event));
  if (!claim.ok) {
    if (claim.current?.state === 'done') {
      return { kind: 'duplicate', action: 'ack', previous: claim.current.outcome ?? 'unknown' };
    }
    return { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the refund' };
  }
  await checkpoint('refund:claimed');
  if (event.unlinked) {
    // Money given back for no sale of ours (Square `unlinked`): nothing to debit, recorded with why.
    const reason = 'unlinked_refund: the sender links this refund to no payment';
    await ledger.finishRefund(ref, owner, { state: 'done', outcome: 'skipped', reason });
    return { kind: 'skipped', action: 'ack', reason: 'unlinked_refund' };
  }
  const firstSeenAt = claim.previous?.firstSeenAt ? Date.parse(claim.previous.firstSeenAt) : clock();

  // Listed on the order as waiting for its purchase: it stays listed until its record is finished, so
  // the purchase's redelivery can still run it (a parked refund has no message of its own any more).
  let listed = false;
  const note = (o: OrderRecord) => {
    listed ||= o.waitingRefunds.includes(event.refundId);
    return o;
  };
  const finishRefund = async (result: RefundResult, outcome: Outcome): Promise<Outcome> => {
    const finished = await ledger.finishRefund(ref, owner, result);
    if (finished && listed && result.outcome !== 'refund_parked') await ledger.forgetWaitingRefund(ref);
    await checkpoint('refund:recorded');
    return outcome;
  };
  const retryLater = async (outcome: Extract<Outcome, { action: 'retry' }>): Promise<Outcome> => {
    await ledger.releaseRefund(ref, owner, { state: 'pending', lastError: outcome.reason });
    return outcome;
  };
  /** The refund was booked on the order earlier (the record was not finished): finish it from the book. */
  const finishFromBook = (order: OrderRecord, applied: AppliedRefund) => {
    const customerId = order.customerId ?? '';
    const shortfall = applied.target - applied.debited;
    const reconciled = applied.reconciled ?? false;
    const result: RefundResult = {
      state: 'done',
      outcome: shortfall > 0 ? 'insufficient_points' : 'debited',
      customerId,
      pointsDebited: applied.debited,
      debitTarget: applied.target,
      shortfall,
      reconciled,
    };
    const outcome: Outcome =
      shortfall > 0
        ? { kind: 'insufficient_points', action: 'ack', policy: 'clamp', customerId, points: applied.debited, target: applied.target, shortfall, reconciled }
        : { kind: 'debited', action: 'ack', customerId, points: applied.debited, target: applied.target, reconciled };
    return finishRefund(result, outcome);
  };

  // Find the credited order and take its lease (a few rounds: the order may change under us).
  let claimed: OrderRecord | undefined;
  for (let round = 0; round < 3 && !claimed; round++) {
    const read = await ledger.getOrder(orderRef);
    const order = read && note(read);
    if (!order || order.state !== 'done' || awaitsCustomer(order, clock())) {
      if (!(await ledger.registerWaitingRefund(ref))) continue; // the purchase finished meanwhile
      const waited = clock() - firstSeenAt;
      if (waited < refundWaitMs(settings, sharesPurchaseGroup)) {
        const reason = 'the purchase is not credited yet';
        await ledger.releaseRefund(ref, owner, { state: 'waiting', lastError: reason });
        return { kind: 'refund_waiting', action: 'retry', reason };
      }
      // Parked, and still listed on the order: the purchase processes it when it is credited.
      const reason =
        sharesPurchaseGroup
          ? 'the purchase is not credited yet (queued behind this refund: parked for it)'
          : `the purchase was not credited within ${settings.refundWaitSeconds} s`;
      return finishRefund({ state: 'parked', outcome: 'refund_parked', reason }, { kind: 'refund_parked', action: 'ack', reason });
    }
    const booked = order.refunds[event.refundId];
    if (booked) return finishFromBook(order, booked);
    if (order.outcome !== 'credited') {
      const result = { state: 'done', outcome: 'skipped', reason: `order_not_credited: ${order.outcome ?? 'unknown'}` } as const;
      return finishRefund(result, { kind: 'skipped', action: 'ack', reason: 'order_not_credited' });
    }
    const orderClaim = await ledger.claimOrderForRefund(ref, owner);
    if (orderClaim.ok) {
      claimed = orderClaim.previous;
      break;
    }
    const current = orderClaim.current && note(orderClaim.current);
    const bookedNow = current?.refunds[event.refundId];
    if (current && bookedNow) return finishFromBook(current, bookedNow);
    if (current?.leaseUntil !== undefined && current.leaseUntil >= clock()) {
      return retryLater({ kind: 'lease_held', action: 'retry', reason: 'another attempt holds the order' });
    }
  }
  if (!claimed) return retryLater({ kind: 'lease_held', action: 'retry', reason: 'the order kept changing' });
  await checkpoint('refund:order-claimed');

  let order: OrderRecord = note(claimed);
  const customerId = order.customerId ?? '';
  const releaseOrder = (
    lastError: string,
    opts: { keepLease?: boolean; needsReconcile?: boolean; notDebited?: boolean } = {},
  ) => ledger.releaseOrder(orderRef, owner, { lastError, refundId: event.refundId, ...opts });
  const fail = async (err: OpenApiError): Promise<Outcome> => {
    await releaseOrder(err.message);
    return retryLater(transientOutcome(err));
  };
  /** atDebit: the debit call itself gave the answer, so it did not run (the search before it cleared earlier attempts). */
  const definitive = async (err: OpenApiError, atDebit: boolean): Promise<Outcome | undefined> => {
    if (err.kind === 'member_not_found') {
      await releaseOrder(err.message, { notDebited: atDebit });
      const result = { state: 'done', outcome: 'customer_withdrawn', customerId, reason: err.message } as const;
      return finishRefund(result, { kind: 'customer_withdrawn', action: 'ack', customerId });
    }
    if (err.kind === 'points_not_available') {
      await releaseOrder(err.message, { notDebited: atDebit });
      const result = { state: 'done', outcome: 'points_not_available', customerId, reason: err.message } as const;
      return finishRefund(result, { kind: 'points_not_available', action: 'ack' });
    }
    return undefined;
  };

  // Refunds in doubt took the order's lease before and never booked a debit: they died or lost their
  // answer, so their debit may have run. Look for their markers (and, once per order, for the
  // purchase's, to learn the exact credit).
  const debitMarker = (refundId: string) => refundMarker(event.source, event.orderId, refundId);
  const inDoubt = claimed.refundsInDoubt.filter((id) => !claimed.refunds[id]);
  const creditMarker = purchaseMarker(event.source, event.orderId);
  const markers = [...(order.pointsExact ? [] : [creditMarker]), ...inDoubt.map(debitMarker)];
  let found = new Map<string, PointItem>();
  if (markers.length > 0) {
    try {
      found = await findMarkers(openapi, customerId, markers, settings.historyPages);
    } catch (e) {
      const err = asOpenApiError(e);
      return (await definitive(err, false)) ?? fail(err);
    }
  }
  const exactCredit = found.get(creditMarker)?.point;
  if (!order.pointsExact && exactCredit === undefined) {
    deps.logger?.warn('credit entry not found in the point history; using the balance difference', {
      source: event.source,
      orderId: event.orderId,
    });
  }
  const credited = order.pointsExact ? (order.pointsCredited ?? 0) : (exactCredit ?? order.pointsHint ?? 0);
  let newlyExact = order.pointsExact ? undefined : exactCredit;
  // Proven by the search: these never debited (their lease ran out or was released first). Not this
  // refund: it is about to debit, and stays in doubt until that is booked or proven not to have run.
  let notDebited: string[] | undefined = inDoubt.filter((id) => id !== event.refundId && !found.has(debitMarker(id)));

  const book = (o: OrderRecord) => ({
    eligibleAmount: o.eligibleAmount ?? 0,
    credited,
    refundedSoFar: o.refundedSoFar,
    debitTarget: o.debitTarget,
    eligibleExact: o.eligibleExact,
    refundedExact: o.refundedExact,
  });
  const apply = async (refundId: string, applied: AppliedRefund, keepLease: boolean) => {
    const next = await ledger.applyRefund(orderRef, owner, {
      refundId,
      applied,
      refundedSoFar: applied.refundedAfter,
      refundedExact: applied.exactRefundedAfter ?? null,
      debitTarget: order.debitTarget + applied.target,
      debited: order.debited + applied.debited,
      pointsCredited: newlyExact,
      keepLease,
      notDebited,
    });
    newlyExact = undefined;
    notDebited = undefined;
    return next;
  };

  // Book the debits found: other refunds' first (this one then computes from the right base), this
  // one's last (then it is done). Each ran from the base it is booked on: nobody debits before the
  // refunds in doubt are resolved.
  const foundIds = inDoubt
    .filter((id) => found.has(debitMarker(id)))
    .sort((a, b) => Number(a === event.refundId) - Number(b === event.refundId));
  for (const orphan of foundIds) {
    const entry = found.get(debitMarker(orphan));
    if (!entry) continue;
    const mine = orphan === event.refundId;
    const orphanEvent = mine ? event : storedEvent(await ledger.getRefund({ ...orderRef, refundId: orphan }));
    // Unreadable only if damaged by hand: it stays in doubt, and its own retry books it.
    if (!orphanEvent) continue;
    const share = refundShare(book(order), orphanEvent);
    const applied = { ...bookable(share), debited: -entry.point, reconciled: true, at: new Date(clock()).toISOString() };
    const next = await apply(orphan, applied, !mine);
    if (!next) return { kind: 'lease_lost', action: 'retry', reason: 'the order lease expired and was taken over' };
    if (mine) {
      await checkpoint('refund:applied');
      return finishFromBook(next, applied);
    }
    order = next;
  }

  const share = refundShare(book(order), event);
  const marker = refundMarker(event.source, event.orderId, event.refundId);
  const title = event.pointTitle ? { title: event.pointTitle } : {};
  let debited = share.target;
  if (share.target > 0) {
    try {
      await openapi.grantPoints(customerId, { point: -share.target, ...title, remarks: marker });
    } catch (e) {
      const err = asOpenApiError(e);
      if (err.executed === 'unknown') {
        // The debit may have run: the order's lease runs out on its own, and whoever takes it next
        // looks for this refund's marker before anything else.
        await releaseOrder(err.message, { keepLease: true, needsReconcile: true });
        await ledger.releaseRefund(ref, owner, { state: 'pending', lastError: err.message });
        return unknownOutcome(err);
      }
      if (err.kind !== 'insufficient_points') return (await definitive(err, true)) ?? fail(err);
      if (settings.insufficientPointsPolicy === 'park') {
        await releaseOrder(err.message, { notDebited: true });
        const result: RefundResult = {
          state: 'parked',
          outcome: 'insufficient_points',
          reason: err.message,
          customerId,
          pointsDebited: 0,
          debitTarget: share.target,
          shortfall: share.target,
        };
        return finishRefund(result, {
          kind: 'insufficient_points',
          action: 'ack',
          policy: 'park',
          customerId,
          points: 0,
          target: share.target,
          shortfall: share.target,
          reconciled: false,
        });
      }
      // clamp: debit what is held (may be nothing), record the shortfall.
      try {
        const held = Math.max(0, (await openapi.getMember(customerId)).point);
        debited = Math.min(held, share.target);
        if (debited > 0) await openapi.grantPoints(customerId, { point: -debited, ...title, remarks: marker });
      } catch (e2) {
        const err2 = asOpenApiError(e2);
        if (err2.executed === 'unknown') {
          await releaseOrder(err2.message, { keepLease: true, needsReconcile: true });
          await ledger.releaseRefund(ref, owner, { state: 'pending', lastError: err2.message });
          return unknownOutcome(err2);
        }
        // Includes insufficient_points again (the balance moved between the read and the debit).
        return (await definitive(err2, true)) ?? fail(err2);
      }
    }
  }
  await checkpoint('refund:granted');

  const applied: AppliedRefund = { ...bookable(share), debited, at: new Date(clock()).toISOString() };
  const next = await apply(event.refundId, applied, false);
  if (!next) return { kind: 'lease_lost', action: 'retry', reason: 'the order lease expired and was taken over' };
  await checkpoint('refund:applied');
  return finishFromBook(next, applied);
}

/** The share as booked on the order: the exact figures only when it was computed exactly. */
function bookable(share: RefundShare) {
  const { exactAmount, exactRefundedAfter, ...rest } = share;
  return exactAmount === null || exactRefundedAfter === null ? rest : { ...rest, exactAmount, exactRefundedAfter };
}

function storedEvent(record: RefundRecord | undefined): RefundEvent | undefined {
  if (!record) return undefined;
  try {
    const parsed = RefundEvent.safeParse(JSON.parse(record.event));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
