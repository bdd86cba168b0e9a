import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, GetCommand, UpdateCommand } from './sdk.js';
import { Expression } from './expression.js';
import { capText } from '../text/index.js';
import {
  AppliedRefund,
  OrderOutcome,
  OrderRecord,
  RefundOutcome,
  RefundRecord,
  orderKey,
  refundKey,
} from './records.js';

/** Epoch milliseconds now. Injected so tests move leases without sleeping. */
export type Clock = () => number;

export interface LedgerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  /** Days a finished record is kept (DynamoDB TTL). Default 400, so late refunds still find their order. */
  ttlDays?: number;
  /** Lease length in seconds. Default 120. */
  leaseSeconds?: number;
}

/** A claim either got the lease (with the record as it was before) or did not (with the record as it is). */
export type Claim<T> = { ok: true; previous: T | undefined } | { ok: false; current: T | undefined };

export interface OrderRef {
  source: string;
  orderId: string;
}
export interface RefundRef extends OrderRef {
  refundId: string;
}

export interface PurchaseClaimInput extends OrderRef {
  owner: string;
  eligibleAmount: number;
  eligibleExact?: string | undefined;
  currency: string;
  externalKey?: string;
  externalId?: string;
}

export interface PurchaseResult {
  outcome: OrderOutcome;
  reason?: string;
  customerId?: string;
  pointsHint?: number;
  /** Known only when the credit was found in the point history. */
  pointsCredited?: number;
  reconciled?: boolean;
  eligibleAmount?: number;
  eligibleExact?: string | undefined;
  currency?: string;
  externalKey?: string;
  externalId?: string;
  /** Skips only: the order may be re-opened by a delivery naming the customer until then (epoch ms). */
  awaitingCustomerUntil?: number;
}

export interface RefundResult {
  state: 'done' | 'parked';
  outcome: RefundOutcome;
  reason?: string;
  customerId?: string;
  pointsDebited?: number;
  debitTarget?: number;
  shortfall?: number;
  reconciled?: boolean;
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

export interface Ledger {
  readonly leaseMs: number;
  getOrder(ref: OrderRef): Promise<OrderRecord | undefined>;
  getRefund(ref: RefundRef): Promise<RefundRecord | undefined>;
  /** Every refund record of the order (ids are kept on the order record; the table has no sort key). */
  listRefunds(ref: OrderRef): Promise<RefundRecord[]>;

  /** Lease on the order for its purchase: absent, a refund's stub, or pending with a free lease. */
  claimPurchase(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Lease on an order skipped for want of a customer while it still awaits one (`awaitingCustomerUntil`
   * not passed): the skip is undone and the purchase proceeds as if first claimed. Once only: the
   * next outcome is final.
   */
  reopenPurchase(input: PurchaseClaimInput): Promise<Claim<OrderRecord>>;
  /**
   * Ends the purchase. owner: the lease holder; null: no claim was needed (skips), then the order must
   * not be done nor leased. Undefined when the condition failed (lease lost, or already done).
   */
  finishPurchase(ref: OrderRef, owner: string | null, result: PurchaseResult): Promise<OrderRecord | undefined>;
  /** Ends an attempt without a result. keepLease: the call's outcome is unknown, let the lease run out. */
  releaseOrder(
    ref: OrderRef,
    owner: string,
    opts: {
      lastError: string;
      needsReconcile?: boolean;
      keepLease?: boolean;
      /** The refund that held the lease. */
      refundId?: string;
      /** Its debit is proven not to have run: no longer in doubt. */
      notDebited?: boolean;
    },
  ): Promise<boolean>;

  /** Dedup and lease for one refund: absent, or not done with a free lease. */
  claimRefund(ref: RefundRef, owner: string, eventJson: string): Promise<Claim<RefundRecord>>;
  finishRefund(ref: RefundRef, owner: string, result: RefundResult): Promise<RefundRecord | undefined>;
  releaseRefund(
    ref: RefundRef,
    owner: string,
    opts: { lastError: string; state: 'pending' | 'waiting' },
  ): Promise<boolean>;
  /** Notes on the order (creating a stub) that a refund waits for the purchase. Undefined: already done. */
  registerWaitingRefund(ref: RefundRef): Promise<OrderRecord | undefined>;
  forgetWaitingRefund(ref: RefundRef): Promise<void>;
  /** Lease on a credited order for one refund that is not yet applied to it. */
  claimOrderForRefund(ref: RefundRef, owner: string): Promise<Claim<OrderRecord>>;
  /**
   * Books a refund's debit on the order, once (conditional on the refund id not being there). A refund
   * waiting for the purchase stays listed: the caller forgets it once its record is finished.
   */
  applyRefund(ref: OrderRef, owner: string, input: ApplyRefundInput): Promise<OrderRecord | undefined>;
}

const DAY_MS = 86_400_000;

export function createLedger(options: LedgerOptions): Ledger {
  const { client, tableName, clock } = options;
  const ttlDays = options.ttlDays ?? 400;
  const leaseMs = (options.leaseSeconds ?? 120) * 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const ttlFrom = (ms: number) => Math.floor((ms + ttlDays * DAY_MS) / 1000);

  async function get(pk: string): Promise<Record<string, unknown> | undefined> {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }));
    return out.Item;
  }

  /** One conditional UpdateItem; undefined when the condition failed. */
  async function conditionalUpdate(
    pk: string,
    e: Expression,
    condition: string,
    returnValues: 'ALL_OLD' | 'ALL_NEW',
  ): Promise<{ attributes: Record<string, unknown> | undefined } | undefined> {
    try {
      const out = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ExpressionAttributeNames: e.names,
          ExpressionAttributeValues: Object.keys(e.values).length ? e.values : undefined,
          ReturnValues: returnValues,
        }),
      );
      return { attributes: out.Attributes };
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as { name?: string }).name === 'ConditionalCheckFailedException') {
        return undefined;
      }
      throw err;
    }
  }

  const parseOrder = (item: Record<string, unknown> | undefined) => (item ? OrderRecord.parse(item) : undefined);
  const parseRefund = (item: Record<string, unknown> | undefined) => (item ? RefundRecord.parse(item) : undefined);

  const orderBase = (e: Expression, ref: OrderRef, now: number) =>
    e
      .set('kind', 'order')
      .set('source', ref.source)
      .set('orderId', ref.orderId)
      .setIfAbsent('createdAt', iso(now))
      .set('updatedAt', iso(now));

  async function getOrder(ref: OrderRef) {
    return parseOrder(await get(orderKey(ref.source, ref.orderId)));
  }
  async function getRefund(ref: RefundRef) {
    return parseRefund(await get(refundKey(ref.source, ref.orderId, ref.refundId)));
  }

  return {
    leaseMs,
    getOrder,
    getRefund,

    async listRefunds(ref) {
      const order = await getOrder(ref);
      if (!order) return [];
      const records = await Promise.all(order.refundIds.map((refundId) => getRefund({ ...ref, refundId })));
      return records.filter((r): r is RefundRecord => r !== undefined);
    },

    async claimPurchase(input) {
      const now = clock();
      const pk = orderKey(input.source, input.orderId);
      const e = orderBase(new Expression(), input, now)
        .set('state', 'pending')
        .set('leaseOwner', input.owner)
        .set('leaseUntil', now + leaseMs)
        .increment('attempts')
        .setIfAbsent('firstSeenAt', iso(now))
        .set('eligibleAmount', input.eligibleAmount)
        .set('eligibleExact', input.eligibleExact)
        .set('currency', input.currency)
        .set('externalKey', input.externalKey)
        .set('externalId', input.externalId)
        .remove('ttl');
      const condition = `attribute_not_exists(${e.path('pk')}) OR (${e.path('state')} <> ${e.value('done')} AND ${e.leaseFree(now)})`;
      const out = await conditionalUpdate(pk, e, condition, 'ALL_OLD');
      if (out) return { ok: true, previous: parseOrder(out.attributes) };
      return { ok: false, current: parseOrder(await get(pk)) };
    },

    async reopenPurchase(input) {
      const now = clock();
      const pk = orderKey(input.source, input.orderId);
      const e = orderBase(new Expression(), input, now)
        .set('state', 'pending')
        .set('leaseOwner', input.owner)
        .set('leaseUntil', now + leaseMs)
        .increment('attempts')
        .set('eligibleAmount', input.eligibleAmount)
        .set('currency', input.currency)
        .set('externalKey', input.externalKey)
        .set('externalId', input.externalId)
        .remove('outcome', 'reason', 'finishedAt', 'ttl', 'awaitingCustomerUntil');
      const condition =
        `${e.path('state')} = ${e.value('done')} AND ${e.path('outcome')} = ${e.value('skipped')}` +
        ` AND ${e.path('awaitingCustomerUntil')} >= ${e.value(now)}`;
      const out = await conditionalUpdate(pk, e, condition, 'ALL_OLD');
      if (out) return { ok: true, previous: parseOrder(out.attributes) };
      return { ok: false, current: parseOrder(await get(pk)) };
    },

    async finishPurchase(ref, owner, result) {
      const now = clock();
      const e = orderBase(new Expression(), ref, now)
        .set('state', 'done')
        .set('outcome', result.outcome)
        .set('reason', result.reason === undefined ? undefined : capText(result.reason))
        .set('customerId', result.customerId)
        .set('pointsHint', result.pointsHint)
        .set('pointsCredited', result.pointsCredited)
        .set('pointsExact', result.pointsCredited !== undefined ? true : undefined)
        .set('reconciled', result.reconciled)
        .set('eligibleAmount', result.eligibleAmount)
        .set('eligibleExact', result.eligibleExact)
        .set('currency', result.currency)
        .set('externalKey', result.externalKey)
        .set('externalId', result.externalId)
        .set('awaitingCustomerUntil', result.awaitingCustomerUntil)
        .setIfAbsent('firstSeenAt', iso(now))
        .setIfAbsent('attempts', 1)
        .setIfAbsent('refundedSoFar', 0)
        .setIfAbsent('debitTarget', 0)
        .setIfAbsent('debited', 0)
        .setIfAbsent('refunds', {})
        .set('finishedAt', iso(now))
        .set('ttl', ttlFrom(now))
        .remove('leaseOwner', 'leaseUntil', 'leaseRefundId', 'needsReconcile', 'lastError');
      const condition =
        owner === null
          ? result.awaitingCustomerUntil !== undefined
            ? // A pending order was claimed by a delivery naming the customer: it must not be overwritten.
              `attribute_not_exists(${e.path('pk')}) OR ${e.path('state')} = ${e.value('stub')}`
            : `attribute_not_exists(${e.path('pk')}) OR (${e.path('state')} <> ${e.value('done')} AND ${e.leaseFree(now)})`
          : e.heldBy(owner);
      const out = await conditionalUpdate(orderKey(ref.source, ref.orderId), e, condition, 'ALL_NEW');
      return out ? parseOrder(out.attributes) : undefined;
    },

    async releaseOrder(ref, owner, opts) {
      const now = clock();
      const e = new Expression()
        .set('updatedAt', iso(now))
        .set('lastError', capText(opts.lastError))
        .set('needsReconcile', opts.needsReconcile || undefined);
      if (!opts.keepLease) e.remove('leaseOwner', 'leaseUntil', 'leaseRefundId');
      if (opts.refundId) {
        e.addToSet('refundIds', [opts.refundId]);
        if (opts.notDebited) e.deleteFromSet('refundsInDoubt', [opts.refundId]);
      }
      return (await conditionalUpdate(orderKey(ref.source, ref.orderId), e, e.heldBy(owner), 'ALL_NEW')) !== undefined;
    },

    async claimRefund(ref, owner, eventJson) {
      const now = clock();
      const pk = refundKey(ref.source, ref.orderId, ref.refundId);
      const e = new Expression()
        .set('kind', 'refund')
        .set('source', ref.source)
        .set('orderId', ref.orderId)
        .set('refundId', ref.refundId)
        .set('state', 'pending')
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .increment('attempts')
        .setIfAbsent('event', eventJson)
        .setIfAbsent('firstSeenAt', iso(now))
        .setIfAbsent('createdAt', iso(now))
        .set('updatedAt', iso(now))
        .remove('ttl');
      const condition = `attribute_not_exists(${e.path('pk')}) OR (${e.path('state')} <> ${e.value('done')} AND ${e.leaseFree(now)})`;
      const out = await conditionalUpdate(pk, e, condition, 'ALL_OLD');
      if (out) return { ok: true, previous: parseRefund(out.attributes) };
      return { ok: false, current: parseRefund(await get(pk)) };
    },

    async finishRefund(ref, owner, result) {
      const now = clock();
      const e = new Expression()
        .set('state', result.state)
        .set('outcome', result.outcome)
        .set('reason', result.reason === undefined ? undefined : capText(result.reason))
        .set('customerId', result.customerId)
        .set('pointsDebited', result.pointsDebited)
        .set('debitTarget', result.debitTarget)
        .set('shortfall', result.shortfall)
        .set('reconciled', result.reconciled)
        .set('updatedAt', iso(now))
        .set('finishedAt', iso(now))
        .set('ttl', ttlFrom(now))
        .remove('leaseOwner', 'leaseUntil', 'lastError');
      const out = await conditionalUpdate(refundKey(ref.source, ref.orderId, ref.refundId), e, e.heldBy(owner), 'ALL_NEW');
      return out ? parseRefund(out.attributes) : undefined;
    },

    async releaseRefund(ref, owner, opts) {
      const now = clock();
      const e = new Expression()
        .set('state', opts.state)
        .set('lastError', capText(opts.lastError))
        .set('updatedAt', iso(now))
        .remove('leaseOwner', 'leaseUntil');
      const pk = refundKey(ref.source, ref.orderId, ref.refundId);
      return (await conditionalUpdate(pk, e, e.heldBy(owner), 'ALL_NEW')) !== undefined;
    },

    async registerWaitingRefund(ref) {
      const now = clock();
      const e = orderBase(new Expression(), ref, now)
        .setIfAbsent('state', 'stub')
        .setIfAbsent('firstSeenAt', iso(now))
        .addToSet('waitingRefunds', [ref.refundId])
        .addToSet('refundIds', [ref.refundId]);
      // An order still awaiting its customer is not final either: the refund waits for the credit.
      const condition =
        `attribute_not_exists(${e.path('pk')}) OR ${e.path('state')} <> ${e.value('done')}` +
        ` OR ${e.path('awaitingCustomerUntil')} >= ${e.value(now)}`;
      const out = await conditionalUpdate(orderKey(ref.source, ref.orderId), e, condition, 'ALL_NEW');
      return out ? parseOrder(out.attributes) : undefined;
    },

    async forgetWaitingRefund(ref) {
      const now = clock();
      const e = new Expression()
        .set('updatedAt', iso(now))
        .addToSet('refundIds', [ref.refundId])
        .deleteFromSet('waitingRefunds', [ref.refundId]);
      await conditionalUpdate(orderKey(ref.source, ref.orderId), e, `attribute_exists(${e.path('pk')})`, 'ALL_NEW');
    },

    async claimOrderForRefund(ref, owner) {
      const now = clock();
      const pk = orderKey(ref.source, ref.orderId);
      const e = new Expression()
        .set('leaseOwner', owner)
        .set('leaseUntil', now + leaseMs)
        .set('leaseRefundId', ref.refundId)
        .addToSet('refundsInDoubt', [ref.refundId])
        .set('updatedAt', iso(now));
      const condition =
        `${e.path('state')} = ${e.value('done')} AND ${e.path('outcome')} = ${e.value('credited')}` +
        ` AND ${e.leaseFree(now)} AND attribute_not_exists(${e.path(['refunds', ref.refundId])})`;
      const out = await conditionalUpdate(pk, e, condition, 'ALL_OLD');
      if (out) return { ok: true, previous: parseOrder(out.attributes) };
      return { ok: false, current: parseOrder(await get(pk)) };
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
        .set('ttl', ttlFrom(now))
        .addToSet('refundIds', [input.refundId])
        .deleteFromSet('refundsInDoubt', [input.refundId, ...(input.notDebited ?? [])]);
      if (typeof input.refundedExact === 'string') e.set('refundedExact', input.refundedExact);
      else if (input.refundedExact === null) e.remove('refundedExact');
      if (!input.keepLease) e.remove('leaseOwner', 'leaseUntil', 'leaseRefundId', 'lastError', 'needsReconcile');
      const condition = `${e.heldBy(owner)} AND attribute_not_exists(${e.path(['refunds', input.refundId])})`;
      const out = await conditionalUpdate(orderKey(ref.source, ref.orderId), e, condition, 'ALL_NEW');
      return out ? parseOrder(out.attributes) : undefined;
    },
  };
}
