import type { OrderRecord } from '../ledger/index.js';
import type { ProcessorDeps } from './deps.js';
import { PointsEvent, type PurchaseEvent, type RefundEvent } from '../events/index.js';
import type { FollowUp, ProcessOutcome } from '../events/index.js';
import { invalidEvent } from './invalid-event.js';
import { awaitsLink } from './late-customer.js';
import { type PurchaseOptions, processPurchase } from './purchase.js';
import { processRefund } from './refund.js';
import { storedEvent } from './refund-results.js';
import { queuedWithItsPurchase } from './refund-wait.js';
import { DAY_MS } from '../time/index.js';

export interface ProcessContext {
  /** The queue message's id (the activity record files the receive under it). */
  messageId?: string;
  /** How many times the queue has delivered this message (1 on the first delivery). */
  receiveCount?: number;
  /** The message's FIFO group: a refund queued in its purchase's group does not wait for it (refund-wait.ts). */
  groupId?: string;
  /**
   * Hands a follow-up refund that must be retried to a message of its own (the worker sets it aside in
   * the queue); true when done. Its failure is then its own: the purchase, done, is acknowledged and
   * does not hold its customer's group. Without it (or when it fails) the purchase is retried instead.
   */
  setAside?: (event: RefundEvent, outcome: ProcessOutcome) => Promise<boolean>;
  /**
   * Hands a purchase to a message of its own, due at once; true when sent. A link's crediting of the
   * customer's earlier orders uses it, so that each order is one message's work with its own retries
   * (a crash among many orders then costs that order's message a receive, not the link's).
   */
  handOver?: (event: PurchaseEvent) => Promise<boolean>;
}

export interface Processor {
  /** Processes one canonical event, safe to run twice, concurrently, or after a crash at any line. */
  process(event: unknown, context?: ProcessContext): Promise<ProcessOutcome>;
  /**
   * A purchase that ended `customer_not_found`, now that its customer is linked or enrolled: credited
   * once (the order is re-opened under the usual claim), then the refunds that waited for it.
   */
  creditLinkedPurchase(event: PurchaseEvent, context?: ProcessContext): Promise<ProcessOutcome>;
  /** The protocol for the canonical events a sender resolved a thin message into (before the processor runs it). */
  canonical: CanonicalRunners;
}

/**
 * What a sender's resolution of a thin message runs (shared/sources): the message checks' answer for the
 * thin event (too old: skipped), then each canonical event it resolved into, as the processor runs its own.
 */
export interface CanonicalRunners {
  admit(event: PurchaseEvent): ProcessOutcome | undefined;
  purchase(event: PurchaseEvent, context?: ProcessContext): Promise<ProcessOutcome>;
  refund(event: RefundEvent): Promise<ProcessOutcome>;
}

export function createProcessor(deps: ProcessorDeps): Processor {
  /**
   * The purchase, then the refunds that waited for it (or were parked) now that its order is done: their
   * outcomes are added to the purchase's as `followUps`, and one still pending turns it into a retry.
   */
  async function purchaseThenWaitingRefunds(
    sent: PurchaseEvent,
    context: ProcessContext | undefined,
    options: PurchaseOptions = {},
  ): Promise<ProcessOutcome> {
    const { outcome, order } = await processPurchase(deps, sent, options);
    // Refunds of an order waiting for its customer to be linked wait with it.
    if (!order || order.waitingRefunds.length === 0 || awaitsLink(order)) return outcome;
    return withFollowUps(outcome, await runWaitingRefunds(order, context?.setAside));
  }

  async function runWaitingRefunds(order: OrderRecord, setAside: ProcessContext['setAside']): Promise<FollowUp[]> {
    const followUps: FollowUp[] = [];
    for (const refundId of order.waitingRefunds) {
      const ref = { source: order.source, orderId: order.orderId, refundId };
      const event = storedEvent(await deps.ledger.getRefund(ref));
      if (!event) {
        // Cannot happen unless the record was damaged by hand; keep the purchase acknowledged.
        deps.logger?.warn('waiting refund has no readable event', ref);
        continue;
      }
      const outcome = await processRefund(deps, event);
      // Finished earlier, but the attempt died before taking it off the list.
      if (outcome.kind === 'duplicate') await deps.ledger.forgetWaitingRefund(ref);
      // Still listed on the order: the purchase's redelivery would run it too; its own message runs it sooner.
      const handedOver = outcome.action === 'retry' && setAside !== undefined && (await setAside(event, outcome));
      followUps.push({
        refundId,
        kind: outcome.kind,
        action: handedOver ? 'ack' : outcome.action,
        ...(handedOver ? { setAside: true } : {}),
        ...('points' in outcome ? { points: outcome.points } : {}),
      });
    }
    return followUps;
  }

  /**
   * An earlier order handed over by its customer's link: credited as the link would (re-opened once),
   * its waiting refunds retried by this message; once through, it leaves the customer's index.
   */
  async function creditHandedOver(event: PurchaseEvent, context: ProcessContext | undefined): Promise<ProcessOutcome> {
    const outcome = await purchaseThenWaitingRefunds(event, context, { customerLinked: true, ownMessage: true });
    if (outcome.action === 'ack' && outcome.kind !== 'customer_not_found') await deps.ledger.leaveUnlinkedIndex(event);
    return outcome;
  }

  // Intake ignores these already (with a margin); this catches what was queued or redriven since.
  const admit = (event: PointsEvent): ProcessOutcome | undefined =>
    olderThanRetention(event.occurredAt, deps.clock(), deps.settings.ledgerTtlDays)
      ? { kind: 'skipped', action: 'ack', reason: 'too_old' }
      : undefined;

  return {
    creditLinkedPurchase: (event, context) => purchaseThenWaitingRefunds(event, context, { customerLinked: true }),
    canonical: {
      admit,
      purchase: (event, context) => purchaseThenWaitingRefunds(event, context),
      refund: (event) => processRefund(deps, event),
    },
    async process(input, context) {
      const parsed = PointsEvent.safeParse(input);
      if (!parsed.success) return invalidEvent(parsed.error);
      const event = parsed.data;
      if (event.type === 'purchase' && event.customerLinked) return creditHandedOver(event, context);
      const refused = admit(event);
      if (refused) return refused;
      return event.type === 'purchase'
        ? purchaseThenWaitingRefunds(event, context)
        : processRefund(deps, event, queuedWithItsPurchase(event, context?.groupId));
    },
  };
}

/** Adds the waiting refunds' outcomes to the purchase's (a pending one turns it into a retry). */
function withFollowUps<T extends ProcessOutcome>(outcome: T, followUps: FollowUp[]): T {
  const action = followUps.some((f) => f.action === 'retry') ? 'retry' : outcome.action;
  return { ...outcome, action, followUps };
}

/** The ledger may have forgotten an event this old: acting on it could credit or debit twice. */
function olderThanRetention(occurredAt: string, nowMs: number, ledgerTtlDays: number): boolean {
  const at = Date.parse(occurredAt);
  return !Number.isNaN(at) && at < nowMs - ledgerTtlDays * DAY_MS;
}
