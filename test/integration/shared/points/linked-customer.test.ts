import { describe, expect, it } from 'vitest';
import { creditEarlierPurchases } from '../../../../shared/customers/index.js';
import { purchaseMarker } from '../../../../shared/points/index.js';
import { CALCULATION, LOOKUP, purchase, REFUND_WAIT_SECONDS, refund, useHarness } from './harness.js';

const h = useHarness();

/** A purchase by a shop customer the membership service does not know yet. */
const unknownCustomer = (externalId: string, overrides: Parameters<typeof purchase>[0] = {}) =>
  purchase({ customer: { externalKey: 'shopify', externalId }, ...overrides });

/** The customer becomes a member holding the shop id (as linking or enrolling does). */
async function becomeMember(externalId: string): Promise<string> {
  return (await h.api.registerMember({ rank: 'gold', external_ids: { shopify: externalId } })).id;
}

const since = '2026-01-01T00:00:00.000Z';

describe('purchases credited once their customer is linked', () => {
  it('finds the orders of a customer that ended customer_not_found, by the customer', async () => {
    const p = unknownCustomer('late-1');
    const other = unknownCustomer('late-2');
    expect(await h.processor().process(p)).toMatchObject({ kind: 'customer_not_found' });
    await h.processor().process(other);
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-1', since })).toEqual([
      { source: 'shopify', orderId: p.orderId },
    ]);
  });

  it('leaves out orders older than the window', async () => {
    await h.processor().process(unknownCustomer('late-3', { occurredAt: '2025-12-01T10:00:00+09:00' }));
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-3', since })).toEqual([]);
  });

  it('credits the order once the customer is a member, and once only', async () => {
    const p = unknownCustomer('late-4');
    await h.processor().process(p);
    const member = await becomeMember('late-4');
    expect(await h.processor().creditLinkedPurchase(p)).toMatchObject({ kind: 'credited', customerId: member, points: 50 });
    expect(await h.processor().creditLinkedPurchase(p)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    // The shop's own redelivery of the order adds nothing either.
    expect(await h.processor().process(p)).toMatchObject({ kind: 'duplicate' });
    expect(await h.entries(member, purchaseMarker(p.source, p.orderId))).toEqual([50]);
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-4', since })).toEqual([]);
  });

  it('a redelivery of the order before the customer is linked does not credit it', async () => {
    const p = unknownCustomer('late-5');
    await h.processor().process(p);
    await becomeMember('late-5');
    expect(await h.processor().process(p)).toMatchObject({ kind: 'duplicate', previous: 'customer_not_found' });
    expect(await h.calls(CALCULATION)).toBe(0);
  });

  it('an order whose customer is still unknown stays waiting for the link', async () => {
    const p = unknownCustomer('late-6');
    await h.processor().process(p);
    expect(await h.processor().creditLinkedPurchase(p)).toMatchObject({ kind: 'customer_not_found' });
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-6', since })).toHaveLength(1);
  });

  it('the refund that waited for the link debits its share once the order is credited', async () => {
    const p = unknownCustomer('late-7');
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 400));
    h.clock.advance(REFUND_WAIT_SECONDS * 1000 + 1);
    expect(await h.processor().process(refund(p, 'r1', 400))).toMatchObject({ kind: 'refund_parked' });
    const member = await becomeMember('late-7');
    expect(await h.processor().creditLinkedPurchase(p)).toMatchObject({
      kind: 'credited',
      followUps: [{ refundId: 'r1', kind: 'debited', points: 20 }],
    });
    expect(await h.balance(member)).toBe(30);
  });

  it('a crash after re-opening the order leaves it findable, and the next run credits it once', async () => {
    const p = unknownCustomer('late-8');
    await h.processor().process(p);
    const member = await becomeMember('late-8');
    await expect(
      h
        .processor({
          checkpoint: (s) => {
            if (s === 'purchase:granted') throw new Error('crash');
          },
        })
        .creditLinkedPurchase(p),
    ).rejects.toThrow('crash');
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-8', since })).toHaveLength(1);
    h.expireLeases();
    expect(await h.processor().creditLinkedPurchase(p)).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries(member, purchaseMarker(p.source, p.orderId))).toEqual([50]);
  });

  it('a crash among the refunds that waited for the link leaves the order findable, and the retried link debits them once', async () => {
    const p = unknownCustomer('late-9');
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 400));
    h.clock.advance(REFUND_WAIT_SECONDS * 1000 + 1);
    expect(await h.processor().process(refund(p, 'r1', 400))).toMatchObject({ kind: 'refund_parked' });
    const member = await becomeMember('late-9');
    const input = { source: 'shopify', externalKey: 'shopify', externalId: 'late-9', days: 30 };
    const crashing = h.processor({
      checkpoint: (s) => {
        if (s === 'refund:claimed') throw new Error('crash');
      },
    });
    await expect(creditEarlierPurchases({ ledger: h.ledger, processor: crashing, clock: h.clock }, input)).rejects.toThrow('crash');
    h.expireLeases();
    // The link event comes back: the order, credited already, is still found, and its refund runs now.
    await creditEarlierPurchases({ ledger: h.ledger, processor: h.processor(), clock: h.clock }, input);
    expect(await h.entries(member, purchaseMarker(p.source, p.orderId))).toEqual([50]);
    expect(await h.balance(member)).toBe(30);
    expect(await h.ledger.getRefund({ source: 'shopify', orderId: p.orderId, refundId: 'r1' })).toMatchObject({ outcome: 'debited' });
    expect(await h.ledger.listUnlinkedOrders({ source: 'shopify', externalKey: 'shopify', externalId: 'late-9', since })).toEqual([]);
  });

  it('an earlier purchase held by another attempt leaves the link pending as lease_held, the wait its retry takes', async () => {
    const p = unknownCustomer('late-10');
    await h.processor().process(p);
    await becomeMember('late-10');
    const crashing = h.processor({
      checkpoint: (s) => {
        if (s === 'purchase:claimed') throw new Error('crash');
      },
    });
    await expect(crashing.creditLinkedPurchase(p)).rejects.toThrow('crash');
    const input = { source: 'shopify', externalKey: 'shopify', externalId: 'late-10', days: 30 };
    expect(await creditEarlierPurchases({ ledger: h.ledger, processor: h.processor(), clock: h.clock }, input)).toMatchObject({
      credited: 0,
      pending: 1,
      pendingKind: 'lease_held',
    });
  });

  it('a purchase that looked its customer up just before the link, and records customer_not_found just after the link looked for earlier orders, is credited once', async () => {
    const p = unknownCustomer('late-11');
    const input = { source: 'shopify', externalKey: 'shopify', externalId: 'late-11', days: 30 };
    let member = '';
    // The purchase has its answer (no member) and is held before recording it; meanwhile the customer is
    // linked and the link's crediting runs to its end.
    const [outcome, linked] = await h.whileHeldAt('purchase:not-found', p, async () => {
      member = await becomeMember('late-11');
      const earlier = await creditEarlierPurchases({ ledger: h.ledger, processor: h.processor(), clock: h.clock }, input);
      return { kind: 'linked', action: earlier.pending > 0 ? 'retry' : 'ack', earlier };
    });
    // The link found nothing to credit (the order was not recorded yet) and is done: nothing will look again.
    expect(linked).toMatchObject({ kind: 'linked', action: 'ack', earlier: { credited: 0, pending: 0 } });
    expect(outcome).toMatchObject({ kind: 'credited', customerId: member, points: 50 });
    expect(await h.entries(member, purchaseMarker(p.source, p.orderId))).toEqual([50]);
    expect(await h.ledger.getOrder({ source: 'shopify', orderId: p.orderId })).toMatchObject({ state: 'done', outcome: 'credited' });
    expect(await h.ledger.listUnlinkedOrders({ ...input, since })).toEqual([]);
    // Its redelivery, or the link asked again, adds nothing.
    expect(await h.processor().process(p)).toMatchObject({ kind: 'duplicate', previous: 'credited' });
    expect(await creditEarlierPurchases({ ledger: h.ledger, processor: h.processor(), clock: h.clock }, input)).toMatchObject({
      credited: 0,
    });
    expect(await h.balance(member)).toBe(50);
  });

  it('a purchase of a customer nobody linked records customer_not_found and looks the customer up once', async () => {
    const p = unknownCustomer('late-12');
    expect(await h.processor().process(p)).toMatchObject({ kind: 'customer_not_found' });
    expect(await h.calls(LOOKUP)).toBe(1);
  });
});
