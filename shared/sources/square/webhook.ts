import * as z from 'zod';
import type { PointsEvent } from '../../events/index.js';
import { header } from '../headers.js';
import { parseJsonBody } from '../json.js';
import { type AmountRule, currencyDigits, toUnits } from '../../money/index.js';
import { CurrencyCode, DateTimeWithOffset, invalid, schemaError } from '../payload.js';
import { EXTERNAL_ID, renderTitle } from '../settings.js';
import { decodeBase64, hmacSha256, macEquals } from '../signature.js';
import type { Outcome, SignedRequest, SourceError, VerifyOptions, WebhookSource } from '../types.js';
import { ignored, ok, rejected } from '../types.js';
import { SquareAmountFrom } from './thin.js';
import { lazyObject, lazySchema } from '../../schema/index.js';
import { SquareSettings } from './settings.js';

export { SquareSettings } from './settings.js';

/**
 * Square webhooks (payment.created/updated, refund.created/updated), as Square's API reference
 * describes them: a Payment or PaymentRefund object under `data.object`, money in integer minor units.
 */

// Square's ids are letters, digits, `_` and `-` (refund ids are `<payment id>_<suffix>`); no ':' so
// the event ids they are joined into stay unambiguous.
const SquareId = lazySchema(() => z.string().regex(/^[A-Za-z0-9_-]{1,192}$/, 'expected 1-192 letters, digits, _ or -'));
const EventId = lazySchema(() => z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'expected 1-128 letters, digits, . _ or -'));

/** Money: `amount` in the currency's smallest unit (cents; yen for JPY, which has no minor unit). */
const Money = lazyObject(z.object, () => ({
  amount: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  currency: CurrencyCode,
}));
type Money = z.infer<typeof Money>;

const envelope = () => ({
  merchant_id: z.string().optional(),
  event_id: EventId,
  created_at: z.string().optional(),
});

/** What a completed payment and a completed refund both carry. */
const completed = () => ({
  id: SquareId,
  status: z.literal('COMPLETED'),
  amount_money: Money,
  created_at: DateTimeWithOffset,
});

export const SquarePayment = lazyObject(z.object, () => ({
  ...completed(),
  tip_money: Money.optional(),
  total_money: Money.optional(),
  customer_id: z.string().regex(EXTERNAL_ID, 'expected 1-255 letters, digits, or * - . _').optional(),
  order_id: z.string().optional(),
  location_id: z.string().optional(),
}));

export const SquareRefund = lazyObject(z.object, () => ({
  ...completed(),
  payment_id: SquareId.optional(),
  unlinked: z.boolean().optional(),
}));

const PaymentEvent = lazyObject(z.object, () => ({
  ...envelope(),
  type: z.enum(['payment.created', 'payment.updated']),
  data: z.object({ object: z.object({ payment: SquarePayment }) }),
}));
const RefundEvent = lazyObject(z.object, () => ({
  ...envelope(),
  type: z.enum(['refund.created', 'refund.updated']),
  data: z.object({ object: z.object({ refund: SquareRefund }) }),
}));
export type SquarePayload = z.infer<typeof PaymentEvent> | z.infer<typeof RefundEvent>;

const SIGNATURE_HEADER = 'x-square-hmacsha256-signature';

/** The other statuses of Square's reference (Payment.status, PaymentRefund.status). */
const PAYMENT_STATUSES: readonly string[] = ['APPROVED', 'PENDING', 'CANCELED', 'FAILED'];
const REFUND_STATUSES: readonly string[] = ['PENDING', 'REJECTED', 'FAILED'];

/** The bytes Square signs: the notification URL followed by the raw body. */
export function squareSignedBytes(notificationUrl: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(notificationUrl, 'utf8'), rawBody]);
}

function verify(request: SignedRequest, options: VerifyOptions, settings: SquareSettings): SourceError | null {
  const value = header(request.headers, SIGNATURE_HEADER);
  if (!value) return { kind: 'missing_signature', message: 'x-square-hmacsha256-signature header is missing' };
  if (!settings.notificationUrl) {
    return { kind: 'invalid_signature', message: 'the notification URL of this source is not configured, so no signature can match' };
  }
  const claimed = decodeBase64(value);
  if (!claimed) return { kind: 'invalid_signature', message: 'x-square-hmacsha256-signature must be base64 HMAC-SHA256' };
  const signed = squareSignedBytes(settings.notificationUrl, request.rawBody);
  const authentic = options.secrets.some((key) => macEquals(hmacSha256(key, signed), claimed));
  return authentic ? null : { kind: 'invalid_signature', message: 'signature does not match' };
}

function objectField(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function parse(request: SignedRequest): Outcome<SquarePayload> {
  const json = parseJsonBody(request.rawBody);
  if (!json.ok) return rejected(json.error);
  const body = json.value;
  const type = objectField(body, 'type');
  if (typeof type !== 'string') return rejected(invalid('type', 'expected the Square event type'));
  const kind =
    type === 'payment.created' || type === 'payment.updated'
      ? 'payment'
      : type === 'refund.created' || type === 'refund.updated'
        ? 'refund'
        : undefined;
  // The value is not repeated: answers never echo body content.
  if (!kind) return ignored('event type is not handled');
  // Only COMPLETED money moves points: APPROVED (authorised, not captured), PENDING, CANCELED, FAILED,
  // REJECTED earn or debit nothing, and a later delivery brings the COMPLETED state.
  const status = objectField(objectField(objectField(objectField(body, 'data'), 'object'), kind), 'status');
  if (status !== 'COMPLETED') {
    if (typeof status !== 'string') return rejected(invalid(`data.object.${kind}.status`, 'expected a Square status such as "COMPLETED"'));
    // Only Square's own status names are repeated in the answer, never other body content.
    const known = (kind === 'payment' ? PAYMENT_STATUSES : REFUND_STATUSES).includes(status);
    return ignored(known ? `${kind} status ${status} moves no points` : `${kind} status is not COMPLETED`);
  }
  const result = (kind === 'payment' ? PaymentEvent : RefundEvent).safeParse(body);
  return result.success ? ok(result.data) : rejected(schemaError(result.error));
}

/** Integer units of a Square amount by the configured rule (Square's amount is already in minor units). */
function units(money: Money, rule: AmountRule): bigint {
  return toUnits({ units: BigInt(money.amount), scale: currencyDigits(money.currency) }, money.currency, rule);
}

const MAX_UNITS = 999_999_999n;

/** For the `subtotal_excluding_tax` basis: where the worker reads the amount (the payment's order). */
function orderAmount(payment: z.infer<typeof SquarePayment>, settings: SquareSettings) {
  if (settings.amount.basis !== 'subtotal_excluding_tax' || !payment.order_id || !ORDER_ID.test(payment.order_id)) return {};
  const paymentMinor = payment.total_money?.amount ?? payment.amount_money.amount + (payment.tip_money?.amount ?? 0);
  return { amountFrom: { kind: 'square_order' as const, orderId: payment.order_id, paymentMinor, rule: settings.amount.rule } };
}
const ORDER_ID = /^[A-Za-z0-9_-]{1,192}$/;

function normalise(payload: SquarePayload, context: { source: string; settings: SquareSettings }): Outcome<PointsEvent> {
  const { source, settings } = context;
  const delivery = {
    id: payload.event_id,
    topic: payload.type,
    eventId: payload.event_id,
    ...(payload.created_at ? { triggeredAt: payload.created_at } : {}),
  };

  if ('payment' in payload.data.object) {
    const payment = payload.data.object.payment;
    const money = settings.amount.basis === 'total' ? payment.total_money : payment.amount_money;
    const path = `data.object.payment.${settings.amount.basis === 'total' ? 'total_money' : 'amount_money'}`;
    if (!money) return rejected(invalid(path, 'required for amount basis "total"'));
    if (money.currency !== payment.amount_money.currency)
      return rejected(invalid(`${path}.currency`, 'differs from amount_money.currency'));
    const eligible = units(money, settings.amount.rule);
    if (eligible > MAX_UNITS) return rejected(invalid(path, 'amount exceeds 999999999 units'));
    return ok({
      type: 'purchase',
      eventId: `${source}:payment:${payment.id}`,
      orderId: payment.id,
      source,
      customer: payment.customer_id ? { externalKey: settings.externalKey, externalId: payment.customer_id } : null,
      currency: money.currency,
      occurredAt: payment.created_at,
      test: false,
      pointTitle: renderTitle(settings.pointTitle, { order: payment.id, orderId: payment.id, source }),
      delivery,
      eligibleAmount: Number(eligible),
      ...orderAmount(payment, settings),
      expiryDays: settings.expiryDays,
      ...(settings.customerMatchWindowSeconds > 0 ? { customerMatchWindowSeconds: settings.customerMatchWindowSeconds } : {}),
    });
  }

  const refund = payload.data.object.refund;
  const amount = units(refund.amount_money, settings.amount.rule);
  if (amount > MAX_UNITS) return rejected(invalid('data.object.refund.amount_money', 'amount exceeds 999999999 units'));
  // An unlinked refund (Square's flag; no payment_id) gives money back for no payment of ours: it is
  // recorded as skipped under the pseudo-order `unlinked`, so it can be looked up like any refund.
  const unlinked = refund.unlinked === true || refund.payment_id === undefined;
  const order = unlinked ? 'unlinked' : (refund.payment_id as string);
  return ok({
    type: 'refund',
    eventId: `${source}:refund:${order}:${refund.id}`,
    orderId: order,
    refundId: refund.id,
    source,
    customer: null,
    currency: refund.amount_money.currency,
    occurredAt: refund.created_at,
    test: false,
    pointTitle: renderTitle(settings.refundTitle, { order, orderId: order, source }),
    delivery,
    refundAmount: Number(amount),
    refundsRemainder: false,
    ...(unlinked ? { unlinked: true } : {}),
  });
}

export const squareSource: WebhookSource<SquareSettings, SquarePayload> = {
  kind: 'square',
  settingsSchema: SquareSettings,
  verify,
  parse,
  normalise,
  thinPart: { key: 'amountFrom', kind: 'square_order', schema: SquareAmountFrom },
};
