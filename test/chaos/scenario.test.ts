import { describe, expect, it } from 'vitest';
import { generateScenario } from '../../chaos/scenario.js';

describe('the chaos scenario generator', () => {
  it('gives the same scenario for the same seed', () => {
    expect(generateScenario({ events: 300, seed: 42 })).toEqual(generateScenario({ events: 300, seed: 42 }));
  });

  it('gives a different scenario for another seed', () => {
    const a = generateScenario({ events: 300, seed: 1 });
    const b = generateScenario({ events: 300, seed: 2 });
    expect(a.events.map((e) => e.orderId)).not.toEqual(b.events.map((e) => e.orderId));
  });

  it('generates exactly the number of events asked for', () => {
    expect(generateScenario({ events: 137, seed: 7 }).events).toHaveLength(137);
  });

  it('delivers every event at least once', () => {
    const scenario = generateScenario({ events: 500, seed: 9 });
    const delivered = new Set(scenario.deliveries.map((d) => d.event));
    expect(delivered.size).toBe(scenario.events.length);
  });

  it('never refunds more than an order is eligible for', () => {
    const scenario = generateScenario({ events: 1000, seed: 3 });
    for (const purchase of scenario.events) {
      if (purchase.kind !== 'purchase') continue;
      const refunded = scenario.events
        .filter((e) => e.kind === 'refund' && e.orderId === purchase.orderId)
        .reduce((sum, e) => sum + e.amount, 0);
      expect(refunded).toBeLessThanOrEqual(purchase.amount);
    }
  });

  it('mixes duplicates, concurrent copies, reorderings, cancellations and refunds without a purchase', () => {
    const { counts } = generateScenario({ events: 1000, seed: 5 });
    expect(counts.duplicates).toBeGreaterThan(0);
    expect(counts.concurrentDuplicates).toBeGreaterThan(0);
    expect(counts.reordered).toBeGreaterThan(0);
    expect(counts.cancellations).toBeGreaterThan(0);
    expect(counts.orphanRefunds).toBeGreaterThan(0);
  });

  it('delivers some refunds before their purchase', () => {
    const scenario = generateScenario({ events: 500, seed: 11 });
    const firstDelivery = new Map<number, number>();
    scenario.deliveries.forEach((d, position) => {
      if (!firstDelivery.has(d.event)) firstDelivery.set(d.event, position);
    });
    const early = scenario.events.filter((event, index) => {
      if (event.kind !== 'refund' || event.orphan) return false;
      const purchase = scenario.events.findIndex((e) => e.kind === 'purchase' && e.orderId === event.orderId);
      return (firstDelivery.get(index) ?? 0) < (firstDelivery.get(purchase) ?? 0);
    });
    expect(early.length).toBeGreaterThan(0);
  });

  it('has a share of Shopify orders earn at fulfilment, each shipped after its payment is first delivered, with refunds around the moment', () => {
    const scenario = generateScenario({ events: 500, seed: 9 });
    const later = scenario.events.flatMap((e, i) => (e.kind === 'purchase' && e.source === 'shopify-later' ? [i] : []));
    expect(later.length).toBeGreaterThan(10);
    expect(scenario.counts.provisional).toBe(later.length);
    for (const index of later) {
      const steps = scenario.deliveries.map((d, at) => ({ ...d, at })).filter((d) => d.event === index);
      const paid = steps.find((d) => !d.fulfilment);
      const shipped = steps.filter((d) => d.fulfilment);
      expect(shipped.length).toBeGreaterThanOrEqual(1);
      for (const s of shipped) expect(s.at).toBeGreaterThan(paid?.at ?? Number.POSITIVE_INFINITY);
    }
    // Their refunds keep their order's source, and some are delivered before the fulfilment, some after.
    const refundPositions = (orderId: string) =>
      scenario.deliveries.flatMap((d, at) => {
        const e = scenario.events[d.event];
        return e?.kind === 'refund' && e.orderId === orderId ? [at] : [];
      });
    let before = 0;
    let after = 0;
    for (const index of later) {
      const order = scenario.events[index];
      const shippedAt = scenario.deliveries.findIndex((d) => d.event === index && d.fulfilment);
      for (const at of refundPositions(order?.orderId ?? '')) {
        if (at < shippedAt) before += 1;
        else after += 1;
      }
    }
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(0);
    expect(scenario.events.filter((e) => e.source === 'shopify-later' && e.kind === 'refund').length).toBeGreaterThan(0);
  });

  it('ships some orders earning at fulfilment in parts: growing shares, now and then late, early, twice or swapped', () => {
    const scenario = generateScenario({ events: 1500, seed: 1 });
    const partials = scenario.deliveries.map((d, at) => ({ ...d, at })).filter((d) => d.partial !== undefined);
    expect(scenario.counts.partials).toBe(partials.length);
    const orders = new Set(partials.map((d) => d.event));
    expect(orders.size).toBeGreaterThan(10);
    let late = 0;
    let swapped = 0;
    let twice = 0;
    for (const index of orders) {
      expect(scenario.events[index]).toMatchObject({ kind: 'purchase', source: 'shopify-later' });
      const steps = partials.filter((d) => d.event === index);
      for (const s of steps) expect([1, 2]).toContain(s.partial);
      const fulfilled = scenario.deliveries.findIndex((d) => d.event === index && d.fulfilment);
      if (steps.some((s) => s.at > fulfilled)) late += 1;
      const firsts = steps.filter((s) => s.kind === 'first').map((s) => s.partial);
      if (firsts.join() === '2,1') swapped += 1;
      if (steps.length > firsts.length) twice += 1;
    }
    expect(late).toBeGreaterThan(0);
    expect(swapped).toBeGreaterThan(0);
    expect(twice).toBeGreaterThan(0);
  });

  it('refuses a non-positive number of events', () => {
    expect(() => generateScenario({ events: 0, seed: 1 })).toThrow(/events must be a positive integer/);
  });
});
