import { countEarlier } from '../customers/index.js';
import type { FollowUp, NextSteps, PurchaseEvent } from '../events/index.js';
import type { ProcessContext, ProcessOutcome, Processor } from '../points/index.js';
import { deferralFor, retryReason } from '../retry/index.js';
import { setAside } from './aside.js';
import type { ConsumerDeps } from './types.js';

/** The receive whose outcome asked for follow-ups: `receipt` names it (message id and receive count). */
export interface FollowUpsOf {
  receipt: string;
  now: number;
  context: ProcessContext;
}

type AsideRefund = NonNullable<NextSteps['setAside']>[number];

/**
 * Carries out what the processor said must follow its outcome (`next`), on the queue: follow-up refunds
 * set aside, a link's earlier orders handed over, each a message of its own. Returns the outcome as it
 * then stands, without `next` (it holds whole events: never logged). What could not be sent is done as
 * before there was a queue: a refund not set aside makes the event retry (its redelivery runs it again);
 * an order not handed over is credited here, by the link's message, and the link retries while it is pending.
 */
export async function carryOut(
  deps: ConsumerDeps,
  processor: Processor,
  outcome: ProcessOutcome,
  at: FollowUpsOf,
): Promise<ProcessOutcome> {
  const { next } = outcome;
  if (next === undefined) return outcome;
  let done = { ...outcome };
  delete done.next;
  if (next.setAside) done = await refundsAside(deps, done, next.setAside, at);
  if (next.handOver) done = await ordersHandedOver(deps, processor, done, next.handOver, at);
  return done;
}

/** Each refund to retry in a message of its own, due after its own wait (its backoff's first step). */
async function refundsAside(deps: ConsumerDeps, outcome: ProcessOutcome, refunds: AsideRefund[], at: FollowUpsOf): Promise<ProcessOutcome> {
  const unsent: AsideRefund[] = [];
  for (const refund of refunds) {
    const verdict = deferralFor(refund.outcome, { receive: 1, ageMs: 0 }, deps.settings, deps.random ?? Math.random);
    const sent =
      verdict.defer &&
      (await setAside(deps, {
        body: JSON.stringify(refund.event),
        receipt: `${at.receipt}:${refund.event.refundId}`,
        seconds: verdict.seconds,
        now: at.now,
        waitingSince: at.now,
        reason: retryReason(refund.outcome),
        waits: 1,
      }));
    if (!sent) unsent.push(refund);
  }
  return unsent.length === 0 ? outcome : retriedFor(outcome, unsent);
}

/** The event retries for the refunds that could not be set aside, which its follow-ups name as pending. */
function retriedFor(outcome: ProcessOutcome, unsent: AsideRefund[]): ProcessOutcome {
  const ids = new Set(unsent.map((r) => r.event.refundId));
  const listed = 'followUps' in outcome && outcome.followUps ? outcome.followUps : [];
  const followUps: FollowUp[] = listed.map(({ setAside: _, ...f }) => (ids.has(f.refundId) ? { ...f, action: 'retry' } : f));
  // Run deeper than the answer lists (a Smaregi sale among others): named, so the retry waits as that refund does.
  for (const r of unsent) {
    if (!listed.some((f) => f.refundId === r.event.refundId))
      followUps.push({ refundId: r.event.refundId, kind: r.outcome.kind, action: 'retry' });
  }
  return { ...outcome, action: 'retry', followUps } as ProcessOutcome;
}

/** A link's earlier orders, each to a message of its own, due at once; one that cannot be sent is credited here. */
async function ordersHandedOver(
  deps: ConsumerDeps,
  processor: Processor,
  outcome: ProcessOutcome,
  orders: PurchaseEvent[],
  at: FollowUpsOf,
): Promise<ProcessOutcome> {
  // Only customer events hand orders over; anything else asking for it retries rather than lose one.
  if (!('earlier' in outcome) || outcome.earlier === undefined) return { ...outcome, action: 'retry' } as ProcessOutcome;
  const earlier = { ...outcome.earlier };
  for (const order of orders) {
    const handed = await setAside(deps, {
      body: JSON.stringify(order),
      receipt: `${at.receipt}:${order.orderId}`,
      seconds: 0,
      now: at.now,
      waitingSince: at.now,
      reason: 'linked_customer',
      waits: 1,
    });
    if (handed) continue;
    if ((earlier.handedOver ?? 0) > 1) earlier.handedOver = (earlier.handedOver ?? 0) - 1;
    else delete earlier.handedOver;
    // As the link credits an order itself: findable by its customer until its refunds are through.
    const context = { ...at.context, followUpsQueued: true, forLink: true };
    const credited = await carryOut(deps, processor, await processor.process(order, context), at);
    countEarlier(earlier, credited);
  }
  return { ...outcome, earlier, action: earlier.pending > 0 ? 'retry' : outcome.action } as ProcessOutcome;
}
