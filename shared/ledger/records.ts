import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { AmountTerms, OUTCOME_KINDS } from '../events/index.js';
import { lazyObject, lazySchema } from '../schema/index.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/** Processing's outcome kinds, as the schema the ledger's records are read with. */
const OutcomeKind = lazySchema(() => z.enum(OUTCOME_KINDS));

/** Why a purchase ended (acknowledged outcomes; the queue is done with them): kinds of processing's outcomes. */
export const OrderOutcome = lazySchema(() =>
  OutcomeKind.extract([
    'credited',
    'skipped',
    'customer_not_found',
    'customer_withdrawn',
    'points_not_available',
    'upstream_rejected',
    // A fixed deduction (points spent at a till): done, or what the member's balance could not cover (clamped or parked).
    'debited',
    'insufficient_points',
    // Provisional points (earnAfter): not yet earned; or never, refunded in full before the moment.
    'pending_earn',
    'not_earned',
  ]),
);
export type OrderOutcome = z.infer<typeof OrderOutcome>;

/** Why a refund ended, or why it is parked. */
export const RefundOutcome = lazySchema(() =>
  OutcomeKind.extract([
    'debited',
    'insufficient_points',
    'skipped',
    'customer_withdrawn',
    'points_not_available',
    'refund_parked',
    'upstream_rejected',
  ]),
);
export type RefundOutcome = z.infer<typeof RefundOutcome>;

/** stub: created by a refund that came before its purchase; pending: claimed, not finished; done: finished. */
export const OrderState = lazySchema(() => z.enum(['stub', 'pending', 'done']));
/** waiting: its purchase is not credited yet (retried); parked: given up visibly (picked up again later). */
export const RefundState = lazySchema(() => z.enum(['pending', 'waiting', 'parked', 'done']));

const stringSet = lazySchema(() => z.preprocess((v) => (v instanceof Set ? [...v] : v), z.array(z.string())));

/** One refund as applied to its order: the order record is the book the debits are computed from. */
export const AppliedRefund = lazyObject(z.object, () => ({
  /** Refund amount this refund added (after capping at the eligible amount). */
  amount: z.number().int().nonnegative(),
  /** Refunded amount of the order after this refund. */
  refundedAfter: z.number().int().nonnegative(),
  /** What this refund should debit: its share of the credited points. */
  target: z.number().int().nonnegative(),
  /** Exact amount added and exact refunded total after it (when the share was computed exactly). */
  exactAmount: z.string().optional(),
  exactRefundedAfter: z.string().optional(),
  /** What it actually debited (less than target only when the customer held too few points). */
  debited: z.number().int().nonnegative(),
  /** True when the debit was found in the point history rather than answered by the call. */
  reconciled: z.boolean().optional(),
  at: z.string(),
}));
export type AppliedRefund = z.infer<typeof AppliedRefund>;

/**
 * A campaign the purchase qualified for, as its rule said when the purchase was recorded (issue 53): its
 * bonus is granted, and taken back by refunds, from this, whatever the stage's rules say later.
 */
export const OrderCampaign = lazyObject(z.object, () => ({
  id: z.string(),
  title: z.string(),
  multiplier: z.string().optional(),
  fixedPoints: z.number().int().positive().optional(),
  /** The bonus expires with the base credit (`Y-m-d`), when the source sets an expiry. */
  expiredAt: z.string().optional(),
}));
export type OrderCampaign = z.infer<typeof OrderCampaign>;

/**
 * A member as a purchase's lookup found it: the id its call goes to, the rank campaigns may need and the
 * balance then (the base of the credited points' hint, a hint only: others may move points meanwhile).
 */
export const FoundMember = lazyObject(z.object, () => ({
  id: z.string().min(1),
  point: z.number(),
  rank: z.string().optional(),
}));
export type FoundMember = z.infer<typeof FoundMember>;

const text = lazySchema(() => z.string().optional());
/** ISO 8601, as the ledger writes it. */
const time = lazySchema(() => z.string().optional());

/**
 * What the attempts of a state-changing operation leave on its record (orders, reversals, bonuses; the
 * engine reads them as its DoubtFields): who holds it, and what an earlier attempt left in doubt.
 */
export const operationFields = () => ({
  /** Who holds the claim; absent when nobody does. A lease left in place was never released (crash, unknown outcome). */
  leaseOwner: z.string().optional(),
  /** Epoch ms after which the lease may be taken over. */
  leaseUntil: z.number().optional(),
  /** A previous attempt's points call may have run: search the history before calling again. */
  needsReconcile: z.boolean().optional(),
  /**
   * A points call of the record ended proving nothing: no call of it is sent before this (epoch ms),
   * and then only after a complete search (shared/points/engine).
   */
  inDoubtUntil: z.number().optional(),
  /** Epoch ms: the earliest the calls in doubt may have been sent (where the search must reach). */
  inDoubtSince: z.number().optional(),
  /** The member the call in doubt went to: that member's history is searched, whoever a new lookup finds. */
  inDoubtMemberId: z.string().optional(),
});
export type OperationFields = { [K in keyof ReturnType<typeof operationFields>]?: z.infer<ReturnType<typeof operationFields>[K]> };

/** The doubt fields among them: set together by a release in doubt, removed together when the record is done. */
export const DOUBT_FIELDS = ['needsReconcile', 'inDoubtUntil', 'inDoubtSince', 'inDoubtMemberId'] as const;

/** A release's doubt as the record keeps it: when it can no longer land, since when, and to whom. */
export interface InDoubt {
  until: number;
  since: number;
  memberId?: string | undefined;
}

/** The fields a release in doubt writes (the Expression's `setAll`; an absent member id is not written). */
export const inDoubtFields = (d: InDoubt) => ({
  needsReconcile: true,
  inDoubtUntil: d.until,
  inDoubtSince: d.since,
  inDoubtMemberId: d.memberId,
});

const lease = () => {
  const { leaseOwner, leaseUntil } = operationFields();
  return { leaseOwner, leaseUntil, ...leaseNotes() };
};

const leaseNotes = () => ({
  attempts: z.number().int().nonnegative().default(0),
  lastError: text,
  reason: text,
  /** Refunds: when the refund was first seen (its wait for the purchase counts from it). Orders: createdAt. */
  firstSeenAt: time,
  createdAt: time,
  updatedAt: time,
  finishedAt: time,
  /** When a privacy request removed what identified the shop customer (shared/privacy). */
  redactedAt: time,
  /** Epoch seconds: DynamoDB removes finished records after the configured number of days. */
  ttl: z.number().optional(),
});

export const OrderRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('order'),
  source: z.string(),
  orderId: z.string(),
  state: OrderState,
  ...lease(),
  ...operationFields(),
  /** Set on the order while a refund holds its lease (who holds it; informational). */
  leaseRefundId: z.string().optional(),
  /**
   * Refunds that took the order's lease and whose debit may have run without being booked. Added by the
   * claim itself and removed only when booked or proven not run, so neither a takeover that dies nor a
   * failed history search can forget one: whoever claims next searches their markers first.
   */
  refundsInDoubt: stringSet.default([]),
  /**
   * Of those, the refunds whose debit was sent and its answer lost (recorded by the release that ended that
   * attempt; removed with `refundsInDoubt`). A refund in doubt without it may have died before sending
   * anything: it waits for a sibling here, never the other way round (shared/points/siblings.ts).
   */
  refundsSent: stringSet.default([]),
  /**
   * What an attempt's lookup found for this order's customer, kept by the write that ends the attempt
   * unfinished (a release), so the next attempt calls for the same member without looking it up again.
   * For this order only (never a cache of the customer); removed when the purchase ends.
   */
  foundMember: FoundMember.optional(),
  externalKey: z.string().optional(),
  externalId: z.string().optional(),
  /** The shop the sale was made in, as its delivery said (Shopify's shop header): shop/redact's scope. */
  shopDomain: z.string().optional(),
  /** The store the sale was made in, when its sender names one (Smaregi's storeId): the points report's store. */
  store: z.string().optional(),
  currency: z.string().optional(),
  customerId: z.string().optional(),
  eligibleAmount: z.number().int().nonnegative().optional(),
  /** The purchase's exact eligible amount (decimal string), the base of exact refund shares. */
  eligibleExact: z.string().optional(),
  /** How the purchase measured it (basis, tax inclusion as its payload said, rule): its refunds use the same. */
  terms: AmountTerms.optional(),
  /** Exact sum of the refunds applied; removed when a refund without an exact amount is applied. */
  refundedExact: z.string().optional(),
  /** Balance after minus balance before the grant: a hint only (others may move points in between). */
  pointsHint: z.number().int().optional(),
  /** The credited points as shown by the history entry carrying the order's marker (exact). */
  pointsCredited: z.number().int().optional(),
  pointsExact: z.boolean().optional(),
  /** A fixed deduction's points the balance could not cover (outcome insufficient_points). */
  shortfall: z.number().int().nonnegative().optional(),
  reconciled: z.boolean().optional(),
  outcome: OrderOutcome.optional(),
  refundedSoFar: z.number().int().nonnegative().default(0),
  /** Sum of the applied refunds' targets: what the refunds should have debited so far. */
  debitTarget: z.number().int().nonnegative().default(0),
  /** Sum of what they actually debited. */
  debited: z.number().int().nonnegative().default(0),
  refunds: z.record(z.string(), AppliedRefund).default({}),
  /** Every refund id seen for this order (to list their records). */
  refundIds: stringSet.default([]),
  /** Refunds that came before the purchase was credited: processed when it is. */
  waitingRefunds: stringSet.default([]),
  /**
   * Epoch ms: a sale skipped for want of a customer whose sender may still name one (Square). Until
   * then a delivery naming the customer re-opens the order under the usual claim (`reopenPurchase`).
   */
  awaitingCustomerUntil: z.number().optional(),
  /**
   * Set while the purchase ended `customer_not_found` (the byUnlinkedCustomer index's keys: `unlinkedKey`,
   * and the purchase time), with the purchase event itself, so linking or enrolling the customer can
   * credit it late (`reopenUnlinked`). Removed when the purchase ends otherwise.
   */
  unlinkedCustomer: z.string().optional(),
  purchasedAt: z.string().optional(),
  purchaseEvent: z.string().optional(),
  /**
   * The purchase event (JSON) of an order parked as `upstream_rejected`, so `npm run reprocess -- --outcome
   * upstream_rejected` can run it again once the cause is fixed (`reopenRejected`). Removed when it ends otherwise.
   */
  rejectedEvent: z.string().optional(),
  /** The campaigns the purchase qualified for: each bonus has its record (bonus#..., shared/ledger/bonuses.ts). */
  campaigns: z.array(OrderCampaign).optional(),
  /**
   * Provisional points (`pending_earn`, shared/ledger/provisional.ts): `fulfilled`, or the ISO time from
   * which the ticker credits them. The index keys above (`earn#...`) and the event are kept meanwhile.
   */
  earnWhen: z.string().optional(),
  /** The amount the points will be earned on, as paid (units and exact): refunds before the moment come off it. */
  earnBase: z.object({ amount: z.number().int().nonnegative(), exact: z.string().optional() }).optional(),
  /** What refunds took before the moment (units; exact while every one was exact), and each of them. */
  earnRefunded: z.number().int().nonnegative().default(0),
  earnRefundedExact: z.string().optional(),
  refundsBeforeEarn: z.record(z.string(), z.object({ amount: z.number().int().nonnegative(), at: z.string() })).default({}),
  /** The moment came and its credit is under way: no delivery makes the order provisional again. */
  earning: z.boolean().optional(),
  /**
   * Partial fulfilments of a `fulfilled` order (shared/points/shares.ts): the amounts (units, as texts) the
   * shipped shares earned on, each credited as its own order `<order>/ship-<amount>` while the order waits.
   */
  shippedShares: stringSet.default([]),
}));
export type OrderRecord = z.infer<typeof OrderRecord>;

export const RefundRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('refund'),
  source: z.string(),
  orderId: z.string(),
  refundId: z.string(),
  state: RefundState,
  ...lease(),
  /** The refund event as first received (JSON), so a parked refund can be processed later. */
  event: z.string(),
  outcome: RefundOutcome.optional(),
  customerId: z.string().optional(),
  pointsDebited: z.number().int().nonnegative().optional(),
  debitTarget: z.number().int().nonnegative().optional(),
  shortfall: z.number().int().nonnegative().optional(),
  /**
   * Of a clamp's shortfall, what the audit took later because a double's extra debit (reversed by that
   * audit) had made the member hold too little (shared/audit/shortfalls.ts); `shortfall` is then what is
   * left, `pointsDebited` stays what the refund's own entry took. Set once: present, settled.
   */
  shortfallSettled: z.number().int().nonnegative().optional(),
  reconciled: z.boolean().optional(),
}));
export type RefundRecord = z.infer<typeof RefundRecord>;

export interface OrderRef {
  source: string;
  orderId: string;
}
export interface RefundRef extends OrderRef {
  refundId: string;
}

// Parts are escaped so that ids containing the separator can never collide.
const part = encodeURIComponent;
export const orderKey = (source: string, orderId: string) => `${LEDGER_KEY_PREFIX.order}${part(source)}#${part(orderId)}`;
/** The byUnlinkedCustomer index's partition: one source customer (source, external key, external id). */
export const unlinkedKey = (source: string, externalKey: string, externalId: string) =>
  `${part(source)}#${part(externalKey)}#${part(externalId)}`;
/** A link or enrolment of that source customer under way or just done (link-marks.ts). */
export const linkMarkKey = (source: string, externalKey: string, externalId: string) =>
  `linked#${unlinkedKey(source, externalKey, externalId)}`;
export const refundKey = (source: string, orderId: string, refundId: string) =>
  `${LEDGER_KEY_PREFIX.refund}${part(source)}#${part(orderId)}#${part(refundId)}`;

/** Reads one item by its key (a consistent read): the ledger's store, or a reader's own client. */
export type ItemRead = (pk: string) => Promise<Record<string, unknown> | undefined>;

/** The order record, checked against its schema; undefined when there is none. */
export async function readOrder(read: ItemRead, ref: OrderRef): Promise<OrderRecord | undefined> {
  const item = await read(orderKey(ref.source, ref.orderId));
  return item ? OrderRecord.parse(item) : undefined;
}

/** The refund record, checked against its schema; undefined when there is none. */
export async function readRefund(read: ItemRead, ref: RefundRef): Promise<RefundRecord | undefined> {
  const item = await read(refundKey(ref.source, ref.orderId, ref.refundId));
  return item ? RefundRecord.parse(item) : undefined;
}
