import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type OrderRef, unlinkedKey } from './records.js';
import { indexKeys } from './index-keys.js';

/** One source customer's orders that ended `customer_not_found` since a time. */
export interface UnlinkedQuery {
  source: string;
  externalKey: string;
  externalId: string;
  /** ISO 8601: purchases at or after it. */
  since: string;
}

/**
 * The orders of one source customer that found no member, oldest first, from the sparse
 * byUnlinkedCustomer index (keys only: the caller reads each order consistently before acting, since
 * an index is eventually consistent and the order's own conditional writes decide).
 */
export async function listUnlinkedOrders(client: DynamoDBDocumentClient, tableName: string, query: UnlinkedQuery): Promise<OrderRef[]> {
  const pks = await indexKeys(client, tableName, unlinkedKey(query.source, query.externalKey, query.externalId), { from: query.since });
  return pks.flatMap((pk) => orderRefOf(pk) ?? []);
}

/** `order#<source>#<orderId>` back to its parts (both escaped in the key). */
function orderRefOf(pk: string): OrderRef | undefined {
  const match = /^order#([^#]+)#([^#]+)$/.exec(pk);
  if (!match?.[1] || !match[2]) return undefined;
  return { source: decodeURIComponent(match[1]), orderId: decodeURIComponent(match[2]) };
}
