import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ACTIVITY_KIND } from './keys.js';

/**
 * The activity record's writes: single unconditional-in-effect updates outside every ledger condition
 * (no lease, no revision of a ledger record is read or written). The SDK's commands are imported on
 * first use, so receive-webhook's cold start does not pay for them.
 */

const commands = () => import('@aws-sdk/lib-dynamodb');
const isConditionFailure = (e: unknown) => (e as { name?: string }).name === 'ConditionalCheckFailedException';
const DAY_S = 86_400;

export interface ActivityStoreOptions {
  client: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  clock: () => number;
  /** The ledger's retention: activity expires with the records it describes. */
  ttlDays: number;
}

export interface ActivityStore {
  /** Appends to an order's list while it holds fewer than `max`; past that, only counts them in `omitted`. */
  append(pk: string, entries: readonly unknown[], max: number): Promise<void>;
  /** Adds to a list kept at its newest `max` (read, then written over what was read; retried on a race). */
  push(pk: string, field: string, entry: unknown, max: number): Promise<void>;
  get(pk: string): Promise<Record<string, unknown> | undefined>;
}

export function createActivityStore({ client, tableName, clock, ttlDays }: ActivityStoreOptions): ActivityStore {
  const ttl = () => Math.floor(clock() / 1000) + ttlDays * DAY_S;
  const get = async (pk: string) => {
    const { GetCommand } = await commands();
    return (await client.send(new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }))).Item;
  };
  return {
    get,
    async append(pk, entries, max) {
      if (entries.length === 0) return;
      const { UpdateCommand } = await commands();
      const names = { '#entries': 'entries', '#kind': 'kind', '#ttl': 'ttl' };
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk },
            UpdateExpression: 'SET #entries = list_append(if_not_exists(#entries, :empty), :new), #kind = :kind, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#entries) OR size(#entries) < :max',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':empty': [], ':new': entries, ':kind': ACTIVITY_KIND, ':ttl': ttl(), ':max': max },
          }),
        );
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk },
            UpdateExpression: 'ADD #omitted :n SET #ttl = :ttl',
            ExpressionAttributeNames: { '#omitted': 'omitted', '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':n': entries.length, ':ttl': ttl() },
          }),
        );
      }
    },
    async push(pk, field, entry, max) {
      const { PutCommand } = await commands();
      for (let round = 0; round < 3; round += 1) {
        const item = await get(pk);
        const list = Array.isArray(item?.[field]) ? (item[field] as unknown[]) : [];
        const version = typeof item?.version === 'number' ? item.version : 0;
        try {
          await client.send(
            new PutCommand({
              TableName: tableName,
              Item: { ...item, pk, kind: ACTIVITY_KIND, [field]: [...list, entry].slice(-max), version: version + 1, ttl: ttl() },
              ConditionExpression: item ? '#version = :version' : 'attribute_not_exists(pk)',
              ...(item ? { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } } : {}),
            }),
          );
          return;
        } catch (e) {
          if (!isConditionFailure(e)) throw e;
        }
      }
    },
  };
}
