import * as z from 'zod';
import { JsonNumber } from './json.js';
import { type Decimal, parseDecimal } from '../money/index.js';
import type { SourceError } from './types.js';
import { lazySchema } from '../schema/index.js';

/** Helpers for reading sender payloads with zod: field types and error mapping. */

/** A decimal amount written as a string ("12.50"); parsed exactly, never through a float. */
const DECIMAL_STRING_MESSAGE = 'expected a decimal amount as a string, such as "12.50"';
export const DecimalString = lazySchema(() =>
  z
    // A JSON number (12.5) gets the same advice as a bad string; a missing field keeps zod's own message.
    .string({ error: (issue) => (issue.input === undefined ? undefined : DECIMAL_STRING_MESSAGE) })
    .refine((s) => parseDecimal(s) !== undefined, { message: DECIMAL_STRING_MESSAGE })
    .transform((s) => parseDecimal(s) as Decimal),
);

/**
 * An amount as Shopify writes it: a decimal string ("89.99", the `*_set` form) or a JSON number
 * (`89.99`, `0.0`, `199`: `refund_line_items[].subtotal` and `total_tax`). Numbers must come from
 * `parseJsonBody(..., { exactNumbers: true })`, which keeps their text, so no float ever rounds one.
 */
const DECIMAL_AMOUNT_MESSAGE = 'expected a decimal amount, such as "12.50" or 12.5';
export const DecimalAmount = lazySchema(() =>
  z.union(
    [
      DecimalString,
      z.instanceof(JsonNumber).transform((n, ctx) => {
        const d = parseDecimal(n.text);
        if (d === undefined) {
          ctx.addIssue({ code: 'custom', message: DECIMAL_AMOUNT_MESSAGE });
          return z.NEVER;
        }
        return d;
      }),
      z
        .number()
        .int()
        .refine(Number.isSafeInteger)
        .transform((n): Decimal => ({ units: BigInt(n), scale: 0 })),
    ],
    { error: (issue) => (issue.input === undefined ? undefined : DECIMAL_AMOUNT_MESSAGE) },
  ),
);

/**
 * A numeric id as a digit string. JSON numbers beyond 2^53 arrive as digit strings from
 * `parseJsonBody`, safe ones as numbers: both end as the exact digits.
 */
export const NumericId = lazySchema(() =>
  z
    // No leading zeros: "0123" would be a different external id than the 123 it means.
    .union([z.number().int().nonnegative(), z.string().regex(/^(?:0|[1-9]\d{0,19})$/, 'expected an integer id')])
    .transform(String),
);

/** ISO 8601 date-time with offset (the canonical event's `occurredAt`). */
export const DateTimeWithOffset = lazySchema(() => z.iso.datetime({ offset: true, local: false }));

export const CurrencyCode = lazySchema(() => z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code such as "USD"'));

/** The first zod issue as a SourceError; messages are zod's or ours, never the received value. */
export function schemaError(error: z.ZodError, prefix?: string): SourceError {
  const issue = error.issues[0];
  const segments = [...(prefix ? [prefix] : []), ...(issue?.path ?? []).map(String)];
  const path = segments.join('.');
  const message = issue?.message ?? 'invalid payload';
  return { kind: 'invalid_payload', message: path ? `${path}: ${message}` : message, ...(path ? { path } : {}) };
}

export function invalid(path: string, message: string): SourceError {
  return { kind: 'invalid_payload', message: `${path}: ${message}`, path };
}
