import type { OrderRecord } from '../ledger/index.js';
import type { ProcessOutcome, PurchaseEvent, SkipReason } from '../events/index.js';
import type { MemberMemo } from './member-memo.js';

/** The purchase's types and its small rules, beside the attempt (purchase.ts) that uses them. */

/** What a purchase came to, with its order when that is done: the refunds still listed on it are then due. */
export interface PurchaseProcessed {
  outcome: ProcessOutcome;
  /** The order, done (credited or not): the processor runs the refunds that waited for it. */
  order?: OrderRecord;
}

export interface PurchaseOptions {
  /** Its customer was linked or enrolled since: an order that ended `customer_not_found` is re-opened (once). */
  customerLinked?: boolean;
  /**
   * Re-opened by the purchase's own message, not by the link's crediting: its refunds that waited are
   * retried by that message, so the order need not stay findable by its customer for them.
   */
  ownMessage?: boolean;
  /** The members found by the message's other events: a hit needs no lookup; every answer updates it. */
  members?: MemberMemo;
}

/** Why the purchase earns nothing, or undefined when it is to be credited. */
export function skipReason(event: PurchaseEvent): SkipReason | undefined {
  if (event.test) return 'test';
  if (event.notEarning) return event.notEarning;
  if (event.customer === null) return 'no_customer';
  if (event.fixedPoints !== undefined) return event.fixedPoints === 0 ? 'amount_zero' : undefined;
  if ((event.calculationAmount ?? event.eligibleAmount) === 0) return 'amount_zero';
  return undefined;
}

/** The order is already claimed: done (a duplicate, whose waiting refunds may still be due) or leased. */
export function alreadyDone(current: OrderRecord | undefined): PurchaseProcessed {
  if (current?.state === 'done') {
    return { outcome: { kind: 'duplicate', action: 'ack', previous: current.outcome ?? 'unknown' }, order: current };
  }
  const until = current?.leaseUntil;
  return { outcome: { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the order', ...(until ? { until } : {}) } };
}

/** `Y-m-d` that many days after the purchase's local date (the date part of its ISO timestamp). */
export function expiryDate(occurredAt: string, days: number): string {
  const date = new Date(`${occurredAt.slice(0, 10)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
