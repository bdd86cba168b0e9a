import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHOPIFY_API_VERSION, loadSources } from '../../shared/sources/index.js';

/**
 * The shopify.app.toml template (a redeeming app: `write_discounts`) subscribes what `npm run shopify --
 * subscribe` subscribes for a redeeming source, in the same API version.
 */
const TOML = readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8');
const list = (key: string) =>
  [...(new RegExp(`^${key} = \\[([^\\]]*)\\]`, 'm').exec(TOML)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);

describe('shopify.app.toml', () => {
  const needs = loadSources(JSON.stringify({ shopify: { redemption: { enabled: true } } })).get('shopify')!.subscriptions!();

  it('subscribes the topics the Shopify source needs, and the compliance topics it handles', () => {
    expect(list('topics')).toEqual([...needs.topics]);
    expect(list('compliance_topics')).toEqual([...needs.complianceTopics]);
  });

  it('names the default API version and the app proxy route', () => {
    expect(TOML).toContain(`api_version = "${DEFAULT_SHOPIFY_API_VERSION}"`);
    expect(TOML).toMatch(/^url = "https:\/\/[^"]+\/proxy\/shopify"$/m);
  });
});
