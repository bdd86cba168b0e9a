import * as z from 'zod';
import type { PointsEvent } from '../../events/index.js';
import { header } from '../headers.js';
import { parseJsonBody } from '../json.js';
import { type Decimal, compareDecimals, formatDecimal, subtractDecimals, toUnits, ZERO } from '../../money/index.js';
import { CurrencyCode, DateTimeWithOffset, DecimalString, invalid, schemaError } from '../payload.js';
import { EXTERNAL_ID, ExternalKey, renderTitle } from '../settings.js';
import { decodeHex, hmacSha256, macEquals } from '../signature.js';
import { pathSafe } from '../path-safe.js';
import type { Outcome, SignedRequest, SourceError, VerifyOptions, WebhookSource } from '../types.js';
import { ignored, ok, rejected } from '../types.js';
import { lazyObject, lazySchema } from '../../schema/index.js';
import { PosSettings } from './settings.js';

export { PosSettings } from './settings.js';

/** POS receipts and returns in the project's own format: docs/pos-format.md. */

// No ':' (or other separator): ids are joined with ':' into event ids (`<source>:return:<receipt>:<return>`),
// so receipt "A:B" with return "C" and receipt "A" with return "B:C" would share one.
const PosId = lazySchema(() => z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected 1-64 letters, digits, or . _ -'));
const Amount = lazySchema(() => DecimalString.refine((d) => compareDecimals(d, ZERO) >= 0, { message: 'must not be negative' }));

const PosCustomer = lazySchema(() =>
  z
    .object({
      cardNumber: z
        .string()
        .regex(EXTERNAL_ID, 'expected 1-255 letters, digits, or * - . _')
        .superRefine(pathSafe('externalId'))
        .optional(),
      externalKey: ExternalKey.optional(),
      externalId: z
        .string()
        .regex(EXTERNAL_ID, 'expected 1-255 letters, digits, or * - . _')
        .superRefine(pathSafe('externalId'))
        .optional(),
    })
    .refine((c) => (c.cardNumber !== undefined) !== (c.externalKey !== undefined || c.externalId !== undefined), {
      message: 'give either cardNumber or externalKey with externalId',
    })
    .refine((c) => (c.externalKey === undefined) === (c.externalId === undefined), {
      message: 'externalKey and externalId go together',
    })
    .nullish(),
);

const common = () => ({
  storeId: PosId,
  registerId: PosId.optional(),
  issuedAt: DateTimeWithOffset,
  currency: CurrencyCode,
  customer: PosCustomer,
  /** Sum of the lines after discounts. */
  subtotal: Amount,
  /** Whether subtotal and total include the tax. */
  taxIncluded: z.boolean(),
  tax: Amount,
  total: Amount,
  test: z.boolean().default(false),
});

export const PosSale = lazySchema(() => z.object({ type: z.literal('sale'), receiptId: PosId, ...common() }));
export type PosSale = z.infer<typeof PosSale>;

export const PosReturn = lazyObject(z.object, () => ({
  type: z.literal('return'),
  returnId: PosId,
  originalReceiptId: PosId,
  /** The whole receipt is taken back (a void): everything not yet returned is debited. */
  fullReturn: z.boolean().default(false),
  ...common(),
}));
export type PosReturn = z.infer<typeof PosReturn>;

export type PosPayload = PosSale | PosReturn;

const SIGNATURE_HEADER = 'X-Signature';

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`; several v1 let a till sign with two secrets during rotation. */
function parseSignatureHeader(value: string): { timestamp: string; macs: Buffer[] } | undefined {
  let timestamp: string | undefined;
  const macs: Buffer[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(val)) timestamp = val;
    if (key === 'v1') {
      const mac = decodeHex(val);
      if (mac) macs.push(mac);
    }
  }
  return timestamp === undefined || macs.length === 0 ? undefined : { timestamp, macs };
}

/** The bytes a POS signs: `<t>.<raw body>`. */
export function posSignedBytes(timestamp: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]);
}

function verify(request: SignedRequest, options: VerifyOptions, settings: PosSettings): SourceError | null {
  const value = header(request.headers, SIGNATURE_HEADER);
  if (!value) return { kind: 'missing_signature', message: 'X-Signature header is missing' };
  const parsed = parseSignatureHeader(value);
  if (!parsed) return { kind: 'invalid_signature', message: 'X-Signature must be t=<unix seconds>,v1=<hex HMAC-SHA256>' };
  const signed = posSignedBytes(parsed.timestamp, request.rawBody);
  const authentic = options.secrets.some((secret) => {
    const expected = hmacSha256(secret, signed);
    return parsed.macs.some((mac) => macEquals(expected, mac));
  });
  if (!authentic) return { kind: 'invalid_signature', message: 'signature does not match' };
  // Checked after the MAC so only an authentic sender learns that its clock or request is stale.
  const skewSeconds = Math.abs(options.nowMs / 1000 - Number(parsed.timestamp));
  if (skewSeconds > settings.timestampToleranceSeconds) {
    return { kind: 'stale_timestamp', message: `signature timestamp is outside the ${settings.timestampToleranceSeconds} s window` };
  }
  return null;
}

function parse(request: SignedRequest): Outcome<PosPayload> {
  const json = parseJsonBody(request.rawBody);
  if (!json.ok) return rejected(json.error);
  const body = json.value;
  const type = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).type : undefined;
  if (typeof type !== 'string') return rejected(invalid('type', 'expected "sale" or "return"'));
  const schema = type === 'sale' ? PosSale : type === 'return' ? PosReturn : undefined;
  // The value is not repeated: answers never echo body content.
  if (!schema) return ignored('document type is not handled');
  const result = schema.safeParse(body);
  return result.success ? ok(result.data) : rejected(schemaError(result.error));
}

function eligibleDecimal(payload: PosPayload, settings: PosSettings): Decimal {
  switch (settings.amount.basis) {
    case 'total':
      return payload.total;
    case 'subtotal':
      return payload.subtotal;
    case 'subtotal_excluding_tax': {
      if (!payload.taxIncluded) return payload.subtotal;
      const net = subtractDecimals(payload.subtotal, payload.tax);
      return compareDecimals(net, ZERO) > 0 ? net : ZERO;
    }
  }
}

function normalise(payload: PosPayload, context: { source: string; settings: PosSettings }): Outcome<PointsEvent> {
  const { source, settings } = context;
  if (payload.test && settings.testOrders === 'ignore') return ignored('test receipt');

  let customer: { externalKey: string; externalId: string } | null = null;
  if (payload.customer?.cardNumber) {
    customer = { externalKey: settings.externalKey, externalId: payload.customer.cardNumber };
  } else if (payload.customer?.externalKey && payload.customer.externalId) {
    const key = payload.customer.externalKey;
    if (key !== settings.externalKey && !settings.allowedExternalKeys.includes(key)) {
      return rejected(invalid('customer.externalKey', 'external key is not configured for this source'));
    }
    customer = { externalKey: key, externalId: payload.customer.externalId };
  }

  const decimal = eligibleDecimal(payload, settings);
  const units = toUnits(decimal, payload.currency, settings.amount.rule);
  // Exact, unrounded: refund shares are computed from it (never negative, like the units).
  const exact = formatDecimal(compareDecimals(decimal, ZERO) > 0 ? decimal : ZERO);
  if (units > 999_999_999n) return rejected(invalid('subtotal', 'amount exceeds 999999999 units'));
  const amount = Number(units);
  const shared = {
    source,
    customer,
    currency: payload.currency,
    occurredAt: payload.issuedAt,
    test: payload.test && settings.testOrders !== 'credit',
  };

  if (payload.type === 'sale') {
    return ok({
      type: 'purchase',
      eventId: `${source}:receipt:${payload.receiptId}`,
      orderId: payload.receiptId,
      ...shared,
      pointTitle: renderTitle(settings.pointTitle, { order: payload.receiptId, orderId: payload.receiptId, source }),
      delivery: { id: `sale:${payload.receiptId}`, topic: 'sale' },
      eligibleAmount: amount,
      eligibleExact: exact,
      expiryDays: settings.expiryDays,
    });
  }
  const order = payload.originalReceiptId;
  return ok({
    type: 'refund',
    eventId: `${source}:return:${order}:${payload.returnId}`,
    orderId: order,
    refundId: payload.returnId,
    ...shared,
    pointTitle: renderTitle(settings.refundTitle, { order, orderId: order, source }),
    delivery: { id: `return:${payload.returnId}`, topic: 'return' },
    refundAmount: amount,
    refundExact: exact,
    refundsRemainder: payload.fullReturn,
  });
}

export const posSource: WebhookSource<PosSettings, PosPayload> = {
  kind: 'pos',
  settingsSchema: PosSettings,
  verify,
  parse,
  normalise,
};
