import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { type OrderRef, unlinkedKey } from './records.js';
import { QueryCommand } from '../dynamodb/index.js';

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
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const refs: OrderRef[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: '#c = :c AND #at >= :since',
        ExpressionAttributeNames: { '#c': index.partitionKey, '#at': index.sortKey },
        ExpressionAttributeValues: { ':c': unlinkedKey(query.source, query.externalKey, query.externalId), ':since': query.since },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const ref = orderRefOf(String(item[LEDGER_TABLE_SCHEMA.partitionKey] ?? ''));
      if (ref) refs.push(ref);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return refs;
}

/** `order#<source>#<orderId>` back to its parts (both escaped in the key). */
function orderRefOf(pk: string): OrderRef | undefined {
  const match = /^order#([^#]+)#([^#]+)$/.exec(pk);
  if (!match?.[1] || !match[2]) return undefined;
  return { source: decodeURIComponent(match[1]), orderId: decodeURIComponent(match[2]) };
}
