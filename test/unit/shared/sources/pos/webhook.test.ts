import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PurchaseEvent, RefundEvent } from '../../../../../shared/events/index.js';
import { PosSettings, posSource } from '../../../../../shared/sources/pos/webhook.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import type { Outcome } from '../../../../../shared/sources/types.js';
import { fixture, posHeaders, posSignature } from '../../../../../kit/fixture-webhooks.js';

const SECRET = 'pos_current_4f1d';
const OLD_SECRET = 'pos_previous_9b2a';
const NOW_S = 1_795_000_000;
const NOW = NOW_S * 1000;

function source(settings: Record<string, unknown> = {}) {
  return configureSource(posSource, 'pos', PosSettings.parse(settings));
}

function readBody(body: string, settings: Record<string, unknown> = {}): Outcome<PurchaseEvent | RefundEvent> {
  return source(settings).read({ rawBody: Buffer.from(body), headers: posHeaders(body, SECRET, NOW_S) });
}

function event<T>(outcome: Outcome<unknown>): T {
  if (outcome.status !== 'ok') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
  return outcome.value as T;
}

describe('POS signature', () => {
  const body = fixture('pos/sale.json');
  const verify = (headers: Record<string, string>, opts: { secrets?: string[]; nowMs?: number; tolerance?: number } = {}) =>
    source(opts.tolerance ? { timestampToleranceSeconds: opts.tolerance } : {}).verify(
      { rawBody: Buffer.from(body), headers },
      { secrets: opts.secrets ?? [SECRET], nowMs: opts.nowMs ?? NOW },
    );

  it('accepts a receipt signed with the current secret', () => {
    expect(verify(posHeaders(body, SECRET, NOW_S))).toBeNull();
  });

  it('accepts a receipt signed with the previous secret while both are configured', () => {
    expect(verify(posHeaders(body, OLD_SECRET, NOW_S), { secrets: [SECRET, OLD_SECRET] })).toBeNull();
  });

  it('accepts a header carrying two signatures, one per secret, during a till-side rotation', () => {
    const a = posSignature(OLD_SECRET, body, NOW_S);
    const b = posSignature(SECRET, body, NOW_S).split(',')[1];
    expect(verify({ 'x-signature': `${a},${b}` }, { secrets: [SECRET] })).toBeNull();
  });

  it('rejects a signature made with an unknown secret', () => {
    expect(verify(posHeaders(body, 'someone-else', NOW_S))?.kind).toBe('invalid_signature');
  });

  it('rejects a replay outside the tolerance window, in the past or the future', () => {
    expect(verify(posHeaders(body, SECRET, NOW_S - 301))?.kind).toBe('stale_timestamp');
    expect(verify(posHeaders(body, SECRET, NOW_S + 301))?.kind).toBe('stale_timestamp');
  });

  it('accepts a request at the edge of the default 300 s window', () => {
    expect(verify(posHeaders(body, SECRET, NOW_S - 300))).toBeNull();
  });

  it('uses the configured tolerance', () => {
    expect(verify(posHeaders(body, SECRET, NOW_S - 301), { tolerance: 600 })).toBeNull();
    expect(verify(posHeaders(body, SECRET, NOW_S - 61), { tolerance: 60 })?.kind).toBe('stale_timestamp');
  });

  it('rejects a changed timestamp (the timestamp is signed too)', () => {
    const header = posSignature(SECRET, body, NOW_S).replace(`t=${NOW_S}`, `t=${NOW_S + 1}`);
    expect(verify({ 'x-signature': header })?.kind).toBe('invalid_signature');
  });

  it('reports a missing header as missing and a garbled one as invalid', () => {
    expect(verify({})?.kind).toBe('missing_signature');
    expect(verify({ 'x-signature': 'sha256=abcdef' })?.kind).toBe('invalid_signature');
    expect(verify({ 'x-signature': `t=${NOW_S},v1=zz` })?.kind).toBe('invalid_signature');
  });

  it('finds the header without the X- prefix and in any case', () => {
    expect(verify({ Signature: posSignature(SECRET, body, NOW_S) })).toBeNull();
    expect(verify({ 'X-SIGNATURE': posSignature(SECRET, body, NOW_S) })).toBeNull();
  });

  it('verifies X-Signature even when an unrelated RFC 9421 Signature header comes first', () => {
    expect(verify({ signature: 'sig1=:cGxhaW4=:', 'x-signature': posSignature(SECRET, body, NOW_S) })).toBeNull();
  });

  it('fails verification after any change to the signed body (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const original = Buffer.from(bytes);
        const header = posSignature(SECRET, original, NOW_S);
        const changed = Buffer.from(original);
        const i = at % changed.length;
        changed[i] = (changed[i] as number) ^ flip;
        const s = source();
        const opts = { secrets: [SECRET], nowMs: NOW };
        expect(s.verify({ rawBody: original, headers: { 'x-signature': header } }, opts)).toBeNull();
        expect(s.verify({ rawBody: changed, headers: { 'x-signature': header } }, opts)?.kind).toBe('invalid_signature');
      }),
    );
  });
});

describe('POS sale', () => {
  it('credits the subtotal without the included tax', () => {
    const e = event<PurchaseEvent>(readBody(fixture('pos/sale.json')));
    expect(e).toMatchObject({
      type: 'purchase',
      eventId: 'pos:receipt:S014-R2-20261122-0042',
      orderId: 'S014-R2-20261122-0042',
      eligibleAmount: 2100 - 155,
      currency: 'JPY',
      occurredAt: '2026-11-22T18:42:07+09:00',
      pointTitle: 'Purchase S014-R2-20261122-0042',
      expiryDays: null,
      delivery: { id: 'sale:S014-R2-20261122-0042', topic: 'sale' },
    });
  });

  it('looks the customer up by card number under the pos_card external key', () => {
    expect(event<PurchaseEvent>(readBody(fixture('pos/sale.json'))).customer).toEqual({
      externalKey: 'pos_card',
      externalId: '8000123412345678',
    });
  });

  it('accepts a customer named by another configured external key', () => {
    const body = fixture('pos/sale.json').replace(
      '{ "cardNumber": "8000123412345678" }',
      '{ "externalKey": "line", "externalId": "U4af4980629" }',
    );
    const e = event<PurchaseEvent>(readBody(body, { allowedExternalKeys: ['line'] }));
    expect(e.customer).toEqual({ externalKey: 'line', externalId: 'U4af4980629' });
  });

  it('refuses an external key that is not configured for the POS', () => {
    const body = fixture('pos/sale.json').replace(
      '{ "cardNumber": "8000123412345678" }',
      '{ "externalKey": "shopify", "externalId": "42" }',
    );
    expect(readBody(body)).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'customer.externalKey' } });
  });

  it('records a sale without a customer as such', () => {
    const body = fixture('pos/sale.json').replace('{ "cardNumber": "8000123412345678" }', 'null');
    expect(event<PurchaseEvent>(readBody(body)).customer).toBeNull();
  });

  it('names the field of a malformed amount', () => {
    const body = fixture('pos/sale.json').replace('"subtotal": "2100"', '"subtotal": "2,100"');
    expect(readBody(body)).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'subtotal' } });
  });

  it('tells a sender who writes an amount as a JSON number to send a decimal string', () => {
    const body = fixture('pos/sale.json').replace('"subtotal": "2100"', '"subtotal": 2100');
    expect(readBody(body)).toMatchObject({
      status: 'rejected',
      error: { kind: 'invalid_payload', path: 'subtotal', message: 'subtotal: expected a decimal amount as a string, such as "12.50"' },
    });
  });

  it('refuses a card number with characters the membership service cannot store', () => {
    const body = fixture('pos/sale.json').replace('8000123412345678', '8000 1234');
    expect(readBody(body)).toMatchObject({ status: 'rejected', error: { path: 'customer.cardNumber' } });
  });

  it('ignores a document type it does not handle', () => {
    const body = fixture('pos/sale.json').replace('"type": "sale"', '"type": "x-report"');
    expect(readBody(body)).toEqual({ status: 'ignored', reason: 'document type is not handled' });
  });

  it('refuses a receipt id outside the documented id characters, naming the field', () => {
    const body = fixture('pos/sale.json').replace('"receiptId": "S014-R2-20261122-0042"', '"receiptId": "S014:R2:0042"');
    expect(readBody(body)).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'receiptId' } });
  });

  it('ignores training-mode (test) receipts by default', () => {
    const body = fixture('pos/sale.json').replace('"test": false', '"test": true');
    expect(readBody(body).status).toBe('ignored');
    expect(event<PurchaseEvent>(readBody(body, { testOrders: 'record' })).test).toBe(true);
  });
});

describe('POS return', () => {
  it('debits the returned lines against the original receipt', () => {
    const e = event<RefundEvent>(readBody(fixture('pos/return.json')));
    expect(e).toMatchObject({
      type: 'refund',
      eventId: 'pos:return:S014-R2-20261122-0042:S014-R1-20261123-0007',
      orderId: 'S014-R2-20261122-0042',
      refundId: 'S014-R1-20261123-0007',
      refundAmount: 480 - 35,
      refundsRemainder: false,
      pointTitle: 'Refund S014-R2-20261122-0042',
      delivery: { id: 'return:S014-R1-20261123-0007', topic: 'return' },
    });
  });

  it('marks a full return as refunding what remains', () => {
    const body = fixture('pos/return.json').replace('"fullReturn": false', '"fullReturn": true');
    expect(event<RefundEvent>(readBody(body)).refundsRemainder).toBe(true);
  });

  it('refuses a colon in an id, so that receipt A:B with return C and receipt A with return B:C cannot share an event id', () => {
    const shifted = fixture('pos/return.json')
      .replace('"originalReceiptId": "S014-R2-20261122-0042"', '"originalReceiptId": "S014:R2"')
      .replace('"returnId": "S014-R1-20261123-0007"', '"returnId": "R1"');
    expect(readBody(shifted)).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'originalReceiptId' } });
    const other = fixture('pos/return.json')
      .replace('"originalReceiptId": "S014-R2-20261122-0042"', '"originalReceiptId": "S014"')
      .replace('"returnId": "S014-R1-20261123-0007"', '"returnId": "R2:R1"');
    expect(readBody(other)).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'returnId' } });
  });

  it('requires the original receipt id', () => {
    const body = fixture('pos/return.json').replace('"originalReceiptId": "S014-R2-20261122-0042",', '');
    expect(readBody(body)).toMatchObject({ status: 'rejected', error: { path: 'originalReceiptId' } });
  });
});
