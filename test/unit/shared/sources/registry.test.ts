import { describe, expect, it } from 'vitest';
import type { ConfigurationError } from '../../../../shared/config/index.js';
import { isSourcesConfigError } from '../../../../shared/sources/errors.js';
import { defaultSettings, loadSources } from '../../../../shared/sources/registry.js';
import { fixture, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';

function configError(json: string): ConfigurationError {
  try {
    loadSources(json);
  } catch (e) {
    if (isSourcesConfigError(e)) return e;
    throw e;
  }
  throw new Error('expected SOURCES_CONFIG to be refused');
}

describe('loadSources', () => {
  it('enables shopify and pos with their defaults when nothing is configured', () => {
    expect([...loadSources(undefined).keys()]).toEqual(['shopify', 'pos']);
    expect([...loadSources('').keys()]).toEqual(['shopify', 'pos']);
    expect([...loadSources('{}').keys()]).toEqual(['shopify', 'pos']);
  });

  it('maps Shopify customers to the external key `shopify` and POS cards to `pos_card` by default', () => {
    expect(defaultSettings('shopify')).toMatchObject({
      externalKey: 'shopify',
      amount: { basis: 'subtotal_excluding_tax', rule: 'major_floor' },
    });
    expect(defaultSettings('pos')).toMatchObject({ externalKey: 'pos_card', timestampToleranceSeconds: 300 });
  });

  it('disables a built-in source set to false', () => {
    expect([...loadSources('{"pos": false}').keys()]).toEqual(['shopify']);
  });

  it('adds a second source of a known kind under its own name', () => {
    const sources = loadSources('{"shopify-eu": {"kind": "shopify", "externalKey": "shopify_eu"}}');
    expect(sources.get('shopify-eu')?.kind).toBe('shopify');
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json');
    const outcome = sources.get('shopify-eu')?.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 's', 'orders/paid') });
    expect(outcome).toMatchObject({
      status: 'ok',
      value: { source: 'shopify-eu', eventId: 'shopify-eu:order:820982911946154508', customer: { externalKey: 'shopify_eu' } },
    });
  });

  it('names the offending field of a bad setting', () => {
    expect(configError('{"shopify": {"amount": {"rule": "round_half_up"}}}').message).toMatch(/^SOURCES_CONFIG: shopify\.amount\.rule: /);
    expect(configError('{"pos": {"timestampToleranceSeconds": -5}}').message).toMatch(/pos\.timestampToleranceSeconds/);
  });

  it('refuses a misspelt setting rather than ignoring it', () => {
    expect(configError('{"shopify": {"externalkey": "x"}}').message).toMatch(/externalkey/);
  });

  it('refuses an unknown kind, a bad name and text that is not a JSON object', () => {
    expect(configError('{"clover": {}}').message).toMatch(/clover\.kind: unknown source kind/);
    expect(configError('{"Shop/1": {"kind": "shopify"}}').message).toMatch(/source name/);
    expect(configError('[1]').message).toMatch(/JSON object/);
    expect(configError('{nope').message).toMatch(/not valid JSON/);
  });

  it('refuses a point title with an unknown placeholder', () => {
    expect(configError('{"shopify": {"pointTitle": "Thanks {customer}"}}').message).toMatch(/shopify\.pointTitle: unknown placeholder/);
  });
});
