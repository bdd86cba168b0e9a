import { describe, expect, it } from 'vitest';
import { generateScenario } from '../../chaos/scenario.js';
import { smaregiTillCases } from '../../chaos/smaregi.js';

/** The Smaregi transactions a chaos scenario contains (the short run of `npm test` uses seed 20261122). */
describe('Smaregi in the chaos scenario', () => {
  const scenario = generateScenario({ events: 100, seed: 20261122 });
  const big = generateScenario({ events: 2000, seed: 7 });

  it('rings some sales up on Smaregi tills, and voids some of them', () => {
    expect(scenario.events.some((e) => e.source === 'smaregi' && e.kind === 'purchase')).toBe(true);
    expect(big.events.some((e) => e.source === 'smaregi' && e.kind === 'refund' && e.refundId === 'cancel')).toBe(true);
  });

  it('gives Smaregi no partial refunds: a transaction is sold, and at most voided', () => {
    const refunds = big.events.filter((e) => e.source === 'smaregi' && e.kind === 'refund');
    expect(refunds.every((r) => r.kind === 'refund' && r.cancel && !r.orphan && r.refundId === 'cancel')).toBe(true);
  });

  it('repeats Smaregi deliveries (retries, resends, concurrent copies)', () => {
    const smaregi = (i: number) => big.events[i]?.source === 'smaregi';
    expect(new Set(big.deliveries.filter((d) => smaregi(d.event) && d.kind !== 'first').map((d) => d.kind)).size).toBeGreaterThan(1);
  });

  it('rings some sales up without their member, attached before their last delivery, and names money in or deposits beside some sales', () => {
    // The short run's Smaregi sales are delivered once each: late members come with the longer runs.
    const [short, long] = [smaregiTillCases(scenario), smaregiTillCases(big)];
    expect([short.nonSales.length > 0, long.lateMembers.length > 0, long.nonSales.length > 0]).toEqual([true, true, true]);
  });
});

describe('Smaregi till points in the chaos scenario', () => {
  it('pays Smaregi sales of longer runs partly in points, each given back by its void or its corrected last delivery', () => {
    const long = smaregiTillCases(generateScenario({ events: 2000, seed: 7 }));
    expect(long.spends.length).toBeGreaterThan(0);
  });
});
