import { describe, expect, it } from 'vitest';
import { withShopifyEnrolment } from '../../../local/customers.js';

describe('SHOPIFY_ENROLMENT under npm start', () => {
  it('turns enrolment on for the Shopify source', () => {
    expect(JSON.parse(withShopifyEnrolment(undefined, 'register') ?? '')).toEqual({ shopify: { enrolment: 'register' } });
  });

  it('leaves the configuration as given when unset (the source default: off)', () => {
    expect(withShopifyEnrolment('{"pos":false}', undefined)).toBe('{"pos":false}');
  });

  it('gives way to what SOURCES_CONFIG says of the Shopify source', () => {
    expect(JSON.parse(withShopifyEnrolment('{"shopify":{"enrolment":"off"}}', 'register') ?? '')).toEqual({
      shopify: { enrolment: 'off' },
    });
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => withShopifyEnrolment(undefined, 'yes')).toThrow('SHOPIFY_ENROLMENT must be off or register');
  });
});
