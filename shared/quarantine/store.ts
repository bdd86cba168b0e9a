import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  keptHeaders,
  type QuarantineEntry,
  QuarantineEntry as EntrySchema,
  type QuarantineInput,
  quarantineId,
  quarantineKey,
} from './entry.js';

/** Where quarantined deliveries are kept: a DynamoDB table (dynalite locally). */
export interface QuarantineStore {
  /** Keeps (or, for the same source and body, updates) an entry; returns its id. */
  keep(input: QuarantineInput): Promise<{ id: string }>;
  get(id: string): Promise<QuarantineEntry | undefined>;
  /** Every entry, oldest first. */
  list(): Promise<QuarantineEntry[]>;
  /** Records that a replay went through intake and what it answered. */
  markReplayed(id: string, result: string): Promise<void>;
}

export interface QuarantineStoreOptions {
  readonly client: Pick<DynamoDBDocumentClient, 'send'>;
  readonly tableName: string;
  /** Epoch milliseconds. */
  readonly clock: () => number;
  /** Entries expire this many days after their last delivery (DynamoDB TTL). */
  readonly ttlDays: number;
}

export const DEFAULT_QUARANTINE_TTL_DAYS = 90;

export function createQuarantineStore(options: QuarantineStoreOptions): QuarantineStore {
  const { client, tableName, clock } = options;
  // Imported on first use: intake's cold start does not evaluate the DynamoDB client for requests that never quarantine.
  const commands = () => import('@aws-sdk/lib-dynamodb');
  const iso = (ms: number) => new Date(ms).toISOString();
  const parse = (item: Record<string, unknown> | undefined): QuarantineEntry | undefined => {
    if (!item) return undefined;
    const parsed = EntrySchema.safeParse(item);
    if (!parsed.success) return undefined;
    const { bodyEncoding, ...entry } = parsed.data;
    // Kept compressed (a DynamoDB item holds 400 KB; Shopify's bodies may reach 4 MiB): handed out as received.
    return bodyEncoding === 'gzip' ? { ...entry, body: new Uint8Array(gunzipSync(entry.body)) } : entry;
  };

  return {
    async keep(input) {
      const { UpdateCommand } = await commands();
      const id = quarantineId(input.source, input.rawBody);
      const now = clock();
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: quarantineKey(id) },
          UpdateExpression:
            'SET #id = :id, #source = :source, #state = :state, #reason = :reason, #headers = :headers, #body = :body, #bodyEncoding = :gzip, ' +
            '#bodyBytes = :bodyBytes, #bodySha256 = :sha, #first = if_not_exists(#first, :now), #last = :now, #ttl = :ttl ' +
            'ADD #deliveries :one REMOVE #replayedAt, #replayResult',
          ExpressionAttributeNames: {
            '#id': 'id',
            '#source': 'source',
            '#state': 'state',
            '#reason': 'reason',
            '#headers': 'headers',
            '#body': 'body',
            '#bodyEncoding': 'bodyEncoding',
            '#bodyBytes': 'bodyBytes',
            '#bodySha256': 'bodySha256',
            '#first': 'firstReceivedAt',
            '#last': 'lastReceivedAt',
            '#ttl': 'ttl',
            '#deliveries': 'deliveries',
            '#replayedAt': 'replayedAt',
            '#replayResult': 'replayResult',
          },
          ExpressionAttributeValues: {
            ':id': id,
            ':source': input.source,
            ':state': 'quarantined',
            ':reason': {
              kind: input.reason.kind,
              message: input.reason.message,
              ...(input.reason.path ? { path: input.reason.path } : {}),
            },
            ':headers': keptHeaders(input.headers),
            ':body': new Uint8Array(gzipSync(input.rawBody)),
            ':gzip': 'gzip',
            ':bodyBytes': input.rawBody.length,
            ':sha': createHash('sha256').update(input.rawBody).digest('hex'),
            ':now': iso(now),
            ':ttl': Math.floor(now / 1000) + options.ttlDays * 86_400,
            ':one': 1,
          },
        }),
      );
      return { id };
    },

    async get(id) {
      const { GetCommand } = await commands();
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: quarantineKey(id) }, ConsistentRead: true }));
      return parse(out.Item);
    },

    async list() {
      const { ScanCommand } = await commands();
      const entries: QuarantineEntry[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }));
        for (const item of out.Items ?? []) {
          const entry = parse(item);
          if (entry) entries.push(entry);
        }
        start = out.LastEvaluatedKey;
      } while (start);
      return entries.sort((a, b) => a.firstReceivedAt.localeCompare(b.firstReceivedAt) || a.id.localeCompare(b.id));
    },

    async markReplayed(id, result) {
      const { UpdateCommand } = await commands();
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: quarantineKey(id) },
          UpdateExpression: 'SET #state = :replayed, #replayedAt = :now, #replayResult = :result',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#state': 'state', '#replayedAt': 'replayedAt', '#replayResult': 'replayResult' },
          ExpressionAttributeValues: { ':replayed': 'replayed', ':now': iso(clock()), ':result': result },
        }),
      );
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
