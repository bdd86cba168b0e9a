import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles

/**
 * What the activity record holds: observations of what happened around an order (deliveries received,
 * queue receives and deferrals, the Open API calls with their markers), summaries of the audit and
 * reconcile runs, and the circuit breaker's state as the workers report it. Best-effort and never read
 * to decide anything: the ledger stays the one truth of exactly once. Kept in the ledger table with
 * the ledger's TTL, under keys of their own (`activity#...`, `kind: activity`), so the ledger's scans
 * (audit, console), which read `kind` order and refund only, never see them.
 */

const at = z.string();
const refundId = z.string().optional();

export const DeliveryEntry = z.object({
  type: z.literal('delivery'),
  at,
  refundId,
  deliveryId: z.string(),
  topic: z.string().optional(),
  /** The HTTP status intake answered. */
  status: z.number().int(),
  answer: z.string(),
});

export const ReceiveEntry = z.object({
  type: z.literal('receive'),
  at,
  refundId,
  messageId: z.string(),
  receiveCount: z.number().int(),
  outcome: z.string(),
  action: z.enum(['ack', 'retry']),
  /** Set when the message was deferred (its visibility set to this many seconds). */
  deferSeconds: z.number().optional(),
  reason: z.string().optional(),
});

export const CallEntry = z.object({
  type: z.literal('call'),
  at,
  refundId,
  operation: z.string(),
  /** The marker sent in `remarks`. */
  marker: z.string().optional(),
  points: z.number().optional(),
  /** `ok`, or the error kind the call failed with. */
  result: z.string(),
  /** For a failed call: whether the service ran it (`no`, `unknown`). */
  executed: z.string().optional(),
  ms: z.number(),
});

export const ActivityEntry = z.discriminatedUnion('type', [DeliveryEntry, ReceiveEntry, CallEntry]);
export type ActivityEntry = z.infer<typeof ActivityEntry>;
export type DeliveryEntry = z.infer<typeof DeliveryEntry>;
export type ReceiveEntry = z.infer<typeof ReceiveEntry>;
export type CallEntry = z.infer<typeof CallEntry>;

export const RunSummary = z.object({
  run: z.enum(['audit', 'reconcile']),
  startedAt: at,
  finishedAt: at,
  /** false: the run failed (its error in `summary`). */
  ok: z.boolean(),
  /** What it found, in one line (the CLI's summary line). */
  summary: z.string(),
  /** How many findings (drift) or missed orders it found. */
  findings: z.number().int(),
  /** The first findings, one line each. */
  details: z.array(z.string()),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const BreakerTransition = z.object({
  at,
  state: z.enum(['open', 'closed']),
  /** Which worker (container) reported it. */
  worker: z.string(),
  /** What opened it (the error kind), when known. */
  reason: z.string().optional(),
});
export type BreakerTransition = z.infer<typeof BreakerTransition>;

export const OrderActivity = z.object({
  entries: z.array(ActivityEntry).default([]),
  omitted: z.number().int().default(0),
});
export type OrderActivity = z.infer<typeof OrderActivity>;
