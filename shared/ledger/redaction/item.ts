import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, isConditionFailure, UpdateCommand } from '../../dynamodb/index.js';

/** The ledger table as a privacy redaction writes it. */
export interface RedactionTable {
  client: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  clock: () => number;
}

/**
 * Removes `remove` and sets `set` on an item no live lease holds (stamping `redactedAt`); false when one
 * does (being processed: the caller retries) or the item is gone.
 */
export async function redactItem(
  table: RedactionTable,
  pk: string,
  remove: readonly string[],
  set: Record<string, string>,
): Promise<boolean> {
  const now = table.clock();
  const names: Record<string, string> = { '#owner': 'leaseOwner', '#until': 'leaseUntil' };
  const values: Record<string, unknown> = { ':at': new Date(now).toISOString(), ':now': now };
  const sets = ['redactedAt = :at'];
  remove.forEach((attr, i) => {
    names[`#r${i}`] = attr;
  });
  Object.entries(set).forEach(([attr, value], i) => {
    names[`#s${i}`] = attr;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
  });
  const removes = remove.length > 0 ? ` REMOVE ${remove.map((_, i) => `#r${i}`).join(', ')}` : '';
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk },
        UpdateExpression: `SET ${sets.join(', ')}${removes}`,
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#owner) OR #until < :now)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * The key prefixes of the records a redaction deletes whole, since their key itself names the shop
 * customer: customer records, link marks, and a redemption's old key. Every other record is redacted in
 * place. The stack lets the worker delete these alone (infra/constructs/ledger-table.ts reads this list).
 */
export const REDACTION_DELETED_KEYS = ['customer#', 'linked#', 'redemption#'] as const;

/** Deletes a record whole (one whose key names the customer); whether one was there. */
export async function deleteItem(table: Pick<RedactionTable, 'client' | 'tableName'>, pk: string): Promise<boolean> {
  // What the stack's grant refuses is refused here first, by name, in every setup.
  if (!REDACTION_DELETED_KEYS.some((prefix) => pk.startsWith(prefix)))
    throw new Error(`a redaction deletes no record keyed ${pk.split('#')[0]}#…`);
  const deleted = await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk }, ReturnValues: 'ALL_OLD' }));
  return (deleted as { Attributes?: unknown }).Attributes !== undefined;
}
