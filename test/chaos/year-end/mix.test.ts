import { describe, expect, it } from 'vitest';
import { throughputBound, workersBound, YEAR_END_MIX } from '../../../chaos/year-end/mix.js';

const none = { shopify: 0, smaregi: 0, smaregi_spend: 0, refund: 0, redemption: 0 };

describe('the throughput bound of a mix', () => {
  it('is the whole budget over one call a receipt for Shopify purchases alone', () => {
    // 1800 a minute on calculatePoints, one call a purchase: 30 purchases a second.
    const bound = throughputBound(1800, { ...none, shopify: 1 });
    expect(bound.perSecond).toBeCloseTo(30, 6);
    expect(bound.callsPerReceipt).toBe(1);
  });

  it('is set by the endpoint the mix calls most, counted over every kind of receipt', () => {
    // calculatePoints: Shopify 0.5 + till spend 0.5 = 1 a receipt; grantPoints: till spend 0.5 + redemption 0.
    const bound = throughputBound(1800, { ...none, shopify: 0.5, smaregi_spend: 0.5 });
    expect(bound.endpoint).toBe('calculatePoints');
    expect(bound.perSecond).toBeCloseTo(1800 / 60, 6);
  });

  it('counts the storefront’s calls with the workers’ on an endpoint both use', () => {
    // getMemberByExternalId: Shopify 0.6 + redemption 0.4 = 1 a receipt; calculatePoints only 0.6.
    const bound = throughputBound(1800, { ...none, shopify: 0.6, redemption: 0.4 });
    expect(bound.endpoint).toBe('getMemberByExternalId');
    expect(bound.perSecond).toBeCloseTo(30, 6);
  });

  it('gives about 34.5 receipts a second for the year-end mix at the default budget', () => {
    const bound = throughputBound(1800, YEAR_END_MIX);
    expect(bound.endpoint).toBe('calculatePoints');
    expect(bound.callsPerReceipt).toBeCloseTo(0.87, 6);
    expect(bound.perSecond).toBeCloseTo(1800 / 60 / 0.87, 6);
  });

  it('refuses a mix whose shares do not add up to one', () => {
    expect(() => throughputBound(1800, { ...none, shopify: 0.5 })).toThrow(/add up to 1/);
  });
});

describe('the workers’ share of the bound', () => {
  it('is the budget less the App Proxy’s reserve over the workers’ calls, about 31 receipts a second for the year-end mix', () => {
    // 1800 less the App Proxy's 180 = 1620 a minute for the workers, over calculatePoints' 0.87 a receipt.
    const workers = workersBound(1800, YEAR_END_MIX);
    expect(workers.endpoint).toBe('calculatePoints');
    expect(workers.perSecond).toBeCloseTo(1620 / 60 / 0.87, 6);
  });

  it('has no limit for a mix of storefront redemptions alone', () => {
    expect(workersBound(1800, { ...none, redemption: 1 }).perSecond).toBe(Number.POSITIVE_INFINITY);
  });
});
