import { randomUUID } from 'node:crypto';
import type { OrderRecord, PurchaseResult } from '../ledger/index.js';
import type { MemberDetail } from '../openapi/index.js';
import type { ProcessorDeps } from './deps.js';
import type { PurchaseEvent } from './events.js';
import { asOpenApiError, transientOutcome, unknownOutcome } from './failures.js';
import { findMarkers } from './history.js';
import { awaitsCustomer } from './late-customer.js';
import { purchaseMarker } from './markers.js';
import type { FollowUp, ProcessOutcome, SkipReason } from './outcome.js';

/** Processes the refunds that waited for this purchase; returns their outcomes. */
export type FollowUpRunner = (order: OrderRecord) => Promise<FollowUp[]>;

/**
 * Purchase: claim the order -> look the customer up -> (reconcile, only after an unknown outcome or a
 * takeover) -> one points calculation carrying the order's marker -> record. Steady state: 2 calls,
 * 2 writes. The credited figure recorded is the balance difference (a hint); the exact figure is read
 * from the history entry with the marker the first time a refund needs it.
 */
export async function processPurchase(
  deps: ProcessorDeps,
  event: PurchaseEvent,
  runFollowUps: FollowUpRunner,
): Promise<ProcessOutcome> {
  const { ledger, openapi, settings } = deps;
  const checkpoint = deps.checkpoint ?? (() => undefined);
  const ref = { source: event.source, orderId: event.orderId };
  const facts = {
    eligibleAmount: event.eligibleAmount,
    eligibleExact: event.eligibleExact,
    currency: event.currency,
    externalKey: event.customer?.externalKey,
    externalId: event.customer?.externalId,
  };

  /** Adds the follow-ups of a done order to an acknowledged outcome (a pending one turns it into a retry). */
  async function withFollowUps<T extends ProcessOutcome>(order: OrderRecord, outcome: T): Promise<T> {
    if (order.waitingRefunds.length === 0) return outcome;
    const followUps = await runFollowUps(order);
    const action = followUps.some((f) => f.action === 'retry') ? 'retry' : outcome.action;
    return { ...outcome, action, followUps };
  }

  async function alreadyDone(current: OrderRecord | undefined): Promise<ProcessOutcome> {
    if (current?.state === 'done') {
      return withFollowUps(current, { kind: 'duplicate', action: 'ack', previous: current.outcome ?? 'unknown' });
    }
    return { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the order' };
  }

  // Nothing to credit: one write records why.
  const skip: SkipReason | undefined = event.test
    ? 'test'
    : event.customer === null
      ? 'no_customer'
      : event.eligibleAmount === 0
        ? 'amount_zero'
        : undefined;
  if (skip || !event.customer) {
    const reason = skip ?? 'no_customer';
    // Not final while the sender may still name the customer (late-customer.ts).
    const window = reason === 'no_customer' ? event.customerMatchWindowSeconds : undefined;
    const awaiting = window ? { awaitingCustomerUntil: deps.clock() + window * 1000 } : {};
    const done = await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason, ...facts, ...awaiting });
    if (!done) {
      const current = await ledger.getOrder(ref);
      // A delivery naming the customer claimed the order first (it records the outcome), or this is a
      // copy of the skip: either way refunds keep waiting for the customer.
      if (window && (current?.state === 'pending' || awaitsCustomer(current, deps.clock()))) {
        return { kind: 'duplicate', action: 'ack', previous: current?.outcome ?? 'pending' };
      }
      return alreadyDone(current);
    }
    // Refunds already waiting keep waiting for the customer rather than being skipped now.
    if (window) return { kind: 'skipped', action: 'ack', reason };
    return withFollowUps(done, { kind: 'skipped', action: 'ack', reason });
  }
  const customer = event.customer;

  const owner = randomUUID();
  let claim = await ledger.claimPurchase({ ...ref, owner, ...facts });
  if (!claim.ok && awaitsCustomer(claim.current, deps.clock())) claim = await ledger.reopenPurchase({ ...ref, owner, ...facts });
  if (!claim.ok) return alreadyDone(claim.current);
  await checkpoint('purchase:claimed');
  // A lease never released means an attempt died or did not learn its call's outcome.
  const mustReconcile = claim.previous?.leaseOwner !== undefined || claim.previous?.needsReconcile === true;

  const finish = async (result: PurchaseResult, outcome: ProcessOutcome): Promise<ProcessOutcome> => {
    const done = await ledger.finishPurchase(ref, owner, { ...facts, ...result });
    if (!done) return { kind: 'lease_lost', action: 'retry', reason: 'the order lease expired and was taken over' };
    await checkpoint('purchase:recorded');
    return withFollowUps(done, outcome);
  };
  const release = async (lastError: string, opts: { needsReconcile?: boolean; keepLease?: boolean } = {}) => {
    await ledger.releaseOrder(ref, owner, { lastError, ...opts });
  };

  let member: MemberDetail;
  try {
    member = await openapi.getMemberByExternalId(customer.externalKey, customer.externalId);
  } catch (e) {
    const err = asOpenApiError(e);
    if (err.kind === 'member_not_found') {
      // The spec answers the same for unknown and withdrawn customers: we cannot tell them apart here.
      return finish({ outcome: 'customer_not_found', reason: err.message }, { kind: 'customer_not_found', action: 'ack' });
    }
    await release(err.message, { needsReconcile: mustReconcile });
    return transientOutcome(err);
  }
  await checkpoint('purchase:customer');

  const marker = purchaseMarker(event.source, event.orderId);
  if (mustReconcile) {
    let found;
    try {
      found = (await findMarkers(openapi, member.id, [marker], settings.historyPages)).get(marker);
    } catch (e) {
      const err = asOpenApiError(e);
      await release(err.message, { needsReconcile: true });
      return transientOutcome(err);
    }
    if (found) {
      return finish(
        { outcome: 'credited', customerId: member.id, pointsCredited: found.point, reconciled: true },
        { kind: 'credited', action: 'ack', customerId: member.id, points: found.point, exact: true, reconciled: true },
      );
    }
  }

  let after: MemberDetail;
  try {
    after = await openapi.calculatePoints(member.id, {
      amount: event.eligibleAmount,
      ...(event.pointTitle ? { title: event.pointTitle } : {}),
      ...(event.expiryDays !== null ? { expired_at: expiryDate(event.occurredAt, event.expiryDays) } : {}),
      remarks: marker,
    });
  } catch (e) {
    const err = asOpenApiError(e);
    if (err.executed === 'unknown') {
      // It may have run: keep the lease until it expires (so the call has landed or died by then),
      // and have the next attempt search the history before calling again.
      await release(err.message, { needsReconcile: true, keepLease: true });
      return unknownOutcome(err);
    }
    if (err.kind === 'member_not_found') {
      const result = { outcome: 'customer_withdrawn', customerId: member.id, reason: err.message } as const;
      return finish(result, { kind: 'customer_withdrawn', action: 'ack', customerId: member.id });
    }
    if (err.kind === 'points_not_available') {
      return finish({ outcome: 'points_not_available', reason: err.message }, { kind: 'points_not_available', action: 'ack' });
    }
    await release(err.message);
    return transientOutcome(err);
  }
  await checkpoint('purchase:granted');

  const hint = after.point - member.point;
  return finish(
    { outcome: 'credited', customerId: member.id, pointsHint: hint },
    { kind: 'credited', action: 'ack', customerId: member.id, points: hint, exact: false, reconciled: false },
  );
}

/** `Y-m-d` that many days after the purchase's local date (the date part of its ISO timestamp). */
export function expiryDate(occurredAt: string, days: number): string {
  const date = new Date(`${occurredAt.slice(0, 10)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
