import { describe, expect, it } from 'vitest';
import { buildModel, debitTotalFor, pointsFor } from '../../chaos/model.js';
import type { Scenario } from '../../chaos/scenario.js';

function scenarioOf(events: Scenario['events']): Scenario {
  return {
    seed: 0,
    customers: [
      { index: 0, loginId: 'a', rank: 'gold', shopifyId: '7000000000000000001', posCard: 'PC-1', registered: true },
      { index: 1, loginId: 'b', rank: 'regular', shopifyId: '7000000000000000002', posCard: 'PC-2', registered: false },
    ],
    events,
    deliveries: [],
    counts: { purchases: 0, refunds: 0, cancellations: 0, orphanRefunds: 0, duplicates: 0, concurrentDuplicates: 0, reordered: 0 },
  };
}

const purchase = (orderId: string, amount: number, customer: number | null = 0) =>
  ({ kind: 'purchase', key: orderId, source: 'shopify', orderId, customer, amount, test: false }) as const;
const refund = (orderId: string, refundId: string, amount: number, cancel = false) =>
  ({
    kind: 'refund',
    key: `${orderId}:${refundId}`,
    source: 'shopify',
    orderId,
    refundId,
    customer: 0,
    amount,
    cancel,
    orphan: false,
  }) as const;

describe('the independent model', () => {
  it('rounds a calculation down with the exact rate', () => {
    expect(pointsFor(999, 0.05)).toBe(49);
    expect(pointsFor(10_000_000, 0.03)).toBe(300_000);
    expect(pointsFor(99, 0.01)).toBe(0);
  });

  it('debits exactly the credit for a full refund', () => {
    expect(debitTotalFor(49, 999, 999)).toBe(49);
  });

  it('debits the floor of the refunded share for a partial refund', () => {
    expect(debitTotalFor(49, 999, 500)).toBe(24);
  });

  it('debits everything for a cancellation after partial refunds', () => {
    const model = buildModel(scenarioOf([purchase('o1', 999), refund('o1', 'r1', 100), refund('o1', 'cancel', 899, true)]));
    expect(model.orders.get('o1')?.debitTotal).toBe(49);
    expect(model.customers.get(0)?.balance).toBe(0);
  });

  it('credits nothing to a customer the membership service does not know', () => {
    const model = buildModel(scenarioOf([purchase('o2', 1000, 1)]));
    expect(model.orders.get('o2')?.credit).toBe(0);
    expect(model.totals.credited).toBe(0);
  });

  it('debits nothing for a refund whose purchase never came', () => {
    const model = buildModel(scenarioOf([{ ...refund('o3', 'r1', 50), orphan: true }]));
    expect(model.orders.get('o3')?.debitTotal).toBe(0);
  });

  it('adds up a customer balance from credits and debits', () => {
    const model = buildModel(scenarioOf([purchase('o1', 1000), purchase('o2', 200), refund('o2', 'r1', 100)]));
    expect(model.customers.get(0)).toMatchObject({ credited: 60, debited: 5, balance: 55 });
  });
});

describe('the independent model: the run’s campaign (ポイント2倍)', () => {
  const inCampaign = (events: Scenario['events']) => ({ ...scenarioOf(events), campaign: { minAmount: 250 } });

  it('expects a bonus the size of the credit on a Shopify order of at least the minimum', () => {
    const model = buildModel(inCampaign([purchase('o1', 999), purchase('o2', 200)]));
    expect(model.orders.get('o1')).toMatchObject({ credit: 49, bonus: 49 });
    expect(model.orders.get('o2')).toMatchObject({ bonus: 0 });
    expect(model.customers.get(0)?.balance).toBe(49 + 49 + pointsFor(200, 0.05));
  });

  it('takes the bonus back by the refund rule: a half refund half of it, a cancellation all', () => {
    const model = buildModel(
      inCampaign([purchase('o1', 1000), refund('o1', 'r1', 500), purchase('o2', 1000), refund('o2', 'cancel', 1000, true)]),
    );
    expect(model.orders.get('o1')).toMatchObject({ bonus: 50, bonusBack: 25 });
    expect(model.orders.get('o2')).toMatchObject({ bonus: 50, bonusBack: 50 });
  });
});
