import type { AppliedRefund, OrderRecord, RefundRecord, RefundResult } from '../ledger/index.js';
import type { OpenApiError } from '../openapi/index.js';
import type { RefundShare } from './debit.js';
import { RefundEvent } from '../events/index.js';
import type { ProcessOutcome } from '../events/index.js';
import { isUnrecognisedRefusal, rejectedOutcome } from './failures.js';

/** How a refund ends: what its record keeps, and what processing answers. */
export interface RefundEnd {
  result: RefundResult;
  outcome: ProcessOutcome;
}

/** A refund booked on the order (now or by an earlier attempt): its end, from the book. */
export function bookedEnd(customerId: string, applied: AppliedRefund): RefundEnd {
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
  const figures = { customerId, points: applied.debited, target: applied.target, reconciled };
  const outcome: ProcessOutcome =
    shortfall > 0
      ? { kind: 'insufficient_points', action: 'ack', policy: 'clamp', ...figures, shortfall }
      : { kind: 'debited', action: 'ack', ...figures };
  return { result, outcome };
}

/** The `park` policy: the customer holds too few points, so nothing is debited and the refund is parked. */
export function parkedEnd(customerId: string, target: number, reason: string): RefundEnd {
  return {
    result: {
      state: 'parked',
      outcome: 'insufficient_points',
      reason,
      customerId,
      pointsDebited: 0,
      debitTarget: target,
      shortfall: target,
    },
    outcome: {
      kind: 'insufficient_points',
      action: 'ack',
      policy: 'park',
      customerId,
      points: 0,
      target,
      shortfall: target,
      reconciled: false,
    },
  };
}

/** The end of a refund the Open API answered for good (customer withdrawn, points not available, an unrecognised refusal: parked); else undefined. */
export function definitiveEnd(customerId: string, err: OpenApiError): RefundEnd | undefined {
  if (err.kind === 'member_not_found') {
    return {
      result: { state: 'done', outcome: 'customer_withdrawn', customerId, reason: err.message },
      outcome: { kind: 'customer_withdrawn', action: 'ack', customerId },
    };
  }
  if (err.kind === 'points_not_available') {
    return {
      result: { state: 'done', outcome: 'points_not_available', customerId, reason: err.message },
      outcome: { kind: 'points_not_available', action: 'ack' },
    };
  }
  if (isUnrecognisedRefusal(err)) {
    return { result: { state: 'parked', outcome: 'upstream_rejected', customerId, reason: err.message }, outcome: rejectedOutcome(err) };
  }
  return undefined;
}

/** A skip: the refund takes nothing, for this reason. */
export function skippedEnd(reason: 'unlinked_refund' | 'order_not_credited' | 'before_earn', detail: string): RefundEnd {
  return {
    result: { state: 'done', outcome: 'skipped', reason: `${reason}: ${detail}` },
    outcome: { kind: 'skipped', action: 'ack', reason },
  };
}

/**
 * A refund before the moment of a provisional order took `amount` of its provisional amount. While the
 * order waits, the record is parked (not done) and listed on the order: at the moment the credit runs it
 * again and it debits its share of what was earned, exactly as a refund after the moment would, so the
 * balance does not depend on which came first. An order that never earns (`not_earned`) ends it.
 */
export function beforeEarnEnd(order: Pick<OrderRecord, 'outcome'>, amount: number): RefundEnd {
  const end = skippedEnd('before_earn', `took ${amount} of the provisional amount`);
  if (order.outcome !== 'pending_earn') return end;
  return { ...end, result: { ...end.result, state: 'parked', reason: `${end.result.reason ?? ''}; ${DEBITED_AT_MOMENT}` } };
}

const DEBITED_AT_MOMENT = 'its share is debited when the order earns';

/** A before-the-moment refund waiting for the order's credit (beforeEarnEnd). */
export function isBeforeEarnParked(result: RefundResult): boolean {
  return result.state === 'parked' && result.outcome === 'skipped' && (result.reason?.endsWith(DEBITED_AT_MOMENT) ?? false);
}

/** The share as booked on the order: the exact figures only when it was computed exactly. */
export function bookable(share: RefundShare) {
  const { exactAmount, exactRefundedAfter, ...rest } = share;
  return exactAmount === null || exactRefundedAfter === null ? rest : { ...rest, exactAmount, exactRefundedAfter };
}

/** The refund event its record keeps; undefined only when the record was damaged by hand. */
export function storedEvent(record: RefundRecord | undefined): RefundEvent | undefined {
  if (!record) return undefined;
  try {
    const parsed = RefundEvent.safeParse(JSON.parse(record.event));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
