import { describe, expect, it } from 'vitest';
import { generateScenario, type EventSpec } from '../../chaos/scenario.js';

/** The Square deliveries a chaos scenario contains (the short run of `npm test` uses seed 20261122). */
describe('Square in the chaos scenario', () => {
  const scenario = generateScenario({ events: 100, seed: 20261122 });
  const big = generateScenario({ events: 2000, seed: 7 });
  const squareEvent = (s: typeof scenario, i: number) => (s.events[i] as EventSpec).source === 'square';

  it('sells some orders through Square, with their refunds', () => {
    expect(scenario.events.some((e) => e.source === 'square' && e.kind === 'purchase')).toBe(true);
    expect(scenario.events.some((e) => e.source === 'square' && e.kind === 'refund')).toBe(true);
  });

  it('delivers some Square payments first without the customer, and some such deliveries after the one naming it', () => {
    const before = (s: typeof scenario) =>
      s.deliveries.filter((d, i) => d.withoutCustomer && s.deliveries.slice(i + 1).some((n) => n.event === d.event && !n.withoutCustomer));
    const after = (s: typeof scenario) =>
      s.deliveries.filter((d, i) => d.withoutCustomer && s.deliveries.slice(0, i).some((p) => p.event === d.event && !p.withoutCustomer));
    expect(before(scenario).length).toBeGreaterThan(0);
    expect(after(big).length).toBeGreaterThan(0);
  });

  it('repeats Square deliveries and lets Square refunds overtake their payment', () => {
    expect(big.deliveries.some((d) => squareEvent(big, d.event) && d.kind === 'retry')).toBe(true);
    const overtaking = big.events.some((e, i) => {
      if (e.source !== 'square' || e.kind !== 'refund') return false;
      const refundAt = big.deliveries.findIndex((d) => d.event === i);
      const paymentAt = big.deliveries.findIndex((d) => {
        const p = big.events[d.event] as EventSpec;
        return p.kind === 'purchase' && p.orderId === e.orderId;
      });
      return refundAt >= 0 && refundAt < paymentAt;
    });
    expect(overtaking).toBe(true);
  });

  it("names the customer in some delivery of every Square payment, so the model's credit holds", () => {
    for (const [i, e] of big.events.entries()) {
      if (e.source !== 'square' || e.kind !== 'purchase') continue;
      expect(e.customer).not.toBeNull();
      expect(big.deliveries.some((d) => d.event === i && !d.withoutCustomer)).toBe(true);
    }
  });
});
