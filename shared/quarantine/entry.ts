import { createHash } from 'node:crypto';
import * as z from 'zod';
import { lazyObject, lazySchema } from '../schema/index.js';

/**
 * A delivery that was authentic (its signature verified) but that intake could not read or map. It
 * is kept verbatim, so that once the bug is fixed it can be replayed through the normal intake path.
 */

/** The key schema of the quarantine table, shared by the CDK stack, the store and the local stack. */
export const QUARANTINE_TABLE_SCHEMA = { partitionKey: 'pk', ttlAttribute: 'ttl' } as const;

/**
 * Deliveries of one entry counted at most (a flood of one captured body stops writing here). Shopify
 * is answered 200 and does not retry, so an honest entry sees one delivery and a replay or two.
 */
export const MAX_COUNTED_DELIVERIES = 100;

export const QuarantineReason = lazyObject(z.object, () => ({
  kind: z.string(),
  message: z.string(),
  path: z.string().optional(),
}));
export type QuarantineReason = z.infer<typeof QuarantineReason>;

/** `redacted`: a privacy request removed its body (shared/privacy); it can no longer be replayed. */
export const QuarantineState = lazySchema(() => z.enum(['quarantined', 'replayed', 'redacted']));

/** An entry as the table holds it. */
export const QuarantineItem = lazyObject(z.object, () => ({
  pk: z.string(),
  id: z.string(),
  source: z.string(),
  state: QuarantineState,
  reason: QuarantineReason,
  /** The sender's own headers as first received (names as the gateway gave them; allow-list: headers.ts). */
  headers: z.record(z.string(), z.string()),
  /** The topic header as first received (`orders/paid`), for `list`. */
  topic: z.string().optional(),
  /** The order or refund the body names (`gid://shopify/Order/1`), read without parsing it (body.ts). */
  resource: z.string().optional(),
  /** The raw body, gzip-compressed; absent when even compressed it would not fit in an item. */
  body: z.instanceof(Uint8Array).optional(),
  bodyEncoding: z.literal('gzip').optional(),
  bodyBytes: z.number().int().nonnegative(),
  bodySha256: z.string(),
  firstReceivedAt: z.string(),
  lastReceivedAt: z.string(),
  /** How many times it was delivered (replays that failed again, re-sent captures), up to MAX_COUNTED_DELIVERIES. */
  deliveries: z.number().int().positive(),
  replayedAt: z.string().optional(),
  /** What intake answered the replay (`accepted shopify:order:1`, `ignored: test order`). */
  replayResult: z.string().optional(),
  /** When a privacy request removed the body, and which (`customers/redact`, `shop/redact`). */
  redactedAt: z.string().optional(),
  redactedBy: z.string().optional(),
  /** Epoch seconds: DynamoDB removes the entry this many days after its first delivery. */
  ttl: z.number().optional(),
}));
export type QuarantineItem = z.infer<typeof QuarantineItem>;

/** What `list` gives: everything but the body, which it never reads. */
export type QuarantineSummary = Omit<QuarantineItem, 'pk' | 'body' | 'bodyEncoding'> & {
  /** Whether the body is in the table (false: over the item limit; hash, size and headers only). */
  readonly bodyKept: boolean;
};

/** One entry with its body, inflated and checked against the stored size and sha256. */
export type QuarantineEntry = QuarantineSummary & {
  readonly body?: Uint8Array;
  /** Why `body` is absent: not kept, or not trusted (size, hash or inflation past the cap). */
  readonly bodyProblem?: string;
};

/** What intake hands over to keep. */
export interface QuarantineInput {
  readonly source: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawBody: Buffer;
  readonly reason: QuarantineReason;
}

/** What keeping did: a new entry, a re-delivery counted on the first one, or one past the count's bound. */
export type KeepResult =
  | { readonly id: string; readonly delivery: 'first'; readonly bodyKept: boolean }
  | { readonly id: string; readonly delivery: 'repeat' | 'uncounted' };

/**
 * One id per source and body: Shopify signs the body only, so the body is what is authentic. Every
 * re-delivery of those bytes, whatever its unsigned headers say, lands on the entry first seen and
 * changes nothing of it but its delivery count (docs/security.md, "The quarantine").
 */
export function quarantineId(source: string, rawBody: Buffer): string {
  return `q-${createHash('sha256').update(source).update('\0').update(rawBody).digest('hex').slice(0, 24)}`;
}

export const quarantineKey = (id: string) => `quarantine#${id}`;
