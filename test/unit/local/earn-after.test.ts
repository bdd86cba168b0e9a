import { describe, expect, it } from 'vitest';
import { withShopifyEarnAfter } from '../../../local/earn-after.js';
import { loadSourceSettings } from '../../../shared/sources/index.js';
import { ShopifySettings } from '../../../shared/sources/shopify/settings.js';

describe('SHOPIFY_EARN_AFTER under npm start', () => {
  it('sets the Shopify source to earn at fulfilment', () => {
    expect(JSON.parse(withShopifyEarnAfter(undefined, { SHOPIFY_EARN_AFTER: 'fulfilled' }) ?? '')).toEqual({
      shopify: { earnAfter: 'fulfilled' },
    });
  });

  it('writes days:N as the stage writes it, so the same schema reads both', () => {
    const config = withShopifyEarnAfter(undefined, { SHOPIFY_EARN_AFTER: 'days:14' });
    expect(JSON.parse(config ?? '')).toEqual({ shopify: { earnAfter: { days: 14 } } });
    expect(() => loadSourceSettings(config)).not.toThrow();
  });

  it('earns per shipment under fulfilled by default; SHOPIFY_PARTIAL_FULFILMENTS=off turns it off', () => {
    const settings = (env: NodeJS.ProcessEnv) => ShopifySettings.parse(JSON.parse(withShopifyEarnAfter(undefined, env) ?? '{}').shopify);
    expect(settings({ SHOPIFY_EARN_AFTER: 'fulfilled' })).toMatchObject({ earnAfter: 'fulfilled', partialFulfilments: true });
    expect(settings({ SHOPIFY_EARN_AFTER: 'fulfilled', SHOPIFY_PARTIAL_FULFILMENTS: 'off' })).toMatchObject({ partialFulfilments: false });
    expect(() => withShopifyEarnAfter(undefined, { SHOPIFY_PARTIAL_FULFILMENTS: 'yes' })).toThrow(
      /^SHOPIFY_PARTIAL_FULFILMENTS must be on or off/,
    );
  });

  it('leaves the configuration as given when unset (the default: paid)', () => {
    expect(withShopifyEarnAfter('{"pos":false}', {})).toBe('{"pos":false}');
  });

  it.each(['shipped', 'days:0', 'days:400'])('refuses %s, naming the variable', (value) => {
    expect(() => withShopifyEarnAfter(undefined, { SHOPIFY_EARN_AFTER: value })).toThrow(
      /^SHOPIFY_EARN_AFTER must be paid, fulfilled or days:N/,
    );
  });

  it('sets the Smaregi source to earn 14 days after the sale with SMAREGI_EARN_AFTER=days:14', () => {
    expect(JSON.parse(withShopifyEarnAfter('{"smaregi":{"contractId":"c1"}}', { SMAREGI_EARN_AFTER: 'days:14' }) ?? '')).toEqual({
      smaregi: { contractId: 'c1', earnAfter: { days: 14 } },
    });
    expect(withShopifyEarnAfter(undefined, { SMAREGI_EARN_AFTER: 'paid' })).toBeUndefined();
  });

  it('refuses SMAREGI_EARN_AFTER=fulfilled, saying a till sale is handed over at once', () => {
    expect(() => withShopifyEarnAfter(undefined, { SMAREGI_EARN_AFTER: 'fulfilled' })).toThrow(
      /^SMAREGI_EARN_AFTER must be paid or days:N: a Smaregi till sale is handed over at once/,
    );
  });

  it('refuses a malformed SMAREGI_EARN_AFTER, naming the variable', () => {
    expect(() => withShopifyEarnAfter(undefined, { SMAREGI_EARN_AFTER: 'days:0' })).toThrow(/^SMAREGI_EARN_AFTER must be paid or days:N/);
  });
});
