import type { OrderRecord, OrderRef } from '../ledger/index.js';
import { parseJsonOrUndefined } from '../text/index.js';
import type { ProcessorDeps } from './deps.js';
import { PointsEvent, PurchaseEvent, type RefundEvent, withNextSteps } from '../events/index.js';
import type { FollowUp, NextSteps, ProcessOutcome } from '../events/index.js';
import { deferralFor } from '../retry/index.js';
import { invalidEvent } from './invalid-event.js';
import { awaitsLink } from './late-customer.js';
import { type PurchaseOptions, processPurchase } from './purchase.js';
import { processRefund } from './refund.js';
import { earnShippedShare, settleShares } from './shares.js';
import type { MemberMemo } from './member-memo.js';
import { storedEvent } from './refund-results.js';
import { queuedWithItsPurchase } from './refund-wait.js';
import { DAY_MS } from '../time/index.js';

export interface ProcessContext {
  /** The queue message's id (the activity record files the receive under it). */
  messageId?: string;
  /** How many times the queue has delivered this message (1 on the first delivery). */
  receiveCount?: number;
  /**
   * The message sits in the FIFO group its event was queued in (the consumer knows the queue's groups):
   * for a refund naming its customer that is the customer's group, where the sale is queued too, so it
   * does not wait for its purchase (refund-wait.ts). A set-aside copy sits in a group of its own.
   */
  inEventGroup?: boolean;
  /**
   * The caller carries out the outcome's `next` on a queue (the worker's consumer): a follow-up refund that
   * must be retried is acknowledged as set aside (its own message retries it; the purchase, done, does not
   * hold its customer's group), and a link's earlier orders are handed over, each one message's work with
   * its own retries. Without it the purchase retries for its refund and a link credits its orders itself.
   */
  followUpsQueued?: boolean;
  /**
   * A link's earlier order (`customerLinked`) credited by the link's own message (its hand-over could not
   * be sent): it stays findable by its customer until its refunds are through, as the link's crediting leaves it.
   */
  forLink?: boolean;
  /** The members this message found so far (a sender's resolution runs several events for one member): one lookup each. */
  members?: MemberMemo;
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
  /**
   * The `days` ticker (issue 53): credits the provisional orders whose day has come, each once, through the
   * purchase protocol (its stored event, as its moment), then the refunds that waited for it; then
   * `afterEarn`, before its due entry is dropped.
   */
  creditDueEarns(limit?: number, afterEarn?: AfterDueEarn): Promise<DueEarns>;
}

/**
 * What a sender does once a due order is credited, before its due entry is dropped (a copy of the points
 * kept outside the membership service, as a step of its own): `retry` keeps the entry, so the next tick
 * calls it again, also after a crash between the credit and it; it must be safe to run twice.
 */
export type AfterDueEarn = (order: OrderRecord) => Promise<'done' | 'retry'>;

/** What one tick of the `days` ticker did: orders due, earned (or ended otherwise for good), still to retry. */
export interface DueEarns {
  due: number;
  done: number;
  retry: number;
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
   * outcomes are added to the purchase's as `followUps`, and one still pending turns it into a retry
   * (unless its retry is set aside: `next`).
   */
  async function purchaseThenWaitingRefunds(
    sent: PurchaseEvent,
    context: ProcessContext | undefined,
    next: NextSteps,
    options: PurchaseOptions = {},
  ): Promise<ProcessOutcome> {
    const members = context?.members ? { members: context.members } : {};
    const processed = await processPurchase(deps, sent, { ...options, ...members });
    const { order } = processed;
    // Its shipped shares go back once the order is earned (shares.ts), before the refunds that waited for it.
    const shares = order ? await sharesSettled(deps, order, sent) : [];
    const outcome = shares.length > 0 ? withFollowUps(processed.outcome, shares) : processed.outcome;
    // Refunds of an order waiting for its customer to be linked wait with it.
    if (!order || order.waitingRefunds.length === 0 || awaitsLink(order)) return outcome;
    return withFollowUps(outcome, await runWaitingRefunds(deps, order, context?.followUpsQueued === true, next));
  }

  /**
   * An earlier order handed over by its customer's link: credited as the link would (re-opened once),
   * its waiting refunds retried by this message; once through, it leaves the customer's index.
   */
  async function creditHandedOver(event: PurchaseEvent, context: ProcessContext | undefined, next: NextSteps): Promise<ProcessOutcome> {
    const options = { customerLinked: true, ownMessage: context?.forLink !== true };
    const outcome = await purchaseThenWaitingRefunds(event, context, next, options);
    if (outcome.action === 'ack' && outcome.kind !== 'customer_not_found') await deps.ledger.leaveUnlinkedIndex(event);
    return outcome;
  }

  // Intake ignores these already (with a margin); this catches what was queued or redriven since.
  const admit = (event: PointsEvent): ProcessOutcome | undefined =>
    olderThanRetention(event.occurredAt, deps.clock(), deps.settings.ledgerTtlDays)
      ? { kind: 'skipped', action: 'ack', reason: 'too_old' }
      : undefined;

  async function route(input: unknown, context: ProcessContext | undefined, next: NextSteps): Promise<ProcessOutcome> {
    const parsed = PointsEvent.safeParse(input);
    if (!parsed.success) return invalidEvent(parsed.error);
    const event = parsed.data;
    if (event.type === 'purchase' && event.customerLinked) return creditHandedOver(event, context, next);
    const refused = admit(event);
    if (refused) return refused;
    if (event.type === 'purchase' && event.earnMoment === 'partial') {
      return earnShippedShare(deps, event, (purchase) => purchaseThenWaitingRefunds(purchase, context, next));
    }
    if (event.type === 'purchase') return purchaseThenWaitingRefunds(event, context, next);
    const outcome = await processRefund(deps, event, queuedWithItsPurchase(event, context?.inEventGroup));
    // Also on a redelivery of a refund that ended so: its attempt may have died before ending the rest.
    const beforeEarn =
      outcome.kind === 'skipped' ? outcome.reason === 'before_earn' : outcome.kind === 'duplicate' && outcome.previous === 'skipped';
    return beforeEarn ? endNotEarned(event, outcome, context, next) : outcome;
  }

  /**
   * A refund before the moment that left nothing to earn: the earlier ones, parked for the credit that
   * will never come, are ended too (each by its own record's protocol), so none stays parked.
   */
  async function endNotEarned(event: RefundEvent, outcome: ProcessOutcome, context: ProcessContext | undefined, next: NextSteps) {
    const order = await deps.ledger.getOrder({ source: event.source, orderId: event.orderId });
    if (order?.outcome !== 'not_earned') return outcome;
    // Never to be earned: what its shipped shares earned goes back too (shares.ts).
    const shares = await sharesSettled(deps, order, event);
    const settled = shares.length > 0 ? withFollowUps(outcome, shares) : outcome;
    if (order.waitingRefunds.length === 0) return settled;
    return withFollowUps(settled, await runWaitingRefunds(deps, order, context?.followUpsQueued === true, next));
  }

  return {
    async creditDueEarns(limit = 100, afterEarn) {
      const refs = await deps.ledger.listDueEarns(new Date(deps.clock()).toISOString(), limit);
      const tally: DueEarns = { due: refs.length, done: 0, retry: 0 };
      const runPurchase = (event: PurchaseEvent, next: NextSteps) => purchaseThenWaitingRefunds(event, { followUpsQueued: false }, next);
      for (const ref of refs) tally[await earnDue(deps, ref, runPurchase, afterEarn)]++;
      return tally;
    },
    async creditLinkedPurchase(event, context) {
      const next: NextSteps = {};
      return withNextSteps(await purchaseThenWaitingRefunds(event, context, next, { customerLinked: true }), next);
    },
    canonical: {
      admit,
      async purchase(event, context) {
        const next: NextSteps = {};
        return withNextSteps(await purchaseThenWaitingRefunds(event, context, next), next);
      },
      refund: (event) => processRefund(deps, event),
    },
    async process(input, context) {
      const next: NextSteps = {};
      return withNextSteps(await route(input, context, next), next);
    },
  };
}

/** One due order: run as its moment, its due entry dropped once the order is no longer provisional. */
async function earnDue(
  deps: ProcessorDeps,
  ref: OrderRef,
  runPurchase: (event: PurchaseEvent, next: NextSteps) => Promise<ProcessOutcome>,
  afterEarn: AfterDueEarn | undefined,
): Promise<'done' | 'retry'> {
  const order = await deps.ledger.getOrder(ref);
  // Credited, but the refunds before the moment not all debited yet (the attempt died among them).
  if (order?.outcome === 'credited' && order.waitingRefunds.length > 0) {
    const followUps = await runWaitingRefunds(deps, order, false, {});
    if (followUps.some((f) => f.action === 'retry')) return 'retry';
    return dueDone(deps, ref, afterEarn);
  }
  const stored = order?.purchaseEvent ? PurchaseEvent.safeParse(parseJsonOrUndefined(order.purchaseEvent)) : undefined;
  if (!order || !(order.outcome === 'pending_earn' || order.earning) || !stored?.success) return dueDone(deps, ref, afterEarn);
  const next: NextSteps = {};
  const outcome = await runPurchase({ ...stored.data, earnMoment: 'due' }, next);
  if (outcome.action === 'retry') return 'retry';
  return dueDone(deps, ref, afterEarn);
}

/** The due entry dropped, once what follows a credit (`afterEarn`) is through: a crash before leaves it listed. */
async function dueDone(deps: ProcessorDeps, ref: OrderRef, afterEarn: AfterDueEarn | undefined): Promise<'done' | 'retry'> {
  const order = afterEarn ? await deps.ledger.getOrder(ref) : undefined;
  if (afterEarn && order?.state === 'done' && order.outcome === 'credited' && (await afterEarn(order)) === 'retry') return 'retry';
  await deps.ledger.dropDueEarn(ref);
  return 'done';
}

/**
 * Runs an order's waiting refunds (those a provisional order parked before its moment wait on): each outcome is a
 * follow-up; a retry that only waits is set aside (`next`) when the refunds have messages of their own (`queued`).
 */
async function runWaitingRefunds(
  deps: ProcessorDeps,
  order: OrderRecord,
  queued: boolean,
  next: NextSteps,
  again = true,
): Promise<FollowUp[]> {
  const followUps: FollowUp[] = [];
  // A provisional order's refunds already booked before the moment wait for its credit, not for this.
  const due = order.outcome === 'pending_earn' ? order.waitingRefunds.filter((id) => !order.refundsBeforeEarn[id]) : order.waitingRefunds;
  for (const refundId of due) {
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
    const aside = queued && outcome.action === 'retry' && waits(outcome, deps.settings);
    if (aside) next.setAside = [...(next.setAside ?? []), { event, outcome }];
    followUps.push({
      refundId,
      kind: outcome.kind,
      action: aside ? 'ack' : outcome.action,
      ...(aside ? { setAside: true } : {}),
      ...('points' in outcome ? { points: outcome.points } : {}),
    });
  }
  // One of them left a provisional order nothing to earn: the ones parked before it end too (once more, not in a loop).
  if (again && order.outcome === 'pending_earn' && followUps.some((f) => f.kind === 'skipped')) {
    const now = await deps.ledger.getOrder(order);
    if (now?.outcome === 'not_earned' && now.waitingRefunds.length > 0)
      followUps.push(...(await runWaitingRefunds(deps, now, queued, next, false)));
  }
  return followUps;
}

/** An order no longer provisional: its shipped shares taken back (none: nothing read). */
async function sharesSettled(deps: ProcessorDeps, order: OrderRecord, from: PurchaseEvent | RefundEvent): Promise<FollowUp[]> {
  if (order.shippedShares.length === 0 || order.state !== 'done' || order.outcome === 'pending_earn') return [];
  return settleShares(deps, order, from);
}

/** Whether a follow-up's retry only waits (a message of its own can wait for it), rather than failing. */
function waits(outcome: ProcessOutcome, settings: ProcessorDeps['settings']): boolean {
  return deferralFor(outcome, { receive: 1, ageMs: 0 }, settings).defer;
}

/** Adds the waiting refunds' outcomes to the purchase's (a pending one turns it into a retry). */
function withFollowUps<T extends ProcessOutcome>(outcome: T, followUps: FollowUp[]): T {
  const action = followUps.some((f) => f.action === 'retry') ? 'retry' : outcome.action;
  const earlier = 'followUps' in outcome ? (outcome.followUps ?? []) : [];
  return { ...outcome, action, followUps: [...earlier, ...followUps] };
}

/** The ledger may have forgotten an event this old: acting on it could credit or debit twice. */
function olderThanRetention(occurredAt: string, nowMs: number, ledgerTtlDays: number): boolean {
  const at = Date.parse(occurredAt);
  return !Number.isNaN(at) && at < nowMs - ledgerTtlDays * DAY_MS;
}
