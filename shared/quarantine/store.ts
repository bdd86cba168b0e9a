import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SHOPIFY_MAX_BODY_BYTES } from '../sources/index.js';
import { packBody, resourceOf, unpackBody } from './body.js';
import {
  type KeepResult,
  MAX_COUNTED_DELIVERIES,
  type QuarantineEntry,
  type QuarantineInput,
  QuarantineItem,
  type QuarantineSummary,
  quarantineId,
  quarantineKey,
} from './entry.js';
import { QuarantineEntryMissingError } from './errors.js';
import { keptHeaders, topicOf } from './headers.js';
import { lazySchema } from '../schema/index.js';

/** Where quarantined deliveries are kept: a DynamoDB table (dynalite locally). */
export interface QuarantineStore {
  /**
   * Keeps a new entry, or counts a re-delivery of the same source and body on the entry first seen
   * (its headers, reason, state, replay result and expiry stay as they were).
   */
  keep(input: QuarantineInput): Promise<KeepResult>;
  /** One entry with its body, inflated within the cap and checked. */
  get(id: string): Promise<QuarantineEntry | undefined>;
  /** Every entry, oldest first, without reading a body. */
  list(): Promise<QuarantineSummary[]>;
  /** Records that a replay went through intake and what it answered. */
  markReplayed(id: string, result: string): Promise<void>;
  /**
   * Removes an entry's body for a privacy request (`by`: its topic), keeping its hash, size, headers and
   * reason, so the entry still says what arrived and why it could not be read. False: no such entry.
   */
  redact(id: string, by: string): Promise<boolean>;
}

export interface QuarantineStoreOptions {
  readonly client: Pick<DynamoDBDocumentClient, 'send'>;
  readonly tableName: string;
  /** Epoch milliseconds. */
  readonly clock: () => number;
  /** Entries expire this many days after their first delivery (DynamoDB TTL). */
  readonly ttlDays: number;
  /** The largest body a read inflates (default: the largest body intake accepts, Shopify's 4 MiB). */
  readonly maxBodyBytes?: number;
}

export const DEFAULT_QUARANTINE_TTL_DAYS = 90;
/** Ids of entries at their delivery bound one store remembers (a few KB). */
const MAX_REMEMBERED_FULL = 1_000;

/** Every attribute but the body: what `list` reads. */
const SUMMARY_ATTRIBUTES = [
  'id',
  'source',
  'state',
  'reason',
  'headers',
  'topic',
  'resource',
  'bodyBytes',
  'bodySha256',
  'bodyKept',
  'firstReceivedAt',
  'lastReceivedAt',
  'deliveries',
  'replayedAt',
  'replayResult',
  'redactedAt',
  'redactedBy',
  'ttl',
] as const;

// Imported on first use: intake's cold start does not evaluate the DynamoDB client for requests that never quarantine.
const commands = () => import('@aws-sdk/lib-dynamodb');
const iso = (ms: number) => new Date(ms).toISOString();

type TableRef = Pick<QuarantineStoreOptions, 'client' | 'tableName'>;

const isConditionFailure = (e: unknown) => (e as { name?: string }).name === 'ConditionalCheckFailedException';

const SummaryItem = lazySchema(() => QuarantineItem.omit({ pk: true, body: true, bodyEncoding: true }));

function summaryOf(item: Record<string, unknown>): QuarantineSummary | undefined {
  const parsed = SummaryItem.safeParse(item);
  if (!parsed.success) return undefined;
  // Entries kept before bodyKept was recorded always held their body.
  return { ...parsed.data, bodyKept: item.bodyKept !== false };
}

/** One conditional update of an entry by its id; false when its condition did not hold. */
async function updateEntry(
  { client, tableName }: TableRef,
  id: string,
  update: { set: string; condition: string; names: Record<string, string>; values: Record<string, unknown> },
): Promise<boolean> {
  const { UpdateCommand } = await commands();
  const command = new UpdateCommand({
    TableName: tableName,
    Key: { pk: quarantineKey(id) },
    UpdateExpression: update.set,
    ConditionExpression: update.condition,
    ExpressionAttributeNames: update.names,
    ExpressionAttributeValues: update.values,
  });
  try {
    await client.send(command);
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** A re-delivery: the counter and the last time, nothing else, and only below the bound. */
function countDelivery(table: TableRef, id: string, now: number): Promise<boolean> {
  return updateEntry(table, id, {
    set: 'SET #last = :now ADD #deliveries :one',
    condition: 'attribute_exists(pk) AND #deliveries < :max',
    names: { '#last': 'lastReceivedAt', '#deliveries': 'deliveries' },
    values: { ':now': iso(now), ':one': 1, ':max': MAX_COUNTED_DELIVERIES },
  });
}

/** The first delivery: the whole entry, only where none exists. */
async function createEntry(
  table: TableRef & { ttlDays: number },
  id: string,
  input: QuarantineInput,
  now: number,
): Promise<{ created: boolean; bodyKept: boolean }> {
  const headers = keptHeaders(input.headers);
  const topic = topicOf(headers);
  const resource = resourceOf(input.rawBody, topic);
  const packed = packBody(input.rawBody);
  const item: Record<string, unknown> = {
    id,
    source: input.source,
    state: 'quarantined',
    reason: { kind: input.reason.kind, message: input.reason.message, ...(input.reason.path ? { path: input.reason.path } : {}) },
    headers,
    ...(topic === undefined ? {} : { topic }),
    ...(resource === undefined ? {} : { resource }),
    ...(packed.body === undefined ? {} : { body: packed.body, bodyEncoding: 'gzip' }),
    bodyKept: packed.body !== undefined,
    bodyBytes: packed.bodyBytes,
    bodySha256: packed.bodySha256,
    firstReceivedAt: iso(now),
    lastReceivedAt: iso(now),
    deliveries: 1,
    ttl: Math.floor(now / 1000) + table.ttlDays * 86_400,
  };
  // An update (not a put) that creates: receive-webhook's one permission on the table stays UpdateItem.
  const names = Object.keys(item);
  const created = await updateEntry(table, id, {
    set: `SET ${names.map((_, i) => `#a${i} = :v${i}`).join(', ')}`,
    condition: 'attribute_not_exists(pk)',
    names: Object.fromEntries(names.map((n, i) => [`#a${i}`, n])),
    values: Object.fromEntries(names.map((n, i) => [`:v${i}`, item[n]])),
  });
  return { created, bodyKept: packed.body !== undefined };
}

/**
 * The intake's half of the store: keeping a delivery. A function of its own so the intake's bundle carries
 * none of the operator's reads (get, list, replay, redact).
 */
export function createQuarantineKeeper(options: QuarantineStoreOptions): Pick<QuarantineStore, 'keep'> {
  const { clock } = options;
  // Entries this container found at the bound: a flood of one body then costs no request at all.
  const full = new Set<string>();

  return {
    async keep(input) {
      const id = quarantineId(input.source, input.rawBody);
      if (full.has(id)) return { id, delivery: 'uncounted' };
      const now = clock();
      // Counted first: a re-delivery never sends the body again.
      if (await countDelivery(options, id, now)) return { id, delivery: 'repeat' };
      const created = await createEntry(options, id, input, now);
      if (created.created) return { id, delivery: 'first', bodyKept: created.bodyKept };
      // Another delivery created it meanwhile, or the count reached its bound.
      if (await countDelivery(options, id, now)) return { id, delivery: 'repeat' };
      if (full.size >= MAX_REMEMBERED_FULL) full.clear();
      full.add(id);
      return { id, delivery: 'uncounted' };
    },
  };
}

export function createQuarantineStore(options: QuarantineStoreOptions): QuarantineStore {
  const { client, tableName, clock } = options;
  const maxBodyBytes = options.maxBodyBytes ?? SHOPIFY_MAX_BODY_BYTES;

  return {
    ...createQuarantineKeeper(options),

    async get(id) {
      const { GetCommand } = await commands();
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: quarantineKey(id) }, ConsistentRead: true }));
      if (!out.Item) return undefined;
      const summary = summaryOf(out.Item);
      const item = QuarantineItem.safeParse(out.Item);
      if (!summary || !item.success) return undefined;
      return { ...summary, ...unpackBody(item.data, maxBodyBytes) };
    },

    async list() {
      const { ScanCommand } = await commands();
      const entries: QuarantineSummary[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new ScanCommand({
            TableName: tableName,
            ExclusiveStartKey: start,
            ConsistentRead: true,
            // Never the body: a list of many large (or hostile) entries reads kilobytes, not megabytes.
            ProjectionExpression: SUMMARY_ATTRIBUTES.map((_, i) => `#p${i}`).join(', '),
            ExpressionAttributeNames: Object.fromEntries(SUMMARY_ATTRIBUTES.map((n, i) => [`#p${i}`, n])),
          }),
        );
        for (const item of out.Items ?? []) {
          const entry = summaryOf(item);
          if (entry) entries.push(entry);
        }
        start = out.LastEvaluatedKey;
      } while (start);
      return entries.sort((a, b) => a.firstReceivedAt.localeCompare(b.firstReceivedAt) || a.id.localeCompare(b.id));
    },

    async markReplayed(id, result) {
      const marked = await updateEntry(options, id, {
        set: 'SET #state = :replayed, #replayedAt = :now, #replayResult = :result',
        condition: 'attribute_exists(pk)',
        names: { '#state': 'state', '#replayedAt': 'replayedAt', '#replayResult': 'replayResult' },
        values: { ':replayed': 'replayed', ':now': iso(clock()), ':result': result },
      });
      if (!marked) throw new QuarantineEntryMissingError(id);
    },

    async redact(id, by) {
      return updateEntry(options, id, {
        set: 'SET #state = :redacted, #at = :now, #by = :by, #kept = :false REMOVE #body, #encoding',
        condition: 'attribute_exists(pk)',
        names: {
          '#state': 'state',
          '#at': 'redactedAt',
          '#by': 'redactedBy',
          '#kept': 'bodyKept',
          '#body': 'body',
          '#encoding': 'bodyEncoding',
        },
        values: { ':redacted': 'redacted', ':now': iso(clock()), ':by': by, ':false': false },
      });
    },
  };
}

/** Creates the quarantine table (local stack and tests; the CDK stack creates it in AWS). */
export async function createQuarantineTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { CreateTableCommand } = await import('@aws-sdk/client-dynamodb');
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name === 'ResourceInUseException') return;
    throw err;
  }
}
