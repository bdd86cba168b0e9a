import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { QueryCommand } from '../dynamodb/index.js';

/** Which of a partition's entries: the sort key from and until (inclusive; either left open), at most `limit`. */
export interface IndexRange {
  from?: string | undefined;
  until?: string | undefined;
  limit?: number | undefined;
}

/**
 * The ledger keys in one partition of the table's sparse index, in sort-key order, every page read (or
 * until `limit`). The index holds keys only and is eventually consistent: callers read each item before
 * acting on it.
 */
export async function indexKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  range: IndexRange = {},
): Promise<string[]> {
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const { from, until, limit = Number.POSITIVE_INFINITY } = range;
  const sort =
    from !== undefined && until !== undefined
      ? ' AND #at BETWEEN :from AND :until'
      : until !== undefined
        ? ' AND #at <= :until'
        : from !== undefined
          ? ' AND #at >= :from'
          : '';
  const pks: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: `#c = :c${sort}`,
        ExpressionAttributeNames: { '#c': index.partitionKey, ...(sort ? { '#at': index.sortKey } : {}) },
        ExpressionAttributeValues: {
          ':c': partition,
          ...(from === undefined ? {} : { ':from': from }),
          ...(until === undefined ? {} : { ':until': until }),
        },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) pks.push(String(item[LEDGER_TABLE_SCHEMA.partitionKey] ?? ''));
    start = pks.length < limit ? page.LastEvaluatedKey : undefined;
  } while (start);
  return pks.slice(0, limit);
}
