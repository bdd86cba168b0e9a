import { describe, expect, it } from 'vitest';
import { localRedemption, withShopifyRedemption } from '../../../local/redemption.js';
import { loadSources } from '../../../shared/sources/index.js';

describe("npm start's redemption settings", () => {
  it('are enabled with the documented defaults when no variable is set', () => {
    expect(localRedemption({})).toEqual({
      enabled: true,
      valuePerPoint: '1',
      minPoints: 100,
      step: 1,
      validSeconds: 2_592_000,
      graceSeconds: 3600,
      onRefund: 'full',
      combinesWithShipping: true,
      currency: 'JPY',
    });
  });

  it('take SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING=false, and refuse a value that is not true or false, naming it', () => {
    expect(localRedemption({ SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING: 'false' }).combinesWithShipping).toBe(false);
    expect(() => localRedemption({ SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING: 'yes' })).toThrow(
      /SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING/,
    );
  });

  it('take SHOPIFY_REDEMPTION_* variables into the Shopify source as the stage schema reads them', () => {
    const env = {
      SHOPIFY_REDEMPTION_VALUE_PER_POINT: '0.5',
      SHOPIFY_REDEMPTION_MIN_POINTS: '200',
      SHOPIFY_REDEMPTION_STEP: '10',
      SHOPIFY_REDEMPTION_VALID_SECONDS: '3600',
      SHOPIFY_REDEMPTION_GRACE_SECONDS: '120',
    };
    const linking = loadSources(withShopifyRedemption(undefined, env)).get('shopify')?.customerLinking?.();
    expect(linking?.redemption).toMatchObject({
      enabled: true,
      valuePerPoint: '0.5',
      minPoints: 200,
      step: 10,
      validSeconds: 3600,
      graceSeconds: 120,
    });
  });

  it('refuse a value per point that is not a decimal, naming the variable', () => {
    expect(() => localRedemption({ SHOPIFY_REDEMPTION_VALUE_PER_POINT: '1e3' })).toThrow(/SHOPIFY_REDEMPTION_VALUE_PER_POINT/);
  });

  it('leave a stage-style configuration that sets the redemption itself as it is', () => {
    const config = JSON.stringify({ shopify: { redemption: { enabled: false } } });
    const linking = loadSources(withShopifyRedemption(config, {})).get('shopify')?.customerLinking?.();
    expect(linking?.redemption?.enabled).toBe(false);
  });
});
