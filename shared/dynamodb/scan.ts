import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from './sdk.js';

/** A scan's further condition, its names and values (`:prefix` is taken). */
export interface ScanFilter {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * The items whose partition key starts with `prefix`, page by page: a Scan of the whole table with a
 * filter (the table has no index by prefix), for rare whole-table work: a shop's redaction, the
 * operator's list of privacy requests.
 */
export async function* scanKeyPrefix(
  client: Pick<DynamoDBDocumentClient, 'send'>,
  tableName: string,
  prefix: string,
  /** `filter`: a further condition the items must meet (DynamoDB applies it before answering: fewer items sent back and parsed). */
  options: { consistentRead?: boolean; filter?: ScanFilter } = {},
): AsyncGenerator<Record<string, unknown>> {
  const filter = options.filter;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: filter ? `begins_with(pk, :prefix) AND (${filter.expression})` : 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': prefix, ...filter?.values },
        ...(filter?.names ? { ExpressionAttributeNames: filter.names } : {}),
        ...(options.consistentRead ? { ConsistentRead: true } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) yield item;
    start = page.LastEvaluatedKey;
  } while (start);
}
