import type { AmountTerms } from '../events/index.js';
import { capText } from '../text/index.js';
import {
  awaitingCustomer,
  claimable,
  claimableUndoubted,
  doneWith,
  exists,
  heldBy,
  leaseFree,
  notBooked,
  purchaseNotFinal,
  refundableBy,
  unclaimedOrder,
} from './conditions.js';
import { Expression } from './expression.js';
import { NO_MEMBER } from './provisional.js';
import {
  type AppliedRefund,
  DOUBT_FIELDS,
  type FoundMember,
  type InDoubt,
  inDoubtFields,
  type OrderCampaign,
  type OrderOutcome,
  OrderRecord,
  type OrderRef,
  type RefundRef,
  orderKey,
  readOrder,
} from './records.js';
import type { Claim, Store } from './store.js';

export interface PurchaseClaimInput extends OrderRef {
  owner: string;
  eligibleAmount: number;
  eligibleExact?: string | undefined;
  terms?: AmountTerms | undefined;
  currency: string;
  externalKey?: string;
  externalId?: string;
  /** The shop the sale was made in, as its delivery said (Shopify's shop header): shop/redact's scope. */
  shopDomain?: string | undefined;
  /** The store the sale was made in, as its sender said (Smaregi's storeId): the points report's store column. */
  store?: string | undefined;
  /**
   * The member this attempt looked up before claiming, written with the claim (kept if the order already
   * names one): a worker that dies after its call leaves the member its call went to (member-first.ts).
   */
  foundMember?: FoundMember | undefined;
}

export interface PurchaseResult {
  outcome: OrderOutcome;
  reason?: string;
  customerId?: string;
  pointsHint?: number;
  /** Known only when the credit was found in the point history. */
  pointsCredited?: number;
  /** insufficient_points only: what the balance could not cover. */
  shortfall?: number;
  reconciled?: boolean;
  eligibleAmount?: number;
  eligibleExact?: string | undefined;
  terms?: AmountTerms | undefined;
  currency?: string;
  externalKey?: string;
  externalId?: string;
  shopDomain?: string | undefined;
  store?: string | undefined;
  /** Skips only: the order may be re-opened by a delivery naming the customer until then (epoch ms). */
  awaitingCustomerUntil?: number;
  /** customer_not_found only: kept findable by its customer, with its event, to be credited once linked. */
  unlinked?: { customer: string; purchasedAt: string; event: string };
  /**
   * Credited late (its customer linked): the index keys stay until the refunds that waited for it are
   * through (`leaveUnlinkedIndex`), so a link event retried after a crash among them still finds it.
   */
  keepUnlinked?: boolean;
  /** credited only: the campaigns it qualified for (their bonuses follow, shared/points/bonus.ts). */
  campaigns?: OrderCampaign[] | undefined;
  /** upstream_rejected only: the purchase event, kept to be run again after the fix (`reopenRejected`). */
  rejectedEvent?: string;
  /**
   * pending_earn only: when it is earned (`fulfilled` or an ISO time), the order's key in the customer's
   * index (`pendingEarnKey`), its purchase time and event (run again at the moment), the amount it earns on.
   */
  provisional?: { earnWhen: string; customer: string; purchasedAt: string; event: string; base: { amount: number; exact?: string } };
  /** Credited at the moment: what is left after the refunds before it, the base of every later refund's share. */
  earnedOn?: { amount: number; exact: string | undefined };
  /**
   * A call of the order an earlier attempt left in doubt, not settled by this one (shared/points/inherited-doubt.ts):
   * written on the order whatever the outcome, so its next claim searches before it sends again.
   */
  inDoubt?: InDoubt;
  /**
   * The writer proved any call in doubt absent (a complete search past the horizon) or found it: the doubt
   * fields go. Without it (nor `inDoubt`) they stay as the record has them: a finish never drops a doubt.
   */
  doubtSettled?: boolean;
}

export interface ReleaseOrderOptions {
  lastError: string;
  needsReconcile?: boolean;
  keepLease?: boolean;
  /** The refund that held the lease. */
  refundId?: string;
  /** Its debit is proven not to have run: no longer in doubt. */
  notDebited?: boolean;
  /** Its debit was sent and its answer lost: it may land (`refundsSent`). */
  sent?: boolean;
  /** The call ended proving nothing: when it can no longer land, since when, and to whom (shared/points/engine). */
  inDoubt?: InDoubt;
  /** The member this attempt's lookup found: the next attempt calls for it without a lookup. */
  foundMember?: FoundMember | undefined;
}

export interface ApplyRefundInput {
  refundId: string;
  applied: AppliedRefund;
  /** The order's totals after this refund (the caller computed them under the order's lease). */
  refundedSoFar: number;
  /** Exact refunded total after this refund; null: this refund had none, so the exact total is dropped. */
  refundedExact?: string | null;
  debitTarget: number;
  debited: number;
  /** Exact credited points, when this refund was the first to read them from the history. */
  pointsCredited?: number;
  /** Keep the lease (the holder still has its own refund to do after applying another's). */
  keepLease?: boolean;
  /** Other refunds in doubt that the history search proved never debited. */
  notDebited?: string[];
}

/** The order record: its purchase's lease and outcome, and the book of the refunds applied to it. */
export interface OrderRecords {
  getOrder(ref: OrderRef): Promise<OrderRecord | undefined>;
  /** Lease on the order for its purchase: absent, a refund's stub, or pending with a free lease. */
  claimPurchase(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Lease on an order skipped for want of a customer while it still awaits one (`awaitingCustomerUntil`
   * not passed): the skip is undone and the purchase proceeds as if first claimed. Once only: the
   * next outcome is final.
   */
  reopenPurchase(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Lease on an order that ended `customer_not_found`, now that its customer is linked: the purchase
   * proceeds as if first claimed. Its index keys stay until it ends otherwise, so an attempt that dies
   * leaves it findable (and claimable once its lease runs out).
   */
  reopenUnlinked(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Lease on a `pending_earn` order whose moment came, or one ended at it naming nobody (`no_member`) while
   * a member may still be attached: the purchase proceeds to its credit (`earning` set, so a crash or a
   * redelivery never makes it provisional again). Its facts stay as paid.
   */
  reopenForEarn(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Makes an order parked as `upstream_rejected` claimable again by its purchase (pending, lease free),
   * keeping its outcome until the purchase ends anew, so a re-run whose message got lost is found again.
   * Also true for one already re-opened and not claimed since. False: it is neither (nothing to run).
   */
  reopenRejected(ref: OrderRef): Promise<boolean>;
  /**
   * Ends the purchase. owner: the lease holder; null: no claim was needed (skips), then the order must
   * not be done nor leased. Undefined when the condition failed (lease lost, or already done).
   */
  finishPurchase(ref: OrderRef, owner: string | null, result: PurchaseResult): Promise<OrderRecord | undefined>;
  /** The lease holder's member, written before its first call when its claim did not carry it (a lookup after the claim). */
  keepFoundMember(ref: OrderRef, owner: string, member: FoundMember): Promise<boolean>;
  /** Ends an attempt without a result. keepLease: the call's outcome is unknown, let the lease run out. */
  releaseOrder(ref: OrderRef, owner: string, opts: ReleaseOrderOptions): Promise<boolean>;
  /** Notes on the order (creating a stub) that a refund waits for the purchase. Undefined: already done. */
  registerWaitingRefund(ref: RefundRef): Promise<OrderRecord | undefined>;
  /**
   * Takes an order credited late out of the byUnlinkedCustomer index once no refund waits for it (and
   * none holds its lease); false when it is not so yet (or is still customer_not_found).
   */
  leaveUnlinkedIndex(ref: OrderRef): Promise<boolean>;
  forgetWaitingRefund(ref: RefundRef): Promise<void>;
  /** Lease on a credited order for one refund that is not yet applied to it. */
  claimOrderForRefund(ref: RefundRef, owner: string): Promise<Claim<OrderRecord>>;
  /**
   * Books a refund's debit on the order, once (conditional on the refund id not being there). A refund
   * waiting for the purchase stays listed: the caller forgets it once its record is finished.
   */
  applyRefund(ref: OrderRef, owner: string, input: ApplyRefundInput): Promise<OrderRecord | undefined>;
  /**
   * The audit's correction of a refund's booked debit (`from` -> `to`) and the order's sum of debits with
   * it; conditional on the book still saying `from` (undefined otherwise: corrected before).
   */
  correctBookedDebit(ref: RefundRef, fix: { from: number; to: number }): Promise<OrderRecord | undefined>;
}

/**
 * Skips (no owner) need no claim: only an order nobody holds, and never one a delivery naming the customer
 * claimed, nor one a call of which is in doubt (a skip searches nothing: shared/points/inherited-doubt.ts).
 */
function finishCondition(e: Expression, owner: string | null, result: PurchaseResult, now: number): string {
  if (owner !== null) return heldBy(e, owner);
  return result.awaitingCustomerUntil !== undefined ? unclaimedOrder(e) : claimableUndoubted(e, now);
}

/** What the purchase event says of the order, kept on it from the first claim. */
const PURCHASE_FACTS = [
  'eligibleAmount',
  'eligibleExact',
  'terms',
  'currency',
  'externalKey',
  'externalId',
  'shopDomain',
  'store',
] as const;

/** What a finished purchase no longer has: its lease and the notes of its attempts (its doubt only once settled). */
const LEASE_FIELDS = ['leaseOwner', 'leaseUntil', 'leaseRefundId', 'lastError', 'foundMember'] as const;

/** What an order waiting for its customer to be linked carries (the index keys and its event). */
const UNLINKED_FIELDS = ['unlinkedCustomer', 'purchasedAt', 'purchaseEvent'] as const;

type Item = Record<string, unknown> & { pk: string };

const parseOrder = (item: Record<string, unknown> | undefined) => (item ? OrderRecord.parse(item) : undefined);
const keyOf = (ref: OrderRef) => orderKey(ref.source, ref.orderId);

const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

const orderIdentity = (store: Store, ref: OrderRef, now: number) =>
  new Expression().set('kind', 'order').set('source', ref.source).set('orderId', ref.orderId).setIfAbsent('createdAt', store.iso(now));
const orderBase = (store: Store, ref: OrderRef, now: number) => orderIdentity(store, ref, now).set('updatedAt', store.iso(now));

/**
 * The book of refunds as it starts: every purchase write leaves the map in place, so a refund can be
 * booked on any credited order (`SET refunds.#id` needs it). Its totals start at 0 by the schema's defaults.
 */
const withEmptyBook = (e: Expression) => e.setIfAbsent('refunds', {});

/** The purchase's lease and facts, as a claim of an existing record and a re-opening both write them. */
const purchaseLease = (store: Store, input: PurchaseClaimInput, now: number) =>
  withFoundMember(
    withEmptyBook(
      orderBase(store, input, now)
        .set('state', 'pending')
        .set('leaseOwner', input.owner)
        .set('leaseUntil', now + store.leaseMs)
        .increment('attempts')
        .setFrom(input, PURCHASE_FACTS),
    ),
    input,
  );

/** The claim's member, unless the order names one already (an earlier attempt's, whose call may be in doubt). */
const withFoundMember = (e: Expression, input: PurchaseClaimInput) =>
  input.foundMember ? e.setIfAbsent('foundMember', input.foundMember) : e;

/** What `purchaseLease` leaves where no record was: written whole by the common first claim. */
const freshOrder = (store: Store, input: PurchaseClaimInput, now: number): Item => ({
  pk: keyOf(input),
  kind: 'order',
  source: input.source,
  orderId: input.orderId,
  createdAt: store.iso(now),
  updatedAt: store.iso(now),
  state: 'pending',
  leaseOwner: input.owner,
  leaseUntil: now + store.leaseMs,
  attempts: 1,
  ...defined(Object.fromEntries(PURCHASE_FACTS.map((f) => [f, input[f]]))),
  ...defined({ foundMember: input.foundMember }),
  refunds: {},
});

/** What a finish sets on the order (beside removing LEASE_FIELDS). */
const finishFields = (store: Store, result: PurchaseResult, now: number) =>
  defined({
    updatedAt: store.iso(now),
    state: 'done',
    outcome: result.outcome,
    customerId: result.customerId,
    pointsHint: result.pointsHint,
    pointsCredited: result.pointsCredited,
    pointsExact: result.pointsCredited !== undefined ? true : undefined,
    shortfall: result.shortfall,
    reconciled: result.reconciled,
    awaitingCustomerUntil: result.awaitingCustomerUntil,
    unlinkedCustomer: result.unlinked?.customer ?? result.provisional?.customer,
    purchasedAt: result.unlinked?.purchasedAt ?? result.provisional?.purchasedAt,
    purchaseEvent: result.unlinked?.event ?? result.provisional?.event,
    earnWhen: result.provisional?.earnWhen,
    earnBase: result.provisional?.base,
    eligibleAmount: result.earnedOn?.amount,
    eligibleExact: result.earnedOn?.exact,
    rejectedEvent: result.rejectedEvent,
    campaigns: result.campaigns,
    ...store.finished(result.reason, now),
  });

type PurchaseWrites = Pick<
  OrderRecords,
  | 'getOrder'
  | 'claimPurchase'
  | 'reopenPurchase'
  | 'reopenUnlinked'
  | 'reopenForEarn'
  | 'reopenRejected'
  | 'finishPurchase'
  | 'keepFoundMember'
  | 'releaseOrder'
>;
type RefundBookWrites = Omit<OrderRecords, keyof PurchaseWrites>;

/** The order as its purchase writes it: the lease, its re-openings and the outcome. */
function purchaseWrites(store: Store): PurchaseWrites {
  const { clock, iso } = store;
  return {
    getOrder: (ref) => readOrder(store.get, ref),

    async claimPurchase(input) {
      const now = clock();
      // Most orders are new: one put claims them. A record already there (a refund's stub, a redelivery,
      // a lease to take over) is claimed by the conditional update under the usual condition.
      const note = { ref: input };
      if (await store.create(freshOrder(store, input, now), note)) return { ok: true, previous: undefined };
      const e = purchaseLease(store, input, now).remove('ttl');
      return store.claim(keyOf(input), e, claimable(e, now), OrderRecord.parse, note);
    },

    async reopenPurchase(input) {
      const now = clock();
      const e = purchaseLease(store, input, now).remove('outcome', 'reason', 'finishedAt', 'ttl', 'awaitingCustomerUntil');
      return store.claim(keyOf(input), e, awaitingCustomer(e, now), OrderRecord.parse);
    },

    async reopenUnlinked(input) {
      const now = clock();
      const e = purchaseLease(store, input, now).remove('outcome', 'reason', 'finishedAt', 'ttl');
      return store.claim(keyOf(input), e, doneWith(e, 'customer_not_found'), OrderRecord.parse);
    },

    async reopenForEarn(input) {
      const now = clock();
      const e = withFoundMember(
        orderBase(store, input, now)
          .set('state', 'pending')
          .set('leaseOwner', input.owner)
          .set('leaseUntil', now + store.leaseMs)
          .set('earning', true)
          .increment('attempts')
          .remove('outcome', 'reason', 'finishedAt', 'ttl'),
        input,
      );
      // Or ended at its moment naming nobody, while a member may still be attached (endWithoutMember).
      const nobody = `${doneWith(e, 'not_earned')} AND ${e.path('reason')} = ${e.value(NO_MEMBER)} AND ${e.path('awaitingCustomerUntil')} >= ${e.value(now)}`;
      e.remove('awaitingCustomerUntil');
      return store.claim(keyOf(input), e, `(${doneWith(e, 'pending_earn')}) OR (${nobody})`, OrderRecord.parse, { ref: input });
    },

    async reopenRejected(ref) {
      const now = clock();
      const e = new Expression().set('state', 'pending').set('updatedAt', iso(now)).remove('ttl');
      const reopened = `${e.path('state')} = ${e.value('pending')} AND ${e.path('outcome')} = ${e.value('upstream_rejected')} AND ${leaseFree(e, now)}`;
      return (await store.update(keyOf(ref), e, `(${doneWith(e, 'upstream_rejected')}) OR (${reopened})`)) !== undefined;
    },

    async finishPurchase(ref, owner, result) {
      const now = clock();
      // The lease holder's claim wrote the order and its facts: only the outcome changes. A skip (no
      // claim) may be the first write of the order, so it writes all of it.
      const e =
        owner !== null
          ? new Expression()
          : withEmptyBook(orderIdentity(store, ref, now).setFrom(result, PURCHASE_FACTS).setIfAbsent('attempts', 1));
      e.setAll(finishFields(store, result, now)).remove(...LEASE_FIELDS);
      if (result.inDoubt) e.setAll(inDoubtFields(result.inDoubt));
      else if (result.doubtSettled) e.remove(...DOUBT_FIELDS);
      // Credited (or ended otherwise) after all: no longer waiting for its customer to be linked.
      if (result.unlinked === undefined && result.provisional === undefined && !result.keepUnlinked) e.remove(...UNLINKED_FIELDS);
      if (result.provisional) e.setIfAbsent('refundsBeforeEarn', {});
      else e.remove('earning');
      // Credited at the moment on less than was paid: the exact base follows (none when not known exactly).
      if (result.earnedOn && result.earnedOn.exact === undefined) e.remove('eligibleExact');
      if (result.rejectedEvent === undefined) e.remove('rejectedEvent');
      const note = { ref, finish: { outcome: result.outcome, reason: result.reason } };
      return parseOrder(await store.update(keyOf(ref), e, finishCondition(e, owner, result, now), note));
    },

    async keepFoundMember(ref, owner, member) {
      const e = new Expression().set('updatedAt', iso(clock())).set('foundMember', member);
      return (await store.update(keyOf(ref), e, heldBy(e, owner), { ref })) !== undefined;
    },

    async releaseOrder(ref, owner, opts) {
      const e = new Expression().set('updatedAt', iso(clock())).set('lastError', capText(opts.lastError));
      if (opts.inDoubt) e.setAll(inDoubtFields(opts.inDoubt));
      else e.set('needsReconcile', opts.needsReconcile || undefined);
      if (!opts.keepLease) e.remove('leaseOwner', 'leaseUntil', 'leaseRefundId');
      if (opts.foundMember) e.set('foundMember', opts.foundMember);
      if (opts.refundId) {
        e.addToSet('refundIds', [opts.refundId]);
        if (opts.notDebited) e.deleteFromSet('refundsInDoubt', [opts.refundId]).deleteFromSet('refundsSent', [opts.refundId]);
        else if (opts.sent) e.addToSet('refundsSent', [opts.refundId]);
      }
      return (await store.update(keyOf(ref), e, heldBy(e, owner), { ref })) !== undefined;
    },
  };
}

/** The order as its refunds write it: the refunds waiting for the purchase, their lease and the book. */
function refundBookWrites(store: Store): RefundBookWrites {
  const { clock, leaseMs, iso } = store;
  return {
    async registerWaitingRefund(ref) {
      const now = clock();
      const e = orderBase(store, ref, now)
        .setIfAbsent('state', 'stub')
        .addToSet('waitingRefunds', [ref.refundId])
        .addToSet('refundIds', [ref.refundId]);
      // An order still awaiting its customer is not final either: the refund waits for the credit.
      return parseOrder(await store.update(keyOf(ref), e, purchaseNotFinal(e, now)));
    },

    async leaveUnlinkedIndex(ref) {
      const e = new Expression().set('updatedAt', iso(clock())).remove(...UNLINKED_FIELDS);
      const condition =
        `${e.path('state')} = ${e.value('done')} AND ${e.path('outcome')} <> ${e.value('customer_not_found')} AND ` +
        `attribute_not_exists(${e.path('waitingRefunds')}) AND attribute_not_exists(${e.path('leaseOwner')}) AND ` +
        `attribute_exists(${e.path('unlinkedCustomer')})`;
      return (await store.update(keyOf(ref), e, condition)) !== undefined;
    },

    async forgetWaitingRefund(ref) {
      const e = new Expression()
        .set('updatedAt', iso(clock()))
        .addToSet('refundIds', [ref.refundId])
        .deleteFromSet('waitingRefunds', [ref.refundId]);
      await store.update(keyOf(ref), e, exists(e));
    },

    async claimOrderForRefund(ref, owner) {
      const now = clock();
      const e = new Expression()
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .set('leaseRefundId', ref.refundId)
        .addToSet('refundsInDoubt', [ref.refundId])
        .set('updatedAt', iso(now));
      return store.claim(keyOf(ref), e, refundableBy(e, ref.refundId, now), OrderRecord.parse, { ref });
    },

    async applyRefund(ref, owner, input) {
      const now = clock();
      const e = new Expression()
        .set(['refunds', input.refundId], input.applied)
        .set('refundedSoFar', input.refundedSoFar)
        .set('debitTarget', input.debitTarget)
        .set('debited', input.debited)
        .set('pointsCredited', input.pointsCredited)
        .set('pointsExact', input.pointsCredited !== undefined ? true : undefined)
        .set('updatedAt', iso(now))
        .set('ttl', store.ttlFrom(now))
        .addToSet('refundIds', [input.refundId])
        .deleteFromSet('refundsInDoubt', [input.refundId, ...(input.notDebited ?? [])])
        .deleteFromSet('refundsSent', [input.refundId, ...(input.notDebited ?? [])]);
      if (typeof input.refundedExact === 'string') e.set('refundedExact', input.refundedExact);
      else if (input.refundedExact === null) e.remove('refundedExact');
      // Booked after every refund in doubt was found or proven not run: nothing of the order is in doubt.
      if (!input.keepLease) e.remove('leaseOwner', 'leaseUntil', 'leaseRefundId', 'lastError', ...DOUBT_FIELDS);
      const note = { ref: { ...ref, refundId: input.refundId } };
      return parseOrder(await store.update(keyOf(ref), e, `${heldBy(e, owner)} AND ${notBooked(e, input.refundId)}`, note));
    },

    async correctBookedDebit(ref, fix) {
      const e = new Expression()
        .set(['refunds', ref.refundId, 'debited'], fix.to)
        .increment('debited', fix.to - fix.from)
        .set('updatedAt', iso(clock()));
      const condition = `${e.path(['refunds', ref.refundId, 'debited'])} = ${e.value(fix.from)}`;
      return parseOrder(await store.update(keyOf(ref), e, condition, { ref }));
    },
  };
}

/** The order record: its purchase's writes and its book of refunds, on one item. */
export function createOrderRecords(store: Store): OrderRecords {
  return { ...purchaseWrites(store), ...refundBookWrites(store) };
}
