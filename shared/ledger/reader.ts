import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '../dynamodb/index.js';
import { type OrderRecord, type OrderRef, type RefundRecord, type RefundRef, readOrder, readRefund } from './records.js';

/** The ledger's orders and refunds read, nothing written: what a reconcile compares its sender's list with. */
export interface LedgerReader {
  getOrder(ref: OrderRef): Promise<OrderRecord | undefined>;
  getRefund(ref: RefundRef): Promise<RefundRecord | undefined>;
}

/**
 * Reads the same items, with the same consistent reads and schemas, as the ledger's own getOrder/getRefund; a
 * function of its own so a reader's bundle carries none of the claim and booking writes.
 */
export function createLedgerReader(table: { client: Pick<DynamoDBDocumentClient, 'send'>; tableName: string }): LedgerReader {
  const get = async (pk: string) =>
    (await table.client.send(new GetCommand({ TableName: table.tableName, Key: { pk }, ConsistentRead: true }))).Item;
  return { getOrder: (ref) => readOrder(get, ref), getRefund: (ref) => readRefund(get, ref) };
}
