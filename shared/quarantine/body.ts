import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The body as the table keeps it: gzip-compressed (a DynamoDB item holds 400 KB, Shopify's bodies may
 * reach 4 MiB), with its size and sha256. Read back with an inflation cap and both checked, so a
 * damaged or hostile item can neither take the reader's memory nor pass for the delivery.
 */

/**
 * The most compressed body an item takes: the item limit (400 KB) less room for the rest of it
 * (headers, bounded by the gateway's 10 KB; reason; times; counters).
 */
export const MAX_STORED_BODY_BYTES = 360 * 1024;

export interface PackedBody {
  /** Absent when even compressed it is over MAX_STORED_BODY_BYTES: only its size and hash are kept. */
  readonly body?: Uint8Array;
  readonly bodyBytes: number;
  readonly bodySha256: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export function packBody(rawBody: Buffer): PackedBody {
  const gzipped = gzipSync(rawBody);
  const facts = { bodyBytes: rawBody.length, bodySha256: sha256(rawBody) };
  return gzipped.length > MAX_STORED_BODY_BYTES ? facts : { ...facts, body: new Uint8Array(gzipped) };
}

export type UnpackedBody = { readonly body: Uint8Array } | { readonly bodyProblem: string };

/**
 * The body of an item, inflated to at most `maxBodyBytes` (the largest body intake accepts) and
 * checked against the size and sha256 recorded when it was kept.
 */
export function unpackBody(
  item: { body?: Uint8Array; bodyEncoding?: 'gzip'; bodyBytes: number; bodySha256: string; redactedAt?: string; redactedBy?: string },
  maxBodyBytes: number,
): UnpackedBody {
  if (item.redactedAt !== undefined) {
    return {
      bodyProblem: `body removed at ${item.redactedAt} by a privacy request (${item.redactedBy ?? 'redact'}): it cannot be replayed`,
    };
  }
  if (item.body === undefined) {
    return {
      bodyProblem: `body not kept: ${item.bodyBytes} bytes, over the table's item limit even compressed (sha256 ${item.bodySha256})`,
    };
  }
  if (item.bodyBytes > maxBodyBytes)
    return { bodyProblem: `stored size ${item.bodyBytes} is over the intake limit of ${maxBodyBytes} bytes` };
  let body: Uint8Array;
  if (item.bodyEncoding === 'gzip') {
    try {
      body = new Uint8Array(gunzipSync(item.body, { maxOutputLength: maxBodyBytes }));
    } catch {
      return { bodyProblem: `stored body does not inflate within ${maxBodyBytes} bytes` };
    }
  } else body = item.body;
  if (body.length !== item.bodyBytes) return { bodyProblem: `stored body is ${body.length} bytes, not the ${item.bodyBytes} recorded` };
  if (sha256(body) !== item.bodySha256) return { bodyProblem: 'stored body does not match its recorded sha256' };
  return { body };
}

const LEADING_ID = /^\s*\{\s*"id"\s*:\s*(\d{1,20})\s*[,}]/;
const ORDER_ID = /"order_id"\s*:\s*(\d{1,20})\s*[,}]/;

/**
 * The order or refund a Shopify body names, for `list` and for reconciling a body that was not kept:
 * Shopify's payloads open with the resource's `id` (a refund's `order_id` follows close by). Read from
 * the first 4 KB without parsing (the body is one intake could not read); a hint, not a fact.
 */
export function resourceOf(rawBody: Buffer, topic: string | undefined): string | undefined {
  const head = rawBody.subarray(0, 4096).toString('latin1');
  const id = LEADING_ID.exec(head)?.[1];
  if (id === undefined) return undefined;
  if (topic?.startsWith('refunds/')) {
    const order = ORDER_ID.exec(head)?.[1];
    return order === undefined ? `refund ${id}` : `refund ${id} of order ${order}`;
  }
  return topic?.startsWith('orders/') ? `order ${id}` : `id ${id}`;
}
