import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles

/**
 * What processing one event came to. `action` tells the queue adapter what to do with the message:
 * `ack` (done for good, whatever the outcome) or `retry` (transient: back to the queue, and after
 * repeated failures to the DLQ). The ledger keeps the acknowledged kinds, queryable per order.
 */
const ack = z.literal('ack');
const retry = z.literal('retry');
const retryOrAck = z.enum(['ack', 'retry']);
const points = z.number().int().nonnegative();

/** A refund processed on behalf of its purchase (it had been waiting or parked before the purchase). */
export const FollowUp = z.object({
  refundId: z.string(),
  kind: z.string(),
  action: retryOrAck,
  points: points.optional(),
  /** Its retry was handed to a message of its own (the purchase is acknowledged). */
  setAside: z.boolean().optional(),
});
export type FollowUp = z.infer<typeof FollowUp>;

const followUps = z.array(FollowUp).optional();

/** A customer's earlier purchases credited on enrolling or linking them (shared/customers). */
const earlier = z.object({ credited: points, points, pending: points, notFound: points });

/** `too_old`: older than the ledger's retention, so its record may be gone (a replay): earns and takes nothing. */
/** `transaction_gone`: the sender no longer has the sale it named (Smaregi answered 404) and it was never recorded. */
export const SkipReason = z.enum([
  'test',
  'no_customer',
  'amount_zero',
  'order_not_credited',
  'too_old',
  'unlinked_refund',
  'transaction_gone',
]);
export type SkipReason = z.infer<typeof SkipReason>;

/**
 * The outcome union, as a type only: nothing parses outcomes (the processor makes them), so the schema
 * is never built at run time; a cold start would pay for its seventy-odd parts (bench/results.md).
 */
const processOutcome = () =>
  z.discriminatedUnion('kind', [
    // Acknowledged: definitive.
    z.object({
      kind: z.literal('credited'),
      /** retry only when a refund waiting for this purchase still has to be processed (the purchase is done). */
      action: retryOrAck,
      customerId: z.string(),
      /** Exact when `exact` (found in the point history), otherwise the balance difference (a hint). */
      points: z.number().int(),
      exact: z.boolean(),
      reconciled: z.boolean(),
      followUps,
    }),
    z.object({
      kind: z.literal('debited'),
      action: ack,
      customerId: z.string(),
      points,
      target: points,
      reconciled: z.boolean(),
    }),
    z.object({
      kind: z.literal('insufficient_points'),
      action: ack,
      policy: z.enum(['clamp', 'park']),
      customerId: z.string(),
      /** What was actually debited (clamp: what the customer held; park: 0). */
      points,
      target: points,
      shortfall: points,
      reconciled: z.boolean(),
    }),
    z.object({ kind: z.literal('duplicate'), action: retryOrAck, previous: z.string(), followUps }),
    z.object({ kind: z.literal('skipped'), action: retryOrAck, reason: SkipReason, followUps }),
    z.object({ kind: z.literal('customer_not_found'), action: retryOrAck, followUps }),
    z.object({ kind: z.literal('customer_withdrawn'), action: retryOrAck, customerId: z.string(), followUps }),
    z.object({ kind: z.literal('points_not_available'), action: retryOrAck, followUps }),
    z.object({ kind: z.literal('refund_parked'), action: ack, reason: z.string() }),
    // Customer events (shared/customers): retry while some earlier purchase still has to be credited.
    z.object({ kind: z.literal('enrolled'), action: retryOrAck, memberId: z.string(), earlier }),
    z.object({ kind: z.literal('already_member'), action: retryOrAck, memberId: z.string(), earlier }),
    z.object({ kind: z.literal('enrol_rejected'), action: ack, reason: z.string() }),
    z.object({ kind: z.literal('linked'), action: retryOrAck, earlier }),
    /** The Open API refused with a 4xx the spec gives no meaning (open-api errors: `unrecognised`): parked, alarmed. */
    z.object({ kind: z.literal('upstream_rejected'), action: ack, errorKind: z.string(), reason: z.string() }),
    // Retried: transient.
    /** `until`: when the holder's lease ends (epoch ms): a retry need not wait longer than that. */
    z.object({ kind: z.literal('lease_held'), action: retry, reason: z.string(), until: z.number().optional() }),
    /** `until`: when the refund stops waiting and is parked (epoch ms): no retry need wait longer. */
    z.object({ kind: z.literal('refund_waiting'), action: retry, reason: z.string(), until: z.number().optional() }),
    /**
     * The points call may have run: the next attempt reconciles first. `leaseKept`: the request may still
     * land, so the lease is left to expire; otherwise it was released and the next attempt may start now.
     */
    z.object({ kind: z.literal('outcome_unknown'), action: retry, errorKind: z.string(), reason: z.string(), leaseKept: z.boolean() }),
    z.object({ kind: z.literal('upstream_error'), action: retry, errorKind: z.string(), reason: z.string() }),
    /** Not contracted, credentials refused, request rejected as invalid: fixed by people, then redriven. */
    z.object({ kind: z.literal('configuration_error'), action: retry, errorKind: z.string(), reason: z.string() }),
    z.object({ kind: z.literal('lease_lost'), action: retry, reason: z.string() }),
    z.object({ kind: z.literal('invalid_event'), action: retry, reason: z.string() }),
  ]);
export type ProcessOutcome = z.infer<ReturnType<typeof processOutcome>>;

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
  'enrolled',
  'already_member',
  'enrol_rejected',
  'linked',
  'upstream_rejected',
  'lease_held',
  'refund_waiting',
  'outcome_unknown',
  'upstream_error',
  'configuration_error',
  'lease_lost',
  'invalid_event',
]);
/** Every outcome kind, one vocabulary: the ledger records a part of it (`OrderOutcome`, `RefundOutcome`). */
export const OutcomeKind = z.enum(OUTCOME_KINDS);
export type OutcomeKind = z.infer<typeof OutcomeKind>;
