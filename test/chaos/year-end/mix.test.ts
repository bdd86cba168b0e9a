import { describe, expect, it } from 'vitest';
import { throughputBound, YEAR_END_MIX } from '../../../chaos/year-end/mix.js';

const none = { shopify: 0, smaregi: 0, smaregi_spend: 0, refund: 0, redemption: 0 };

describe('the throughput bound of a mix', () => {
  it('is the workers’ share of the budget over one call a receipt for Shopify purchases alone', () => {
    // 1800 less the App Proxy's 180 = 1620 a minute for the workers: 27 purchases a second.
    const bound = throughputBound(1800, { ...none, shopify: 1 });
    expect(bound.perSecond).toBeCloseTo(27, 6);
    expect(bound.callsPerReceipt).toBe(1);
  });

  it('is set by the endpoint the mix calls most, counted over every kind of receipt', () => {
    // calculatePoints: Shopify 0.5 + till spend 0.5 = 1 a receipt; grantPoints: till spend 0.5 + redemption 0.
    const bound = throughputBound(1800, { ...none, shopify: 0.5, smaregi_spend: 0.5 });
    expect(bound.endpoint).toBe('calculatePoints');
    expect(bound.perSecond).toBeCloseTo(1620 / 60, 6);
  });

  it('lets storefront redemptions use the whole budget, the reserved share included', () => {
    const bound = throughputBound(1800, { ...none, redemption: 1 });
    expect(bound.perSecond).toBeCloseTo(30, 6);
  });

  it('gives about 31 receipts a second for the year-end mix at the default budget', () => {
    const bound = throughputBound(1800, YEAR_END_MIX);
    expect(bound.endpoint).toBe('calculatePoints');
    expect(bound.callsPerReceipt).toBeCloseTo(0.87, 6);
    expect(bound.perSecond).toBeCloseTo(1620 / 60 / 0.87, 6);
  });

  it('refuses a mix whose shares do not add up to one', () => {
    expect(() => throughputBound(1800, { ...none, shopify: 0.5 })).toThrow(/add up to 1/);
  });
});
