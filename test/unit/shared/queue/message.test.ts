import { describe, expect, it } from 'vitest';
import { queueMessageFor } from '../../../../shared/queue/index.js';
import { PointsEvent, type PurchaseEvent, type RefundEvent } from '../../../../shared/events/index.js';

const purchase: PurchaseEvent = {
  type: 'purchase',
  eventId: 'shopify:order:820982911946154508',
  source: 'shopify',
  orderId: '820982911946154508',
  customer: { externalKey: 'shopify', externalId: '115310627314723954' },
  currency: 'USD',
  occurredAt: '2026-11-20T14:03:10-05:00',
  pointTitle: 'Purchase #1001',
  test: false,
  delivery: { id: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043', topic: 'orders/paid' },
  eligibleAmount: 358,
  expiryDays: null,
};

describe('queueMessageFor', () => {
  it('carries the event as JSON that parses back to the same canonical event', () => {
    expect(PointsEvent.parse(JSON.parse(queueMessageFor(purchase).body))).toEqual(purchase);
  });

  it('puts one customer events of one source in one group, whatever the order', () => {
    const other = { ...purchase, orderId: '1', eventId: 'shopify:order:1', delivery: { id: 'd2', topic: 'orders/paid' } };
    expect(queueMessageFor(other).groupId).toBe(queueMessageFor(purchase).groupId);
  });

  it('groups an event without a customer by its order', () => {
    const { eligibleAmount: _a, expiryDays: _e, ...common } = purchase;
    const refund: RefundEvent = {
      ...common,
      type: 'refund',
      eventId: 'shopify:refund:820982911946154508:929361462',
      customer: null,
      refundId: '929361462',
      refundAmount: 179,
      refundsRemainder: false,
    };
    expect(queueMessageFor(refund).groupId).toBe('shopify:order:820982911946154508');
  });

  it('puts each Smaregi transaction of one till in a group of its own, and a transaction’s later deliveries in its group', () => {
    const sale = (id: string, delivery: string): PurchaseEvent => ({
      ...purchase,
      source: 'smaregi',
      eventId: `smaregi:transaction:${id}`,
      orderId: id,
      customer: null,
      delivery: { id: delivery, topic: 'pos:transactions/created' },
    });
    const [first, second, edited] = [sale('1001', 'e1:1001'), sale('1002', 'e1:1002'), sale('1001', 'e2:1001')];
    expect(queueMessageFor(first).groupId).toBe('smaregi:order:1001');
    expect(queueMessageFor(second).groupId).not.toBe(queueMessageFor(first).groupId);
    expect(queueMessageFor(edited).groupId).toBe(queueMessageFor(first).groupId);
  });

  it('hashes ids SQS would refuse (over 128 characters) into a stable id of the same source', () => {
    const long = { ...purchase, customer: { externalKey: 'pos_card', externalId: 'x'.repeat(255) } };
    const a = queueMessageFor(long).groupId;
    expect(a).toMatch(/^shopify:sha256:[0-9a-f]{64}$/);
    expect(queueMessageFor(long).groupId).toBe(a);
    const spaced = { ...purchase, delivery: { id: 'id with spaces', topic: 'orders/paid' } };
    expect(queueMessageFor(spaced).deduplicationId).toMatch(/^shopify:sha256:/);
  });
});
