import { describe, expect, it } from 'vitest';
import type { PurchaseEvent, RefundEvent } from '../../../../../shared/events/index.js';
import { configureSource, loadSources } from '../../../../../shared/sources/registry.js';
import { SquareSettings, squareSource } from '../../../../../shared/sources/square/webhook.js';
import type { Outcome } from '../../../../../shared/sources/types.js';
import { fixture, squareHeaders } from '../../../../../kit/fixture-webhooks.js';

// Square's own test vectors (square-nodejs-sdk and square-python-sdk webhook tests), verbatim.
interface Vector {
  url: string;
  sigKey: string;
  body: string;
  signatureHeader: string;
}
const vectors = JSON.parse(fixture('square/signature-vectors.json')) as {
  nodejs: {
    requestBody: string;
    signatureHeader: string;
    signatureKey: string;
    notificationUrl: string;
    wrongNotificationUrl: string;
    wrongSignatureKey: string;
    wrongSignatureHeader: string;
    mismatchedBody: string;
    formattedBody: string;
    unescaped: Vector;
    escaped: Vector;
  };
  python: {
    REQUEST_BODY: string;
    SIGNATURE_HEADER: string;
    SIGNATURE_KEY: string;
    NOTIFICATION_URL: string;
    body_mismatch_request_body: string;
  };
};
const V = vectors.nodejs;

const KEY = 'square-demo-key-current';
const URL_ = 'https://hooks.example.com/webhooks/square';

function source(settings: Record<string, unknown> = {}) {
  return configureSource(squareSource, 'square', SquareSettings.parse({ notificationUrl: URL_, ...settings }));
}

function verify(body: string, signature: string | undefined, opts: { keys?: string[]; url?: string } = {}) {
  const headers: Record<string, string> = signature === undefined ? {} : { 'x-square-hmacsha256-signature': signature };
  return configureSource(squareSource, 'square', SquareSettings.parse({ notificationUrl: opts.url ?? V.notificationUrl })).verify(
    { rawBody: Buffer.from(body), headers },
    { secrets: opts.keys ?? [V.signatureKey], nowMs: Date.now() },
  );
}

function read(body: string, settings: Record<string, unknown> = {}): Outcome<PurchaseEvent | RefundEvent> {
  return source(settings).read({ rawBody: Buffer.from(body), headers: squareHeaders(body, KEY, URL_) });
}

function event<T>(outcome: Outcome<unknown>): T {
  if (outcome.status !== 'ok') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
  return outcome.value as T;
}

/** A fixture with one change to its payment or refund object. */
function variant(path: string, change: (object: Record<string, unknown>) => void): string {
  const body = JSON.parse(fixture(path)) as { data: { object: Record<string, Record<string, unknown>> } };
  const object = body.data.object.payment ?? body.data.object.refund;
  if (!object) throw new Error('fixture has no payment or refund');
  change(object);
  return JSON.stringify(body);
}

describe('Square signature (Square SDK test vectors)', () => {
  it("accepts the SDKs' signed test notification with its key and notification URL", () => {
    expect(verify(V.requestBody, V.signatureHeader)).toBeNull();
    const P = vectors.python;
    expect(verify(P.REQUEST_BODY, P.SIGNATURE_HEADER, { keys: [P.SIGNATURE_KEY], url: P.NOTIFICATION_URL })).toBeNull();
  });

  it('accepts the vectors with unescaped and escaped characters in the body', () => {
    for (const v of [V.unescaped, V.escaped]) {
      expect(verify(v.body, v.signatureHeader, { keys: [v.sigKey], url: v.url })).toBeNull();
    }
  });

  it('rejects the vector when the configured notification URL differs', () => {
    expect(verify(V.requestBody, V.signatureHeader, { url: V.wrongNotificationUrl })?.kind).toBe('invalid_signature');
  });

  it('rejects the vector under another signature key', () => {
    expect(verify(V.requestBody, V.signatureHeader, { keys: [V.wrongSignatureKey] })?.kind).toBe('invalid_signature');
  });

  it('rejects a wrong signature header', () => {
    expect(verify(V.requestBody, V.wrongSignatureHeader)?.kind).toBe('invalid_signature');
  });

  it('rejects the signature over a body that differs, even only in formatting', () => {
    expect(verify(V.mismatchedBody, V.signatureHeader)?.kind).toBe('invalid_signature');
    expect(verify(V.formattedBody, V.signatureHeader)?.kind).toBe('invalid_signature');
    expect(verify(vectors.python.body_mismatch_request_body, V.signatureHeader)?.kind).toBe('invalid_signature');
  });

  it('accepts a delivery signed with the previous key while both keys are configured (rotation)', () => {
    expect(verify(V.requestBody, V.signatureHeader, { keys: ['the-new-key', V.signatureKey] })).toBeNull();
  });

  it('refuses a delivery without the signature header as missing', () => {
    expect(verify(V.requestBody, undefined)?.kind).toBe('missing_signature');
  });

  it('refuses a header that is not base64', () => {
    expect(verify(V.requestBody, 'not base64!')?.kind).toBe('invalid_signature');
  });

  it('finds the header whatever the case of its name', () => {
    const headers = { 'X-Square-HmacSha256-Signature': V.signatureHeader };
    const s = configureSource(squareSource, 'square', SquareSettings.parse({ notificationUrl: V.notificationUrl }));
    expect(s.verify({ rawBody: Buffer.from(V.requestBody), headers }, { secrets: [V.signatureKey], nowMs: 0 })).toBeNull();
  });

  it('refuses every delivery, saying why, when no notification URL is configured', () => {
    const s = configureSource(squareSource, 'square', SquareSettings.parse({}));
    const error = s.verify(
      { rawBody: Buffer.from(V.requestBody), headers: { 'x-square-hmacsha256-signature': V.signatureHeader } },
      { secrets: [V.signatureKey], nowMs: 0 },
    );
    expect(error).toMatchObject({ kind: 'invalid_signature', message: expect.stringContaining('notification URL') });
  });
});

describe('Square payments', () => {
  it("turns a COMPLETED payment.updated (Square's example) into a purchase keyed by the payment id", () => {
    const e = event<PurchaseEvent>(read(fixture('square/payment-updated.json')));
    expect(e).toMatchObject({
      type: 'purchase',
      eventId: 'square:payment:hYy9pRFVxpDsO1FB05SunFWUe9JZY',
      orderId: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
      currency: 'USD',
      customer: null,
      occurredAt: '2020-11-22T21:16:51.086Z',
      delivery: { id: '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc', topic: 'payment.updated' },
      pointTitle: 'Purchase hYy9pRFVxpDsO1FB05SunFWUe9JZY',
    });
  });

  it('reads amount_money as minor units: 100 cents is 1 dollar, or 100 with rule minor', () => {
    expect(event<PurchaseEvent>(read(fixture('square/payment-updated.json'))).eligibleAmount).toBe(1);
    expect(event<PurchaseEvent>(read(fixture('square/payment-updated.json'), { amount: { rule: 'minor' } })).eligibleAmount).toBe(100);
  });

  it('earns on a yen payment without the tip by default, and with it on basis total', () => {
    const body = fixture('square/ours-payment-updated-jpy-tip-customer.json');
    expect(event<PurchaseEvent>(read(body)).eligibleAmount).toBe(12_000);
    expect(event<PurchaseEvent>(read(body, { amount: { basis: 'total' } })).eligibleAmount).toBe(13_000);
  });

  it('looks the customer up by the external key square, or the one configured', () => {
    const body = fixture('square/ours-payment-updated-jpy-tip-customer.json');
    expect(event<PurchaseEvent>(read(body)).customer).toEqual({ externalKey: 'square', externalId: 'JDKYHBWT1D4F8MFH63DBMEN8Y4' });
    expect(event<PurchaseEvent>(read(body, { externalKey: 'square_jp' })).customer?.externalKey).toBe('square_jp');
  });

  it('keeps a customer-less payment open to a later customer for the configured window', () => {
    const body = fixture('square/ours-payment-updated-jpy-no-customer.json');
    expect(event<PurchaseEvent>(read(body)).customerMatchWindowSeconds).toBe(86_400);
    expect(event<PurchaseEvent>(read(body, { customerMatchWindowSeconds: 0 })).customerMatchWindowSeconds).toBeUndefined();
  });

  it("ignores an APPROVED payment.created (Square's example: authorised, not captured)", () => {
    expect(read(fixture('square/payment-created.json'))).toMatchObject({
      status: 'ignored',
      reason: 'payment status APPROVED moves no points',
    });
  });

  it.each(['PENDING', 'CANCELED', 'FAILED'])('ignores a payment with status %s', (status) => {
    const body = variant('square/payment-updated.json', (p) => (p.status = status));
    expect(read(body).status).toBe('ignored');
  });

  it('ignores a status it does not know without repeating it', () => {
    const body = variant('square/payment-updated.json', (p) => (p.status = 'SOMETHING_NEW'));
    expect(read(body)).toMatchObject({ status: 'ignored', reason: 'payment status is not COMPLETED' });
  });

  it('refuses a negative amount with the field path', () => {
    const body = variant('square/payment-updated.json', (p) => (p.amount_money = { amount: -100, currency: 'USD' }));
    expect(read(body)).toMatchObject({
      status: 'rejected',
      error: { kind: 'invalid_payload', path: 'data.object.payment.amount_money.amount' },
    });
  });

  it('refuses a total in another currency than the amount', () => {
    const body = variant('square/payment-updated.json', (p) => (p.total_money = { amount: 100, currency: 'EUR' }));
    expect(read(body, { amount: { basis: 'total' } })).toMatchObject({
      status: 'rejected',
      error: { path: 'data.object.payment.total_money.currency' },
    });
  });

  it('refuses a payment id with a colon, which would make event ids ambiguous', () => {
    const body = variant('square/payment-updated.json', (p) => (p.id = 'a:b'));
    expect(read(body)).toMatchObject({ status: 'rejected', error: { path: 'data.object.payment.id' } });
  });
});

describe('Square refunds', () => {
  it("ignores a PENDING refund.created (Square's example)", () => {
    expect(read(fixture('square/refund-created.json'))).toMatchObject({
      status: 'ignored',
      reason: 'refund status PENDING moves no points',
    });
  });

  it("turns a COMPLETED refund.updated (Square's example) into a refund of its payment", () => {
    const e = event<RefundEvent>(read(fixture('square/refund-updated.json')));
    expect(e).toMatchObject({
      type: 'refund',
      eventId: 'square:refund:KkAkhdMsgzn59SM8A89WgKwekxLZY:KkAkhdMsgzn59SM8A89WgKwekxLZY_ptNBVqHYxt5gAdfcobBe4u1AZsXhoz06KTtuq9Ls24P',
      orderId: 'KkAkhdMsgzn59SM8A89WgKwekxLZY',
      refundId: 'KkAkhdMsgzn59SM8A89WgKwekxLZY_ptNBVqHYxt5gAdfcobBe4u1AZsXhoz06KTtuq9Ls24P',
      customer: null,
      refundAmount: 10,
      refundsRemainder: false,
      delivery: { id: 'bc316346-6691-4243-88ed-6d651a0d0c47', topic: 'refund.updated' },
    });
  });

  it('refunds a yen amount as is', () => {
    expect(event<RefundEvent>(read(fixture('square/ours-refund-updated-jpy-partial.json'))).refundAmount).toBe(3000);
  });

  it.each(['REJECTED', 'FAILED'])('ignores a refund with status %s', (status) => {
    const body = variant('square/refund-updated.json', (r) => (r.status = status));
    expect(read(body).status).toBe('ignored');
  });

  it('marks an unlinked refund so it is recorded as skipped, under the order "unlinked"', () => {
    const e = event<RefundEvent>(read(fixture('square/ours-refund-updated-unlinked.json')));
    expect(e).toMatchObject({ unlinked: true, orderId: 'unlinked', refundId: 'UNLINKEDREFUNDhYy9pRFVxpDsO1FB05Sun' });
  });
});

describe('Square other deliveries', () => {
  it('answers the test notification (the SDK vector body) ignored', () => {
    expect(read(V.requestBody)).toMatchObject({ status: 'ignored', reason: 'event type is not handled' });
  });

  it('answers other event types ignored', () => {
    expect(read('{"type":"customer.created","event_id":"x","data":{}}').status).toBe('ignored');
  });

  it('refuses a body that is not JSON', () => {
    expect(read('{"type":')).toMatchObject({ status: 'rejected', error: { kind: 'malformed_json' } });
  });

  it('refuses a payment event without event_id', () => {
    const body = JSON.parse(fixture('square/payment-updated.json')) as Record<string, unknown>;
    delete body.event_id;
    expect(read(JSON.stringify(body))).toMatchObject({ status: 'rejected', error: { path: 'event_id' } });
  });
});

describe('Square settings', () => {
  it('serves /webhooks/square when configured, kind square', () => {
    const sources = loadSources(JSON.stringify({ square: { notificationUrl: URL_ } }));
    expect(sources.get('square')).toMatchObject({ name: 'square', kind: 'square' });
  });

  it('is not enabled unless configured', () => {
    expect(loadSources(undefined).has('square')).toBe(false);
  });

  it('refuses a notification URL that is not an http(s) URL, naming the field', () => {
    expect(() => loadSources(JSON.stringify({ square: { notificationUrl: 'ftp://x' } }))).toThrow(/square\.notificationUrl/);
  });
});
