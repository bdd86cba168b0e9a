import { beforeEach, describe, expect, it } from 'vitest';
import { purchaseMarker, refundMarker } from '../../../../shared/points/index.js';
import type { PurchaseEvent, RefundEvent } from '../../../../shared/events/index.js';
import { configureSource } from '../../../../shared/sources/registry.js';
import { SquareSettings, squareSource } from '../../../../shared/sources/square/webhook.js';
import { testClient } from '../../../support/emulator.js';
import { fixture, squareHeaders } from '../../../../kit/fixture-webhooks.js';
import { CALCULATION, MEMBERS, emulatorConfig, useHarness } from './harness.js';

/**
 * Square's asynchronous customer matching, end to end through the real Square source (Square's
 * payloads, signed and read as the intake reads them), the real emulator and dynalite: a completed
 * payment first seen without `customer_id` still earns once a later payment.updated names the
 * customer, within the window, and never twice, whatever the order and repetition of deliveries.
 */

const h = useHarness();
const SQUARE_CUSTOMER = 'JDKYHBWT1D4F8MFH63DBMEN8Y4';
const WINDOW_SECONDS = 3600;
const URL_ = 'https://hooks.example.com/webhooks/square';
const KEY = 'square-test-key';

beforeEach(async () => {
  // Square's published examples are from 2020: the processor's clock stands just after them (the replay window).
  h.clock.set(Date.parse('2020-11-23T00:00:00Z'));
  // The gold member (5%) is also known to Square under its customer id.
  const members = MEMBERS.map((m) => (m.id === 'member-gold' ? { ...m, external_ids: { ...m.external_ids, square: SQUARE_CUSTOMER } } : m));
  await h.emulator.reset({ ...emulatorConfig(), clients: [testClient({ members, external_keys: ['shopify', 'pos_card', 'square'] })] });
});

const square = configureSource(
  squareSource,
  'square',
  SquareSettings.parse({ notificationUrl: URL_, customerMatchWindowSeconds: WINDOW_SECONDS }),
);

function read<T>(body: string): T {
  const out = square.read({ rawBody: Buffer.from(body), headers: squareHeaders(body, KEY, URL_) });
  if (out.status !== 'ok') throw new Error(`expected an event: ${JSON.stringify(out)}`);
  return out.value as T;
}

let payments = 0;
/** A ¥12,000 COMPLETED payment (our yen fixture) with a unique id, with or without the customer. */
function payment(opts: { id?: string; customer: boolean; eventId?: string }): PurchaseEvent {
  const body = JSON.parse(fixture('square/ours-payment-updated-jpy-tip-customer.json'));
  const p = body.data.object.payment;
  p.id = opts.id ?? `late${process.pid}x${++payments}`;
  body.data.id = p.id;
  body.event_id = opts.eventId ?? `evt-${p.id}-${opts.customer ? 'c' : 'n'}`;
  if (!opts.customer) delete p.customer_id;
  return read<PurchaseEvent>(JSON.stringify(body));
}

function refundOf(paymentId: string, refundId: string, amount: number): RefundEvent {
  const body = JSON.parse(fixture('square/ours-refund-updated-jpy-partial.json'));
  const r = body.data.object.refund;
  Object.assign(r, { id: refundId, payment_id: paymentId, amount_money: { amount, currency: 'JPY' } });
  body.event_id = `evt-${refundId}`;
  return read<RefundEvent>(JSON.stringify(body));
}

const credits = (e: PurchaseEvent) => h.entries('member-gold', purchaseMarker(e.source, e.orderId));

describe('Square: a customer attached after the payment completed', () => {
  it('earns once a later payment.updated names the customer, and a copy of either delivery adds nothing', async () => {
    const anonymous = payment({ customer: false });
    const named = payment({ id: anonymous.orderId, customer: true });
    const p = h.processor();
    expect(await p.process(anonymous)).toMatchObject({ kind: 'skipped', reason: 'no_customer', action: 'ack' });
    expect(await h.ledger.getOrder(anonymous)).toMatchObject({
      state: 'done',
      outcome: 'skipped',
      awaitingCustomerUntil: expect.any(Number),
    });
    expect(await p.process(named)).toMatchObject({ kind: 'credited', points: 600 });
    expect(await p.process(named)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await p.process(anonymous)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await credits(named)).toEqual([600]);
    expect(await h.ledger.getOrder(named)).toMatchObject({ outcome: 'credited', customerId: 'member-gold', externalKey: 'square' });
  });

  it('earns once when the delivery naming the customer comes first and the customer-less one after', async () => {
    const anonymous = payment({ customer: false });
    const named = payment({ id: anonymous.orderId, customer: true });
    expect(await h.processor().process(named)).toMatchObject({ kind: 'credited' });
    expect(await h.processor().process(anonymous)).toMatchObject({ kind: 'duplicate', previous: 'credited', action: 'ack' });
    expect(await credits(named)).toEqual([600]);
  });

  it('a copy of the customer-less delivery keeps the order open to the customer', async () => {
    const anonymous = payment({ customer: false });
    expect(await h.processor().process(anonymous)).toMatchObject({ kind: 'skipped' });
    expect(await h.processor().process(anonymous)).toMatchObject({ kind: 'duplicate', previous: 'skipped' });
    expect(await h.processor().process(payment({ id: anonymous.orderId, customer: true }))).toMatchObject({ kind: 'credited' });
  });

  it('after the window the customer-less outcome is final and a late customer earns nothing', async () => {
    const anonymous = payment({ customer: false });
    await h.processor().process(anonymous);
    h.clock.advance(WINDOW_SECONDS * 1000 + 1);
    expect(await h.processor().process(payment({ id: anonymous.orderId, customer: true }))).toMatchObject({
      kind: 'duplicate',
      previous: 'skipped',
    });
    expect(await credits(anonymous)).toEqual([]);
    expect(await h.calls(CALCULATION)).toBe(0);
  });

  it('a customer-less delivery arriving while the named one holds the order is acknowledged and changes nothing', async () => {
    const anonymous = payment({ customer: false });
    const named = payment({ id: anonymous.orderId, customer: true });
    const [first, second] = await h.whileHeldAt('purchase:claimed', named, () => h.processor().process(anonymous));
    expect(second).toMatchObject({ kind: 'duplicate', previous: 'pending', action: 'ack' });
    expect(first).toMatchObject({ kind: 'credited' });
    expect(await credits(named)).toEqual([600]);
  });

  it('two deliveries naming the customer at once re-open the order once: one credits, the other retries then sees a duplicate', async () => {
    const anonymous = payment({ customer: false });
    const named = payment({ id: anonymous.orderId, customer: true });
    const copy = payment({ id: anonymous.orderId, customer: true, eventId: `evt-${anonymous.orderId}-copy` });
    await h.processor().process(anonymous);
    const [a, b] = await Promise.all([h.processor().process(named), h.processor().process(copy)]);
    expect([a.kind, b.kind].sort()).toEqual(['credited', 'lease_held']);
    expect(await h.processor().process(copy)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await credits(named)).toEqual([600]);
  });

  it('a refund while the payment awaits its customer waits, and is debited once the customer is named', async () => {
    const anonymous = payment({ customer: false });
    const named = payment({ id: anonymous.orderId, customer: true });
    const partial = refundOf(anonymous.orderId, `${anonymous.orderId}_r1`, 3000);
    await h.processor().process(anonymous);
    expect(await h.processor().process(partial)).toMatchObject({ kind: 'refund_waiting', action: 'retry' });
    const credited = await h.processor().process(named);
    expect(credited).toMatchObject({
      kind: 'credited',
      points: 600,
      followUps: [{ refundId: partial.refundId, kind: 'debited', points: 150 }],
    });
    expect(await h.processor().process(partial)).toMatchObject({ kind: 'duplicate', previous: 'debited' });
    expect(await h.entries('member-gold', refundMarker('square', anonymous.orderId, partial.refundId))).toEqual([-150]);
    expect(await h.balance('member-gold')).toBe(450);
  });

  it('a refund before any delivery of its payment waits, then is debited when the named payment comes', async () => {
    const named = payment({ customer: true });
    const partial = refundOf(named.orderId, `${named.orderId}_r1`, 3000);
    expect(await h.processor().process(partial)).toMatchObject({ kind: 'refund_waiting' });
    expect(await h.processor().process(payment({ id: named.orderId, customer: false }))).toMatchObject({ kind: 'skipped' });
    expect(await h.processor().process(named)).toMatchObject({ kind: 'credited', followUps: [{ kind: 'debited', points: 150 }] });
    expect(await h.balance('member-gold')).toBe(450);
  });

  it('a refund of a payment whose window closed without a customer is skipped, debiting nothing', async () => {
    const anonymous = payment({ customer: false });
    await h.processor().process(anonymous);
    h.clock.advance(WINDOW_SECONDS * 1000 + 1);
    const partial = refundOf(anonymous.orderId, `${anonymous.orderId}_r1`, 3000);
    expect(await h.processor().process(partial)).toMatchObject({ kind: 'skipped', reason: 'order_not_credited' });
  });
});

describe('Square: unlinked refunds', () => {
  it('records an unlinked refund as skipped with its reason, once', async () => {
    const event = read<RefundEvent>(fixture('square/ours-refund-updated-unlinked.json'));
    expect(await h.processor().process(event)).toMatchObject({ kind: 'skipped', reason: 'unlinked_refund', action: 'ack' });
    expect(await h.ledger.getRefund(event)).toMatchObject({
      state: 'done',
      outcome: 'skipped',
      reason: expect.stringContaining('unlinked'),
    });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'duplicate', previous: 'skipped' });
  });
});
