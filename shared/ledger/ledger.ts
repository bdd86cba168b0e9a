import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type BonusRecords, createBonusRecords } from './bonuses.js';
import { type CustomerRef, isCustomerRedacted } from './customers.js';
import { createLinkMarks, type LinkMarks } from './link-marks.js';
import { createOrderRecords, type OrderRecords } from './orders.js';
import { createProvisionalRecords, type ProvisionalRecords } from './provisional.js';
import type { OrderRef, RefundRecord } from './records.js';
import { createRefundRecords, type RefundRecords } from './refunds.js';
import { type Clock, createStore, type LedgerActivity } from './store.js';
import { listUnlinkedOrders, type UnlinkedQuery } from './unlinked.js';

export type { ApplyRefundInput, PurchaseClaimInput, PurchaseResult, ReleaseOrderOptions } from './orders.js';
export type { OrderRef, RefundRef } from './records.js';
export type { RefundResult } from './refunds.js';
export type { Claim, Clock, LedgerActivity, WriteNote } from './store.js';
export type { UnlinkedQuery } from './unlinked.js';
export type { SourceCustomer } from './link-marks.js';
export type { BeforeEarnRefund } from './provisional.js';

export interface LedgerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  /** Days a finished record is kept (DynamoDB TTL). Default 400, so late refunds still find their order. */
  ttlDays?: number;
  /** Lease length in seconds. Default 120. */
  leaseSeconds?: number;
  /** The activity record, carried by the ledger's own writes (store.ts). */
  activity?: LedgerActivity;
}

/**
 * The processing ledger, one DynamoDB item per order and per refund: leases, outcomes and the book of
 * refunds each order's debits are computed from; and a day's mark per customer being linked (link-marks.ts). Every write is one conditional put or update (no transactions).
 */
export interface Ledger extends OrderRecords, RefundRecords, LinkMarks, BonusRecords, ProvisionalRecords {
  readonly leaseMs: number;
  /** Every refund record of the order (ids are kept on the order record; the table has no sort key). */
  listRefunds(ref: OrderRef): Promise<RefundRecord[]>;
  /** A source customer's orders that ended `customer_not_found` (to credit once the customer is linked). */
  listUnlinkedOrders(query: UnlinkedQuery): Promise<OrderRef[]>;
  /**
   * Whether a privacy erasure left its tombstone for this source customer (a Shopify customers/redact, a
   * Smaregi member's erase): what names them then earns, spends and records nothing of them.
   */
  isRedacted(ref: CustomerRef): Promise<boolean>;
}

export function createLedger(options: LedgerOptions): Ledger {
  const leaseMs = (options.leaseSeconds ?? 120) * 1000;
  const store = createStore({ ...options, ttlDays: options.ttlDays ?? 400, leaseMs });
  const orders = createOrderRecords(store);
  const refunds = createRefundRecords(store);
  return {
    leaseMs,
    ...orders,
    ...refunds,
    ...createLinkMarks(store),
    ...createBonusRecords(store),
    ...createProvisionalRecords(store, options.client, options.tableName),
    listUnlinkedOrders: (query) => listUnlinkedOrders(options.client, options.tableName, query),
    isRedacted: (ref) => isCustomerRedacted(options.client, options.tableName, ref),
    async listRefunds(ref) {
      const order = await orders.getOrder(ref);
      if (!order) return [];
      const records = await Promise.all(order.refundIds.map((refundId) => refunds.getRefund({ ...ref, refundId })));
      return records.filter((r): r is RefundRecord => r !== undefined);
    },
  };
}
