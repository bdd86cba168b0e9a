import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand, scanKeyPrefix } from '../dynamodb/index.js';
import { OrderRecord } from './records.js';
import { RedemptionRecord } from './redemptions.js';
import { TillReturnRecord } from './till-returns.js';
import { REVERSAL_KEY_PREFIX, ReversalRecord } from './reversals.js';

/**
 * The ledger's whole-table reads, for rare operator work (the table has only a partition key, so a
 * filter over a Scan is the only way to a time range or an outcome): the audit's and the console's
 * order list, the parked events `npm run reprocess` queues again, the console's redemptions. Each
 * hands back raw items; the caller parses them as it needs (an audit reports an unreadable record).
 */

type Client = Pick<DynamoDBDocumentClient, 'send'>;
type Item = Record<string, unknown>;

/** Epoch ms bounds; `from` inclusive, `to` exclusive; absent: unbounded. */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** Pages of a paginated Scan with a filter. */
async function* scanPages(client: Client, input: ConstructorParameters<typeof ScanCommand>[0]): AsyncGenerator<Item[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }));
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
}

/**
 * Every order and refund record created (or first seen) in the range, page by page (at on-demand
 * prices ~$0.13 per million 4 KB-reads, cents per audit for a shop's ledger).
 */
export function scanOrdersAndRefunds(
  client: Client,
  tableName: string,
  range: TimeRange = {},
  /** Redemption records too (the audit reads their members' histories). */
  options: { redemptions?: boolean } = {},
): AsyncGenerator<Item[]> {
  const values: Record<string, string> = {};
  const names: Record<string, string> = { '#kind': 'kind' };
  const bounded = (attr: string, alias: string) => {
    const parts: string[] = [];
    names[alias] = attr;
    if (range.from !== undefined) parts.push(`${alias} >= :from`);
    if (range.to !== undefined) parts.push(`${alias} < :to`);
    return parts.join(' AND ');
  };
  if (range.from !== undefined) values[':from'] = new Date(range.from).toISOString();
  if (range.to !== undefined) values[':to'] = new Date(range.to).toISOString();
  values[':order'] = 'order';
  values[':refund'] = 'refund';
  if (options.redemptions) values[':redemption'] = 'redemption';
  let filter = options.redemptions ? '#kind IN (:order, :refund, :redemption)' : '#kind IN (:order, :refund)';
  if (range.from !== undefined || range.to !== undefined) {
    // Records written before createdAt existed on every path carry firstSeenAt.
    filter += ` AND ((${bounded('createdAt', '#created')}) OR (attribute_not_exists(#created) AND ${bounded('firstSeenAt', '#first')}))`;
  }
  return scanPages(client, {
    TableName: tableName,
    FilterExpression: filter,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    // The ledger is written with conditional single-item writes; a consistent read sees the latest.
    ConsistentRead: true,
  });
}

/** Orders and refunds that ended with `outcome` and that nobody holds (no lease), item by item. */
export async function* scanUnheldWithOutcome(client: Client, tableName: string, outcome: string): AsyncGenerator<Item> {
  const pages = scanPages(client, {
    TableName: tableName,
    FilterExpression: '#o = :o AND #k IN (:order, :refund) AND attribute_not_exists(#lo)',
    ExpressionAttributeNames: { '#o': 'outcome', '#k': 'kind', '#lo': 'leaseOwner' },
    ExpressionAttributeValues: { ':o': outcome, ':order': 'order', ':refund': 'refund' },
    ConsistentRead: true,
  });
  for await (const items of pages) yield* items;
}

/** Every readable redemption record (a scan by key prefix, like the order list; unreadable ones skipped). */
export async function scanRedemptions(client: Client, tableName: string): Promise<RedemptionRecord[]> {
  const out: RedemptionRecord[] = [];
  for await (const item of scanKeyPrefix(client, tableName, 'redemption#')) {
    const parsed = RedemptionRecord.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** Every reversal record of the audit (the console's reversals panel). */
export async function scanReversals(client: Client, tableName: string): Promise<ReversalRecord[]> {
  const out: ReversalRecord[] = [];
  for await (const item of scanKeyPrefix(client, tableName, REVERSAL_KEY_PREFIX)) {
    const parsed = ReversalRecord.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** Every till return (a till's plain return naming no sale) of every source, whatever its status: the console's list. */
export async function scanTillReturns(client: Client, tableName: string): Promise<TillReturnRecord[]> {
  const out: TillReturnRecord[] = [];
  for await (const item of scanKeyPrefix(client, tableName, 'till-return#')) {
    const parsed = TillReturnRecord.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** A till spend (`<sale>/spend-<g>`) the balance could not cover: recorded `insufficient_points` with its shortfall. */
const TILL_SPEND = /\/spend-\d+$/;

/** Every till spend cut short by the balance, of every source, oldest first (`npm run redemptions -- shortfalls`, the console). */
export async function scanTillSpendShortfalls(client: Client, tableName: string): Promise<OrderRecord[]> {
  const pages = scanPages(client, {
    TableName: tableName,
    FilterExpression: '#k = :order AND #o = :o AND contains(#id, :spend)',
    ExpressionAttributeNames: { '#k': 'kind', '#o': 'outcome', '#id': 'orderId' },
    ExpressionAttributeValues: { ':order': 'order', ':o': 'insufficient_points', ':spend': '/spend-' },
    ConsistentRead: true,
  });
  const out: OrderRecord[] = [];
  for await (const items of pages) {
    for (const item of items) {
      const parsed = OrderRecord.safeParse(item);
      if (parsed.success && TILL_SPEND.test(parsed.data.orderId)) out.push(parsed.data);
    }
  }
  return out.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
}

/**
 * The kinds of record that move points, as the accounting report reads them: orders (credits, till
 * spends and give-backs), refunds (debits), redemptions (web deductions and their returns), and the kinds
 * campaign bonuses with their claw-backs (`bonus`, bonuses.ts), the audit's reversals (`reversal`), and
`clawback` (a kind of its own no writer uses: read when present).
 */
export const POINTS_RECORD_KINDS = ['order', 'refund', 'redemption', 'bonus', 'clawback', 'reversal'] as const;

/**
 * Every record of those kinds, page by page (a scan: the table has no index by time, and a record
 * written before a month may move points in it). Raw items: the caller reads each kind with its schema.
 */
export function scanPointsRecords(client: Client, tableName: string, options: { pageSize?: number } = {}): AsyncGenerator<Item[]> {
  const values = Object.fromEntries(POINTS_RECORD_KINDS.map((k, i) => [`:k${i}`, k]));
  return scanPages(client, {
    TableName: tableName,
    // Items read per request (before the filter); absent: DynamoDB's 1 MB pages.
    ...(options.pageSize !== undefined ? { Limit: options.pageSize } : {}),
    FilterExpression: `#kind IN (${Object.keys(values).join(', ')})`,
    ExpressionAttributeNames: { '#kind': 'kind' },
    ExpressionAttributeValues: values,
    ConsistentRead: true,
  });
}
