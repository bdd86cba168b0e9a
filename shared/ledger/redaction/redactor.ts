import type { CustomerRef } from '../customers.js';
import type { SourceCustomer } from '../link-marks.js';
import type { OrderRecord, RefundRecord } from '../records.js';
import type { TillReturnRecord, TillSaleRecord } from '../till-returns.js';
import {
  type CustomerRecordKey,
  deleteCustomerRecord,
  deleteLinkMark,
  deleteScanned,
  scanCustomerRecords,
  scanLinkMarks,
} from './customers.js';
import type { RedactionTable } from './item.js';
import {
  type OrderRedaction,
  orderIdentifies,
  orderShopDomain,
  readOrder,
  redactOrder,
  redactRefundRecord,
  refundCustomerId,
  scanOrders,
  scanRefundsOf,
} from './orders.js';
import { type RedemptionRedaction, redactCustomerRedemptions, redactShopRedemptions } from './redemptions.js';
import { redactTillReturn, redactTillSale, scanTillReturnsOf, scanTillSalesOf } from './till-returns.js';

/**
 * The ledger's records as a privacy request (shared/privacy) redacts them: each kind of record says
 * here what of it identifies the shop customer and how that is removed (orders.ts, customers.ts,
 * redemptions.ts, till-returns.ts); privacy decides which records a request concerns.
 */
export interface LedgerRedactor {
  readOrder(source: string, orderId: string): Promise<OrderRecord | undefined>;
  /** The source's readable order records (a scan: a shop's redaction). */
  scanOrders(source: string): AsyncGenerator<OrderRecord>;
  /** Whether an order still holds what a redaction removes (a second pass skips the done ones). */
  orderIdentifies(order: OrderRecord): boolean;
  /** The shop an order was made in, as its record or its stored purchase event says; undefined: unknown. */
  orderShopDomain(order: OrderRecord): string | undefined;
  /** Its refunds' customer reference, then its own personal attributes; what a live lease holds is left (busy). */
  redactOrder(order: OrderRecord): Promise<OrderRedaction>;
  /** The refund records of one order id (a scan: a source's unlinked returns have no order listing them). */
  scanRefundsOf(source: string, orderId: string): AsyncGenerator<RefundRecord>;
  /** The customer a refund's stored event names, if any. */
  refundCustomerId(refund: RefundRecord): string | undefined;
  /** Removes the customer reference of a refund's stored event; 'busy' under a live lease. */
  redactRefund(refund: RefundRecord): Promise<boolean | 'busy'>;
  /** Deletes the customer record (its key names the customer); whether there was one. */
  deleteCustomerRecord(ref: CustomerRef): Promise<boolean>;
  /** Deletes the mark a recent link of the customer left. */
  deleteLinkMark(customer: SourceCustomer): Promise<boolean>;
  scanCustomerRecords(source: string): AsyncGenerator<CustomerRecordKey>;
  scanLinkMarks(source: string): AsyncGenerator<{ pk: string }>;
  /** Deletes a customer record or link mark one of the scans found. */
  deleteScanned(record: { pk: string }): Promise<boolean>;
  /** Moves the customer's redemptions of `source` to keys naming no customer. */
  redactCustomerRedemptions(input: { source: string; customerId: string }): Promise<RedemptionRedaction>;
  /** The same for the redemptions made in a shop (`unattributed`: also those naming no shop). */
  redactShopRedemptions(input: { source: string; shopDomain: string; unattributed: boolean }): Promise<RedemptionRedaction>;
  /** The source's till returns and till sales naming an in-store member's code (scans). */
  scanTillReturnsOf(source: string, code: string): AsyncGenerator<TillReturnRecord>;
  scanTillSalesOf(source: string, code: string): AsyncGenerator<TillSaleRecord>;
  /** The member out of a till return (an open one dismissed: `privacy-erase`); false when it is gone. */
  redactTillReturn(r: Pick<TillReturnRecord, 'pk' | 'status'>): Promise<boolean>;
  /** The member and the index keys out of a till sale (no return is matched with it again); false when it is gone. */
  redactTillSale(sale: Pick<TillSaleRecord, 'pk'>): Promise<boolean>;
}

export function createLedgerRedactor(table: RedactionTable): LedgerRedactor {
  return {
    readOrder: (source, orderId) => readOrder(table, source, orderId),
    scanOrders: (source) => scanOrders(table, source),
    orderIdentifies,
    orderShopDomain,
    redactOrder: (order) => redactOrder(table, order),
    scanRefundsOf: (source, orderId) => scanRefundsOf(table, source, orderId),
    refundCustomerId,
    redactRefund: (refund) => redactRefundRecord(table, refund),
    deleteCustomerRecord: (ref) => deleteCustomerRecord(table, ref),
    deleteLinkMark: (customer) => deleteLinkMark(table, customer),
    scanCustomerRecords: (source) => scanCustomerRecords(table, source),
    scanLinkMarks: (source) => scanLinkMarks(table, source),
    deleteScanned: (record) => deleteScanned(table, record),
    redactCustomerRedemptions: (input) => redactCustomerRedemptions(table, input),
    redactShopRedemptions: (input) => redactShopRedemptions(table, input),
    scanTillReturnsOf: (source, code) => scanTillReturnsOf(table, source, code),
    scanTillSalesOf: (source, code) => scanTillSalesOf(table, source, code),
    redactTillReturn: (r) => redactTillReturn(table, r),
    redactTillSale: (sale) => redactTillSale(table, sale),
  };
}

export type { CustomerRecordKey, OrderRedaction, RedactionTable, RedemptionRedaction };
