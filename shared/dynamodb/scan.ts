import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from './sdk.js';

/**
 * The items whose partition key starts with `prefix`, page by page: a Scan of the whole table with a
 * filter (the table has no index by prefix), for rare whole-table work: a shop's redaction, the
 * operator's list of privacy requests.
 */
export async function* scanKeyPrefix(
  client: Pick<DynamoDBDocumentClient, 'send'>,
  tableName: string,
  prefix: string,
  options: { consistentRead?: boolean } = {},
): AsyncGenerator<Record<string, unknown>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': prefix },
        ...(options.consistentRead ? { ConsistentRead: true } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) yield item;
    start = page.LastEvaluatedKey;
  } while (start);
}
