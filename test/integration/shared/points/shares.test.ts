import { describe, expect, it } from 'vitest';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { purchaseMarker, refundMarker, SUPERSEDED_SHARE, shareOrderId } from '../../../../shared/points/index.js';
import { CALCULATION, fulfilment, purchase, refund, useHarness } from './harness.js';

const h = useHarness();
const GOLD = 'member-gold';

/**
 * Issue 53: partial fulfilments under earnAfter fulfilled. Gold earns 5%. ¥1038 in two shipments of ¥519:
 * one calculation on the whole gives 51 points, two per-share calculations would give 25 + 25 = 50.
 */
const paid = () => purchase({ earnAfter: { kind: 'fulfilled' }, eligibleAmount: 1038, eligibleExact: '1038' });
/** Shopify's orders/partially_fulfilled of the same order: the whole order, `num/den` of it shipped so far. */
const partial = (p: PurchaseEvent, num: number, den: number): PurchaseEvent => ({
  ...p,
  eventId: `${p.eventId}:shipped:${num}/${den}`,
  delivery: { id: `${p.delivery.id}-shipped-${num}-${den}`, topic: 'orders/partially_fulfilled' },
  earnMoment: 'partial',
  shipped: { num: String(num), den: String(den) },
});
const shareEntries = (p: PurchaseEvent, amount: number) => h.entries(GOLD, purchaseMarker('shopify', shareOrderId(p.orderId, amount)));
const shareBack = (p: PurchaseEvent, amount: number) =>
  h.entries(GOLD, refundMarker('shopify', shareOrderId(p.orderId, amount), SUPERSEDED_SHARE));

describe('partial fulfilments: each shipped share earns, the whole order ends at one calculation', () => {
  it('a first shipment earns its share at once, with its own marker', async () => {
    const p = paid();
    await h.processor().process(p);
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await shareEntries(p, 519)).toEqual([25]);
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'pending_earn', shippedShares: ['519'] });
    expect(await h.balance(GOLD)).toBe(25);
  });

  it('two shipments end at one calculation on the whole order (51), not the sum of two shares (50)', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([51]);
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(51);
  });

  it('a partial fulfilment delivered twice earns once', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await shareEntries(p, 519)).toEqual([25]);
    expect(await h.calls(CALCULATION)).toBe(1);
    expect(await h.balance(GOLD)).toBe(25);
  });

  it('a larger share replaces the smaller one, which a late redelivery does not bring back', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 3));
    await h.processor().process(partial(p, 2, 3));
    await h.processor().process(partial(p, 1, 3));
    expect(await shareEntries(p, 346)).toEqual([17]);
    expect(await shareBack(p, 346)).toEqual([-17]);
    expect(await shareEntries(p, 692)).toEqual([34]);
    expect(await h.balance(GOLD)).toBe(34);
  });

  it('two shipments processed at once keep the larger share, whichever finishes last', async () => {
    const p = paid();
    await h.processor().process(p);
    const [first] = await h.whileHeldAt('purchase:granted', partial(p, 1, 3), () => h.processor().process(partial(p, 2, 3)));
    expect(first).toMatchObject({ kind: 'credited' });
    expect(await shareBack(p, 692)).toEqual([]);
    expect(await shareBack(p, 346)).toEqual([-17]);
    expect(await h.balance(GOLD)).toBe(34);
  });

  it('a partial fulfilment delivered after the order was fulfilled changes nothing', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(fulfilment(p));
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await shareEntries(p, 519)).toEqual([]);
    expect(await h.calls(CALCULATION)).toBe(1);
    expect(await h.balance(GOLD)).toBe(51);
  });

  it('a partial fulfilment that ships every line is the order’s moment: the whole order earns', async () => {
    const p = paid();
    await h.processor().process(p);
    expect(await h.processor().process(partial(p, 2, 2))).toMatchObject({ kind: 'credited' });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([51]);
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'duplicate' });
    expect(await h.balance(GOLD)).toBe(51);
  });

  it('a partial fulfilment delivered before the payment records the order provisional first, then earns its share', async () => {
    const p = paid();
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'credited' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'duplicate', previous: 'pending_earn' });
    expect(await h.balance(GOLD)).toBe(25);
  });
});

describe('partial fulfilments: waiting and unknown customers', () => {
  it('a partial fulfilment while the payment is being processed is retried, not dropped', async () => {
    const p = paid();
    const [, meanwhile] = await h.whileHeldAt('purchase:claimed', p, () => h.processor().process(partial(p, 1, 2)));
    expect(meanwhile).toMatchObject({ action: 'retry' });
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'credited' });
    expect(await h.balance(GOLD)).toBe(25);
  });

  it('a share of a customer with no member earns nothing and is not kept for a later link (the whole order is)', async () => {
    const p = purchase({
      earnAfter: { kind: 'fulfilled' },
      eligibleAmount: 1038,
      customer: { externalKey: 'shopify', externalId: 'cust-nobody' },
    });
    await h.processor().process(p);
    expect(await h.processor().process(partial(p, 1, 2))).toMatchObject({ kind: 'customer_not_found' });
    const share = await h.ledger.getOrder({ source: 'shopify', orderId: shareOrderId(p.orderId, 519) });
    expect(share).toMatchObject({ outcome: 'customer_not_found' });
    expect(share?.unlinkedCustomer).toBeUndefined();
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'pending_earn' });
  });
});

describe('partial fulfilments: crashes', () => {
  it('a crash after a larger share is recorded: its redelivery takes the smaller share back, once', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 3));
    await h.crashAt('purchase:recorded', partial(p, 2, 3));
    expect(await h.balance(GOLD)).toBe(17 + 34);
    await h.processor().process(partial(p, 2, 3));
    await h.processor().process(partial(p, 2, 3));
    expect(await shareBack(p, 346)).toEqual([-17]);
    expect(await h.balance(GOLD)).toBe(34);
  });

  it('a share whose attempt died after its grant, then the whole order credited: the share is finished and taken back, once', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.crashAt('purchase:granted', partial(p, 1, 2));
    expect(await h.balance(GOLD)).toBe(25);
    h.passHorizon();
    await h.processor().process(fulfilment(p));
    await h.processor().process(partial(p, 1, 2));
    await h.processor().process(fulfilment(p));
    expect(await shareEntries(p, 519)).toEqual([25]);
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(51);
  });

  it('a crash after a take-back is booked on its share: the redelivery finishes the take-back’s record, no second debit', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    await h.crashAt('refund:applied', fulfilment(p));
    h.expireLeases();
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ action: 'ack' });
    const back = await h.ledger.getRefund({ source: 'shopify', orderId: shareOrderId(p.orderId, 519), refundId: SUPERSEDED_SHARE });
    expect(back).toMatchObject({ state: 'done', outcome: 'debited', pointsDebited: 25 });
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(51);
  });

  it('a crash after a full refund ended the order unearned: the refund’s redelivery takes the shipped share back', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    const cancel = refund(p, 'cancel', 1038, { refundsRemainder: true });
    await h.crashAt('refund:recorded', cancel);
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned' });
    await h.processor().process(cancel);
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a crash after the order is credited at fulfilment: its redelivery takes the share back, once', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    await h.crashAt('purchase:recorded', fulfilment(p));
    expect(await h.balance(GOLD)).toBe(25 + 51);
    await h.processor().process(fulfilment(p));
    await h.processor().process(partial(p, 1, 2));
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(51);
  });
});

describe('partial fulfilments: refunds and cancellations', () => {
  it('a refund after the first share is settled with the order’s credit: the same balance as a refund after it (26)', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    expect(await h.processor().process(refund(p, 'r1', 519, { refundExact: '519' }))).toMatchObject({ reason: 'before_earn' });
    await h.processor().process(fulfilment(p));
    expect(await h.entries(GOLD, refundMarker('shopify', p.orderId, 'r1'))).toEqual([-25]);
    expect(await shareBack(p, 519)).toEqual([-25]);
    // 51 on the whole, floor(51 x 519 / 1038) = 25 back for the refund: as when the refund comes after the credit.
    expect(await h.balance(GOLD)).toBe(26);
  });

  it('an order refunded in full after a shipment takes the shipped share back: nothing paid, nothing earned', async () => {
    const p = paid();
    await h.processor().process(p);
    await h.processor().process(partial(p, 1, 2));
    const cancel = refund(p, 'cancel', 1038, { refundsRemainder: true });
    expect(await h.processor().process(cancel)).toMatchObject({ kind: 'skipped', reason: 'before_earn' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned' });
    expect(await shareBack(p, 519)).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(0);
    expect(await h.processor().process(partial(p, 2, 2))).toMatchObject({ kind: 'duplicate', previous: 'not_earned' });
    expect(await h.balance(GOLD)).toBe(0);
  });
});
