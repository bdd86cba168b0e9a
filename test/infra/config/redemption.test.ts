import { describe, expect, it } from 'vitest';
import { redeemingShopify } from '../../../infra/config/index.js';

/**
 * Whether the App Proxy reads provisional orders (its GetItem on `order#` keys and the customer index,
 * infra/constructs/shopify-app-proxy.ts): when the shop's source earns later, or another source of the
 * stage does (a till's `days`), whose sales the same member's points page lists (issue 53).
 */
const stage = (smaregi: Record<string, unknown> | undefined, shopEarnAfter: unknown = 'paid') => ({
  stageName: 'dev',
  sources: {
    shopify: { externalKey: 'shopify', earnAfter: shopEarnAfter, redemption: { enabled: true } },
    ...(smaregi ? { smaregi: { contractId: 'c1', ...smaregi } } : {}),
  },
  reconcile: { shopify: { shopDomain: 'a.myshopify.com' } } as never,
});

describe('the App Proxy’s reads of provisional orders', () => {
  it('are granted when a Smaregi source of the stage earns days after its sales, though the shop earns at payment', () => {
    expect(redeemingShopify(stage({ earnAfter: { days: 14 } }))?.earnsLater).toBe(true);
  });

  it('are not granted when every source earns at payment', () => {
    expect(redeemingShopify(stage({ earnAfter: 'paid' }))?.earnsLater).toBe(false);
  });
});
