import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * A delivery that was authentic (its signature verified) but that intake could not read or map. It
 * is kept verbatim, so that once the bug is fixed it can be replayed through the normal intake path.
 */

/** The key schema of the quarantine table, shared by the CDK stack, the store and the local stack. */
export const QUARANTINE_TABLE_SCHEMA = { partitionKey: 'pk', ttlAttribute: 'ttl' } as const;

export const QuarantineReason = z.object({
  kind: z.string(),
  message: z.string(),
  path: z.string().optional(),
});
export type QuarantineReason = z.infer<typeof QuarantineReason>;

export const QuarantineState = z.enum(['quarantined', 'replayed']);

export const QuarantineEntry = z.object({
  pk: z.string(),
  id: z.string(),
  source: z.string(),
  state: QuarantineState,
  reason: QuarantineReason,
  /** The request headers as received (names as the gateway gave them). */
  headers: z.record(z.string(), z.string()),
  /** The raw body, byte for byte (DynamoDB binary; gzip-compressed in the table when `bodyEncoding` says so). */
  body: z.instanceof(Uint8Array),
  bodyEncoding: z.literal('gzip').optional(),
  bodyBytes: z.number().int().nonnegative(),
  bodySha256: z.string(),
  firstReceivedAt: z.string(),
  lastReceivedAt: z.string(),
  /** How many times it was delivered (Shopify retries; replays that failed again). */
  deliveries: z.number().int().positive(),
  replayedAt: z.string().optional(),
  /** What intake answered the replay (`accepted shopify:order:1`, `ignored: test order`). */
  replayResult: z.string().optional(),
  /** Epoch seconds: DynamoDB removes the entry after the configured number of days. */
  ttl: z.number().optional(),
});
export type QuarantineEntry = z.infer<typeof QuarantineEntry>;

/** What intake hands over to keep. */
export interface QuarantineInput {
  readonly source: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawBody: Buffer;
  readonly reason: QuarantineReason;
}

/**
 * One id per source and body: Shopify's retries of one delivery (same bytes) land on the same entry,
 * and a replay that fails again updates it instead of adding another.
 */
export function quarantineId(source: string, rawBody: Buffer): string {
  return `q-${createHash('sha256').update(source).update('\0').update(rawBody).digest('hex').slice(0, 24)}`;
}

export const quarantineKey = (id: string) => `quarantine#${id}`;

/** Headers that may carry a credential are never stored (webhook senders send none; a proxy might). */
const NEVER_KEPT = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-api-key']);

export function keptHeaders(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === 'string' && !NEVER_KEPT.has(e[0].toLowerCase())),
  );
}
