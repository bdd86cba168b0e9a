import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { indexKeys } from './index-keys.js';
import { doneWith, exists } from './conditions.js';
import { Expression } from './expression.js';
import { OrderRecord, type OrderRef, orderKey, unlinkedKey } from './records.js';
import type { Store } from './store.js';

/**
 * Provisional points (issue 53, the source's `earnAfter`): an order recorded `pending_earn` waits for its
 * moment (fulfilment, or a day). Two sparse entries of the byUnlinkedCustomer index find it: the order
 * itself under its customer (`earn#<source>#<key>#<id>`, for the storefront points page) and, for `days`,
 * a due entry (`earndue#<source>#<order>`, partition `earn-due`, sorted by the moment) for the ticker.
 */

/** Why a provisional order ended `not_earned` at its moment: its sale named no member then. */
export const NO_MEMBER = 'no_member';

/** The index partition of one source customer's provisional orders. */
export const pendingEarnKey = (source: string, externalKey: string, externalId: string) =>
  `earn#${unlinkedKey(source, externalKey, externalId)}`;
const DUE_PARTITION = 'earn-due';
const dueKey = (ref: OrderRef) => `earndue#${encodeURIComponent(ref.source)}#${encodeURIComponent(ref.orderId)}`;

/** A refund booked before the moment: it reduced the provisional amount (nothing was debited). */
export interface BeforeEarnRefund {
  refundId: string;
  /** Units it took (capped at what was left). */
  amount: number;
  /** The order's totals refunded before the moment, after it (exact: null when not known exactly). */
  refundedAfter: number;
  exactRefundedAfter: string | null;
  /** Nothing is left: the order will never earn (`not_earned`). */
  nothingLeft: boolean;
}

/** What a provisional order earns on after an edit of its sale (see `reviseProvisional`). */
export interface ProvisionalRevision {
  event: string;
  base: { amount: number; exact?: string };
  eligibleAmount: number;
  eligibleExact: string | undefined;
  /** The member's external key and id, and their index key (`pendingEarnKey`); undefined: the sale names nobody now. */
  member: { externalKey: string; externalId: string; customer: string } | undefined;
}

export interface ProvisionalRecords {
  /**
   * Books a refund before the moment on a `pending_earn` order, once (conditional on its id being absent):
   * the provisional amount shrinks by its share and the refund is listed as waiting for the credit (it
   * debits its share at the moment); nothing left, the order ends `not_earned` and leaves the customer's index. Undefined: the order is no longer pending (earned meanwhile) or the refund is booked.
   */
  bookBeforeEarn(ref: OrderRef, refund: BeforeEarnRefund): Promise<OrderRecord | undefined>;
  /** The due entry of an order earning `days` after payment (idempotent). */
  scheduleEarn(ref: OrderRef, earnAt: string): Promise<void>;
  /** Orders whose moment has come (due entries at or before `nowIso`), oldest first, at most `limit`. */
  listDueEarns(nowIso: string, limit: number): Promise<OrderRef[]>;
  /** Takes the order's due entry out of the index (it is earned, or will never be). */
  dropDueEarn(ref: OrderRef): Promise<void>;
  /**
   * Notes a shipped share's amount on a provisional order (idempotent). Undefined: the order is no longer
   * `pending_earn` (earned, or it never will be): the share earns nothing then.
   */
  addShippedShare(ref: OrderRef, amount: number): Promise<OrderRecord | undefined>;
  /**
   * Replaces what a provisional order will earn on, for a sender that tells the sale's current state
   * (Smaregi: an edit before the day, `reviseProvisional` in shared/points/provisional.ts): its event, amount,
   * member and the member's index key. Only while it is `pending_earn` and untouched by refunds (their
   * shares were booked on the amount as it was): undefined otherwise, and nothing written.
   */
  reviseProvisional(ref: OrderRef, revision: ProvisionalRevision): Promise<OrderRecord | undefined>;
  /**
   * Ends a `pending_earn` order at its moment with nothing earned because its sale names nobody then (a
   * member taken off it, never put back): `not_earned` / `no_member`, a final outcome an operator can see.
   * `awaitingCustomerUntil`: until then a delivery naming a member re-opens it for its credit (the sender's
   * window for a member attached late). Undefined: the order is no longer `pending_earn` (nothing written).
   */
  endWithoutMember(ref: OrderRef, awaitingCustomerUntil: number | undefined): Promise<OrderRecord | undefined>;
  /** One source customer's provisional orders (read consistently, still `pending_earn` or being earned). */
  listPendingEarns(source: string, externalKey: string, externalId: string): Promise<OrderRecord[]>;
}

export function createProvisionalRecords(store: Store, client: DynamoDBDocumentClient, tableName: string): ProvisionalRecords {
  const { clock, iso } = store;
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;

  const query = (partition: string, upTo: string | undefined, limit: number) =>
    indexKeys(client, tableName, partition, { until: upTo, limit });

  return {
    async bookBeforeEarn(ref, refund) {
      const now = clock();
      const e = new Expression()
        .set(['refundsBeforeEarn', refund.refundId], { amount: refund.amount, at: iso(now) })
        .set('earnRefunded', refund.refundedAfter)
        .set('updatedAt', iso(now))
        .addToSet('refundIds', [refund.refundId]);
      // Listed as waiting for the credit: at the moment it debits its share of what was earned, as a refund
      // after the moment would (order-independent). Nothing left: it never earns, nothing is debited.
      if (!refund.nothingLeft) e.addToSet('waitingRefunds', [refund.refundId]);
      if (refund.exactRefundedAfter !== null) e.set('earnRefundedExact', refund.exactRefundedAfter);
      else e.remove('earnRefundedExact');
      if (refund.nothingLeft) {
        e.set('outcome', 'not_earned').remove('unlinkedCustomer', 'purchasedAt', 'purchaseEvent');
      }
      // Never ended over a credit in doubt (shared/points/inherited-doubt.ts): that refund waits for it first.
      const undoubted = refund.nothingLeft ? ` AND attribute_not_exists(${e.path('needsReconcile')})` : '';
      const condition = `${doneWith(e, 'pending_earn')} AND attribute_not_exists(${e.path(['refundsBeforeEarn', refund.refundId])})${undoubted}`;
      const item = await store.update(orderKey(ref.source, ref.orderId), e, condition, { ref: { ...ref, refundId: refund.refundId } });
      return item ? OrderRecord.parse(item) : undefined;
    },

    async addShippedShare(ref, amount) {
      const e = new Expression().addToSet('shippedShares', [String(amount)]).set('updatedAt', iso(clock()));
      const item = await store.update(orderKey(ref.source, ref.orderId), e, doneWith(e, 'pending_earn'), { ref });
      return item ? OrderRecord.parse(item) : undefined;
    },

    async scheduleEarn(ref, earnAt) {
      const e = new Expression()
        .set('kind', 'earn-due')
        .set('source', ref.source)
        .set('orderId', ref.orderId)
        .set(index.partitionKey, DUE_PARTITION)
        .set(index.sortKey, earnAt)
        .set('updatedAt', iso(clock()));
      await store.update(dueKey(ref), e, `attribute_not_exists(${e.path('pk')}) OR attribute_exists(${e.path(index.partitionKey)})`);
    },

    async listDueEarns(nowIso, limit) {
      const refs: OrderRef[] = [];
      for (const pk of await query(DUE_PARTITION, nowIso, limit)) {
        const match = /^earndue#([^#]+)#([^#]+)$/.exec(pk);
        if (match?.[1] && match[2]) refs.push({ source: decodeURIComponent(match[1]), orderId: decodeURIComponent(match[2]) });
      }
      return refs;
    },

    async dropDueEarn(ref) {
      const now = clock();
      // Kept a while as the trace of the schedule, out of the index (no DeleteItem right needed).
      const e = new Expression().set('updatedAt', iso(now)).set('ttl', store.ttlFrom(now)).remove(index.partitionKey, index.sortKey);
      await store.update(dueKey(ref), e, exists(e));
    },

    async reviseProvisional(ref, revision) {
      const e = new Expression()
        .set('purchaseEvent', revision.event)
        .set('earnBase', revision.base)
        .set('eligibleAmount', revision.eligibleAmount)
        .set('updatedAt', iso(clock()));
      const { member } = revision;
      if (member) e.set('externalKey', member.externalKey).set('externalId', member.externalId).set('unlinkedCustomer', member.customer);
      else e.remove('externalKey', 'externalId', 'unlinkedCustomer');
      if (revision.eligibleExact !== undefined) e.set('eligibleExact', revision.eligibleExact);
      else e.remove('eligibleExact');
      // A refund booked before the day took its share of the amount as it was: the revision would shift it.
      const condition = `${doneWith(e, 'pending_earn')} AND attribute_not_exists(${e.path('earning')}) AND (attribute_not_exists(${e.path('earnRefunded')}) OR ${e.path('earnRefunded')} = ${e.value(0)})`;
      const item = await store.update(orderKey(ref.source, ref.orderId), e, condition, { ref });
      return item ? OrderRecord.parse(item) : undefined;
    },

    async endWithoutMember(ref, awaitingCustomerUntil) {
      const now = clock();
      const e = new Expression()
        .set('outcome', 'not_earned')
        .set('reason', NO_MEMBER)
        .set('finishedAt', iso(now))
        .set('updatedAt', iso(now))
        .remove('unlinkedCustomer', 'purchasedAt');
      if (awaitingCustomerUntil !== undefined) e.set('awaitingCustomerUntil', awaitingCustomerUntil);
      const condition = `${doneWith(e, 'pending_earn')} AND attribute_not_exists(${e.path('earning')})`;
      const item = await store.update(orderKey(ref.source, ref.orderId), e, condition, { ref });
      return item ? OrderRecord.parse(item) : undefined;
    },

    async listPendingEarns(source, externalKey, externalId) {
      const orders: OrderRecord[] = [];
      for (const pk of await query(pendingEarnKey(source, externalKey, externalId), undefined, 100)) {
        const item = await store.get(pk);
        // The index is eventually consistent: the order's own record says whether it is still provisional.
        const order = item ? OrderRecord.parse(item) : undefined;
        if (order && (order.outcome === 'pending_earn' || order.earning) && order.unlinkedCustomer) orders.push(order);
      }
      return orders;
    },
  };
}
