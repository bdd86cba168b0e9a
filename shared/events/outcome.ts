/**
 * What processing one event came to: the outcome vocabulary the processor speaks, the ledger records and
 * the dashboard counts. `action` tells the queue adapter what to do with the message: `ack` (done for
 * good, whatever the outcome) or `retry` (transient: back to the queue, and after repeated failures to
 * the DLQ). The ledger keeps the acknowledged kinds, queryable per order.
 *
 * Plain types, not a schema: nothing parses outcomes (the processor makes them), so a cold start pays for
 * no parser (bench/results.md). It lives beside the events so processing, the ledger and the retry rule
 * share it without depending on each other.
 */
import type { PurchaseEvent, RefundEvent } from './events.js';

type RetryOrAck = 'ack' | 'retry';

/** A refund processed on behalf of its purchase (it had been waiting or parked before the purchase). */
export interface FollowUp {
  refundId: string;
  kind: string;
  action: RetryOrAck;
  points?: number;
  /** Its retry was handed to a message of its own (the purchase is acknowledged). */
  setAside?: boolean;
}

/**
 * What must happen next, beside the outcome: work for messages of their own, as data. The queue consumer
 * carries it out (shared/consumer/follow-ups.ts) and takes it off the outcome before anything logs or
 * files it (it holds whole events); the processor asks for it only when its caller said it queues
 * follow-ups (ProcessContext.followUpsQueued), so a caller without a queue never sees it.
 */
export interface NextSteps {
  /**
   * Refunds run for this purchase that must be retried, each with its outcome (its wait): each goes to a
   * message of its own, their follow-ups already say `setAside`. One that cannot be sent makes the event retry.
   */
  setAside?: { event: RefundEvent; outcome: ProcessOutcome }[];
  /**
   * A link's earlier orders (`customerLinked`), each to a message of its own, due at once: its
   * `earlier.handedOver` already counts them. One that cannot be sent is credited by the link's message.
   */
  handOver?: PurchaseEvent[];
}

/** Both sets of next steps, each list joined in order (a list either side has is kept, even empty). */
export function joinNextSteps(a: NextSteps | undefined, b: NextSteps): NextSteps {
  const join = <T>(x: T[] | undefined, y: T[] | undefined) => (x || y ? [...(x ?? []), ...(y ?? [])] : undefined);
  const setAside = join(a?.setAside, b.setAside);
  const handOver = join(a?.handOver, b.handOver);
  return { ...(setAside ? { setAside } : {}), ...(handOver ? { handOver } : {}) };
}

/** The outcome with `steps` added to what must follow it (nothing overwritten); unchanged when there are none. */
export function withNextSteps<T extends ProcessOutcome>(outcome: T, steps: NextSteps): T {
  return steps.setAside || steps.handOver ? { ...outcome, next: joinNextSteps(outcome.next, steps) } : outcome;
}

/** A customer's earlier purchases credited on enrolling or linking them (shared/customers). */
export interface EarlierPurchases {
  credited: number;
  points: number;
  pending: number;
  notFound: number;
  /** What the first purchase still pending answered: the customer event's retry waits as it does. */
  pendingKind?: ProcessOutcome['kind'];
  /** Its `until` (a lease's end, a refund's parking), when it said one: the retry need not wait longer. */
  pendingUntil?: number;
  /** Orders handed to messages of their own, credited there. */
  handedOver?: number;
}

/** What a privacy request found and did (shared/privacy): counts, never an identity. */
export interface PrivacyFigures {
  /** Order records (and their refunds) it covered. */
  orders: number;
  refunds: number;
  /** Customer records (enrolments) deleted. */
  customers: number;
  /** Quarantined deliveries whose bodies it removed (redact) or that mention the customer (report). */
  quarantined: number;
  /** Redemption records whose shop customer id it removed (redact). */
  redemptions?: number;
}

/**
 * Why an event was acknowledged without acting. `too_old`: older than the ledger's retention, so its
 * record may be gone (a replay): earns and takes nothing. `transaction_gone`: the sender no longer has
 * the sale it named (Smaregi answered 404) and it was never recorded. `customer_redacted`: a customer
 * event for a customer a customers/redact erased (a replayed customers/create), or a Smaregi
 * transaction naming a member `npm run privacy -- smaregi erase` erased (docs/privacy.md).
 * `not_a_sale` / `other_store` / `layaway_pickup`: the sender's record earns nothing by the source's settings
 * (PurchaseEvent.notEarning).
 */
export type SkipReason =
  | 'test'
  | 'no_customer'
  | 'amount_zero'
  | 'order_not_credited'
  | 'too_old'
  | 'unlinked_refund'
  | 'transaction_gone'
  | 'customer_redacted'
  | 'not_a_sale'
  | 'other_store'
  | 'layaway_pickup'
  /** A refund before the order's points were earned: it reduced the provisional points, nothing to debit. */
  | 'before_earn'
  /** Shopify's orders/create, or a cancellation before payment: nothing was credited (only a redemption's code is followed). */
  | 'order_not_paid'
  /**
   * A purchase waiting for its customer's link whose sale has since moved on (a till edit named another
   * customer, a later purchase of its chain stands for the sale now): the link credits it to nobody.
   */
  | 'sale_moved';

/** The outcome union (points are whole, non-negative numbers unless said otherwise); `next`: what must follow. */
export type ProcessOutcome = OutcomeOf & { next?: NextSteps };

type OutcomeOf =
  // Acknowledged: definitive.
  | {
      kind: 'credited';
      /** retry only when a refund waiting for this purchase still has to be processed (the purchase is done). */
      action: RetryOrAck;
      customerId: string;
      /**
       * Exact when `exact` (found in the point history), otherwise the balance difference (a hint); 0 when
       * not known (the balance before the call was an earlier attempt's and the entry is not in the history yet).
       */
      points: number;
      exact: boolean;
      reconciled: boolean;
      followUps?: FollowUp[];
    }
  | { kind: 'debited'; action: 'ack'; customerId: string; points: number; target: number; reconciled: boolean }
  | {
      kind: 'insufficient_points';
      action: 'ack';
      policy: 'clamp' | 'park';
      customerId: string;
      /** What was actually debited (clamp: what the customer held; park: 0). */
      points: number;
      target: number;
      shortfall: number;
      reconciled: boolean;
    }
  | { kind: 'duplicate'; action: RetryOrAck; previous: string; followUps?: FollowUp[]; earlier?: EarlierPurchases }
  | { kind: 'skipped'; action: RetryOrAck; reason: SkipReason; followUps?: FollowUp[] }
  | { kind: 'customer_not_found'; action: RetryOrAck; followUps?: FollowUp[] }
  | { kind: 'customer_withdrawn'; action: RetryOrAck; customerId: string; followUps?: FollowUp[] }
  | { kind: 'points_not_available'; action: RetryOrAck; followUps?: FollowUp[] }
  | { kind: 'refund_parked'; action: 'ack'; reason: string }
  /**
   * Provisional points (the source's `earnAfter`): nothing granted yet. `earnWhen`: `fulfilled`, or the
   * ISO time from which the ticker credits them (`days`).
   */
  | { kind: 'pending_earn'; action: 'ack'; earnWhen: string; followUps?: FollowUp[] }
  /**
   * Refunded or cancelled in full before the moment: nothing is ever granted. `reason` `no_member`: the sale
   * named nobody at its moment (a member taken off it).
   */
  | { kind: 'not_earned'; action: 'ack'; reason?: 'no_member'; followUps?: FollowUp[] }
  // Customer events (shared/customers): retry while some earlier purchase still has to be credited.
  | { kind: 'enrolled'; action: RetryOrAck; memberId: string; earlier: EarlierPurchases }
  | { kind: 'already_member'; action: RetryOrAck; memberId: string; earlier: EarlierPurchases }
  | { kind: 'enrol_rejected'; action: 'ack'; reason: string }
  | { kind: 'linked'; action: RetryOrAck; earlier: EarlierPurchases }
  // Privacy requests (shared/privacy): what was removed, or reported, is in the request's record.
  | { kind: 'redacted'; action: 'ack'; figures: PrivacyFigures }
  | { kind: 'reported'; action: 'ack'; figures: PrivacyFigures }
  /** A redaction too large for one invocation: what is done stays done, the retry goes on from there. */
  | { kind: 'redaction_continues'; action: 'retry'; reason: string }
  /**
   * A web points change mirrored to a member's till record by the worker (a till_mirror message): the
   * step's state after (`done`, `refused`, `conflict`, `skipped`; one left unfinished is settled by the
   * nightly audit or `npm start`'s ticker).
   */
  | { kind: 'till_mirrored'; action: 'ack'; state: string }
  /** The Open API refused with a 4xx the spec gives no meaning (open-api errors: `unrecognised`): parked, alarmed. */
  | { kind: 'upstream_rejected'; action: 'ack'; errorKind: string; reason: string }
  // Retried: transient.
  /** `until`: when the holder's lease ends (epoch ms): a retry need not wait longer than that. */
  | { kind: 'lease_held'; action: 'retry'; reason: string; until?: number }
  /** `until`: when the refund stops waiting and is parked (epoch ms): no retry need wait longer. */
  | { kind: 'refund_waiting'; action: 'retry'; reason: string; until?: number }
  /**
   * The points call may have run: the next attempt reconciles first. `until`: the in-doubt horizon (epoch
   * ms), before which nothing of the order is sent again (shared/points/engine). `leaseKept`: the request may still
   * land, so the lease is left to expire; otherwise it was released and the next attempt may start now.
   */
  | { kind: 'outcome_unknown'; action: 'retry'; errorKind: string; reason: string; leaseKept: boolean; until?: number }
  /**
   * `retryAfterSeconds`: a rate limit's Retry-After (errorKind rate_limited), or until the minute a slot
   * of the shared budget is expected (errorKind budget_spent): no retry comes sooner.
   */
  | { kind: 'upstream_error'; action: 'retry'; errorKind: string; reason: string; retryAfterSeconds?: number }
  /** Not contracted, credentials refused, request rejected as invalid: fixed by people, then redriven. */
  | { kind: 'configuration_error'; action: 'retry'; errorKind: string; reason: string }
  | { kind: 'lease_lost'; action: 'retry'; reason: string }
  | { kind: 'invalid_event'; action: 'retry'; reason: string };

/** `list`, when it names every member of T: otherwise a compile error says which are missing. */
const everyOf =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> })) =>
    list;

/** Every outcome kind, in the union's order (the compiler holds the two to the same kinds). */
export const OUTCOME_KINDS = everyOf<ProcessOutcome['kind']>()([
  'credited',
  'debited',
  'insufficient_points',
  'duplicate',
  'skipped',
  'customer_not_found',
  'customer_withdrawn',
  'points_not_available',
  'refund_parked',
  'pending_earn',
  'not_earned',
  'enrolled',
  'already_member',
  'enrol_rejected',
  'linked',
  'redacted',
  'reported',
  'till_mirrored',
  'upstream_rejected',
  'lease_held',
  'refund_waiting',
  'outcome_unknown',
  'upstream_error',
  'configuration_error',
  'lease_lost',
  'redaction_continues',
  'invalid_event',
]);
/** Every outcome kind, one vocabulary: the ledger records a part of it (`OrderOutcome`, `RefundOutcome`). */
export type OutcomeKind = ProcessOutcome['kind'];
