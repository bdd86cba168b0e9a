import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { GetCommand, PutCommand, scanKeyPrefix } from '../dynamodb/index.js';
import { lazyObject } from '../schema/index.js';

/**
 * The privacy requests' own records, in the ledger table (`privacy#<event id>`, `kind: privacy`, which
 * the ledger's scans never read): what each request asked, when, and what it did, for the operator
 * (`npm run privacy`) and as the shop's proof. A redaction's record names no customer; a data request's
 * holds its report (the customer's id among it) only as long as answering needs, then TTL removes it.
 */

export const PRIVACY_ACTIONS = ['redact_customer', 'report_customer', 'redact_shop'] as const;

/** A report is kept this long: Shopify asks that a data request be answered within 30 days. */
export const REPORT_TTL_DAYS = 30;

const Figures = lazyObject(z.object, () => ({
  orders: z.number().int().nonnegative(),
  refunds: z.number().int().nonnegative(),
  customers: z.number().int().nonnegative(),
  quarantined: z.number().int().nonnegative(),
  /** Redemption records moved to a key naming no customer (absent in records made before they were). */
  redemptions: z.number().int().nonnegative().optional(),
}));

export const PrivacyRequestRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('privacy'),
  /** The event id (`shopify:privacy:<action>:<delivery id>`). */
  id: z.string(),
  source: z.string(),
  action: z.enum(PRIVACY_ACTIONS),
  topic: z.string(),
  shopDomain: z.string(),
  /** The shop's own id of a data request (`data_request.id`). */
  requestId: z.string().optional(),
  /** The orders the request named. */
  orderIds: z.array(z.string()),
  occurredAt: z.string().optional(),
  finishedAt: z.string(),
  outcome: z.enum(['redacted', 'reported']),
  figures: Figures,
  /** A data request's answer (JSON of shared/privacy/report.ts's HeldData). */
  report: z.string().optional(),
  ttl: z.number().optional(),
}));
export type PrivacyRequestRecord = z.infer<typeof PrivacyRequestRecord>;

export const privacyKey = (id: string) => `privacy#${encodeURIComponent(id)}`;

export interface PrivacyRequests {
  /** Writes a request's record (again, when a retry finishes it again: the same facts). */
  save(record: Omit<PrivacyRequestRecord, 'pk' | 'kind' | 'ttl'>, ttlDays: number): Promise<void>;
  get(id: string): Promise<PrivacyRequestRecord | undefined>;
  /** Every request's record, newest first (a scan of the table: an operator's occasional look). */
  list(): Promise<PrivacyRequestRecord[]>;
}

export function createPrivacyRequests(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => number;
}): PrivacyRequests {
  const { client, tableName } = options;
  return {
    async save(record, ttlDays) {
      const ttl = Math.floor(options.clock() / 1000) + ttlDays * 86_400;
      const item: PrivacyRequestRecord = { ...record, pk: privacyKey(record.id), kind: 'privacy', ttl };
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
    async get(id) {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: privacyKey(id) }, ConsistentRead: true }));
      const parsed = PrivacyRequestRecord.safeParse(out.Item);
      return parsed.success ? parsed.data : undefined;
    },
    async list() {
      const records: PrivacyRequestRecord[] = [];
      for await (const item of scanKeyPrefix(client, tableName, 'privacy#')) {
        const parsed = PrivacyRequestRecord.safeParse(item);
        if (parsed.success) records.push(parsed.data);
      }
      return records.sort((a, b) => b.finishedAt.localeCompare(a.finishedAt) || a.id.localeCompare(b.id));
    },
  };
}
