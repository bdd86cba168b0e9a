import { describe, expect, it } from 'vitest';
import { isSourcesConfigError } from '../../../../shared/sources/errors.js';
import { KINDS, loadSources, loadSourcesOfKind } from '../../../../shared/sources/registry.js';
import { shopifySource } from '../../../../shared/sources/shopify/webhook.js';
import { loadSourceSettings, SETTINGS_KINDS } from '../../../../shared/sources/source-settings.js';

function refusal(load: (json: string) => unknown, json: string): string {
  try {
    load(json);
  } catch (e) {
    if (isSourcesConfigError(e)) return e.message;
    throw e;
  }
  throw new Error('expected SOURCES_CONFIG to be refused');
}

const CONFIGS = [
  undefined,
  '',
  '{}',
  '{"pos": false}',
  '{"shopify": false, "pos": false}',
  '{"shopify-eu": {"kind": "shopify", "externalKey": "shopify_eu", "shopDomains": ["eu.myshopify.com"], "retroCreditDays": 7}}',
  '{"shopify": {"redemption": {"enabled": true, "minPoints": 50}}}',
  '{"square": {"externalKey": "sq"}, "smaregi": {"contractId": "c1", "externalKey": "card", "retroCreditDays": 3}}',
];

const REFUSED = [
  '{"shopify": {"amount": {"rule": "round_half_up"}}}',
  '{"pos": {"timestampToleranceSeconds": -5}}',
  '{"shopify": {"externalkey": "x"}}',
  '{"shopify": {"redemption": {"valuePerPoint": "0"}}}',
  '{"smaregi": {}}',
  '{"clover": {}}',
  '{"Shop/1": {"kind": "shopify"}}',
  '{"pos": 1}',
  '[1]',
  '{nope',
];

describe('loadSourceSettings', () => {
  it('names the same kinds as the registry, in the same order', () => {
    expect(Object.keys(SETTINGS_KINDS)).toEqual(Object.keys(KINDS));
    for (const [kind, source] of Object.entries(KINDS)) {
      const settings = SETTINGS_KINDS[kind as keyof typeof SETTINGS_KINDS];
      expect(settings.kind).toBe(source.kind);
      expect(settings.settingsSchema).toBe(source.settingsSchema);
      expect(settings.customerLinking).toBe(source.customerLinking);
    }
  });

  it('enables the same sources, of the same kinds, with the same customer linking as loadSources', () => {
    for (const json of CONFIGS) {
      const full = loadSources(json);
      const settings = loadSourceSettings(json);
      expect([...settings.keys()], String(json)).toEqual([...full.keys()]);
      for (const [name, source] of full) {
        const only = settings.get(name);
        expect(only?.name).toBe(name);
        expect(only?.kind).toBe(source.kind);
        expect(only?.customerLinking?.()).toEqual(source.customerLinking?.());
      }
    }
    expect(loadSourceSettings('{"shopify": {"redemption": {"enabled": true}}}').get('shopify')?.customerLinking?.()).toMatchObject({
      externalKey: 'shopify',
      redemption: { enabled: true, minPoints: 100, valuePerPoint: '1' },
    });
  });

  it('refuses what loadSources refuses, with the same message', () => {
    for (const json of REFUSED) expect(refusal(loadSourceSettings, json), json).toBe(refusal(loadSources, json));
  });
});

describe('loadSourcesOfKind', () => {
  it("keeps loadSources' sources of that kind, bound alike, and refuses what it refuses", () => {
    for (const json of CONFIGS) {
      const full = loadSources(json);
      const shopify = loadSourcesOfKind(json, shopifySource);
      expect([...shopify.keys()], String(json)).toEqual([...full].filter(([, s]) => s.kind === 'shopify').map(([n]) => n));
      for (const [name, source] of shopify) {
        expect(source.kind).toBe('shopify');
        expect(source.subscriptions?.()).toEqual(full.get(name)?.subscriptions?.());
        expect(source.customerLinking?.()).toEqual(full.get(name)?.customerLinking?.());
      }
    }
    for (const json of REFUSED)
      expect(
        refusal((j) => loadSourcesOfKind(j, shopifySource), json),
        json,
      ).toBe(refusal(loadSources, json));
  });
});
