import { describe, expect, it } from 'vitest';
import { loadDeployment, loadStageConfig, stageSources } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import { problemOf } from '../support/stage-input.js';

/** Kana or kanji: what a member of a Japanese shop reads in the point history (docs/deploy.md, "Titles"). */
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

describe('the example stage files', () => {
  it('give every point and refund title in Japanese, as docs/deploy.md recommends for a Japanese shop', () => {
    for (const stage of loadDeployment(INFRA_DIR).stages) {
      for (const [name, source] of Object.entries(stage.sources)) {
        for (const key of ['pointTitle', 'refundTitle'] as const) {
          const title = (source as Record<string, unknown>)[key];
          if (title !== undefined) expect(title, `${stage.stageName}.sources.${name}.${key}`).toMatch(JAPANESE);
        }
      }
    }
  });

  it('name the shop of every Shopify source (shopDomains), the one their reconcile reads', () => {
    for (const name of ['dev', 'staging', 'production']) {
      const stage = loadStageConfig(INFRA_DIR, name);
      for (const [source, configured] of stageSources(stage)) {
        if (configured.kind !== 'shopify') continue;
        const shops = configured.customerLinking?.().shopDomains ?? [];
        expect(shops.length, `${name}.sources.${source}.shopDomains`).toBe(1);
        const reconciled = stage.reconcile[source]?.shopDomain;
        if (reconciled !== undefined) expect(shops, `${name}.reconcile.${source}.shopDomain`).toEqual([reconciled]);
      }
    }
  });

  it('refuse a production stage whose Shopify source names no shop, naming the setting', () => {
    const production = loadStageConfig(INFRA_DIR, 'production');
    const { shopDomains: _, ...shopify } = production.sources.shopify as Record<string, unknown>;
    const input = JSON.parse(JSON.stringify({ ...production, sources: { ...production.sources, shopify } }));
    expect(problemOf(input)).toMatch(/sources\.shopify\.shopDomains: a production stage names its shop/);
    expect(() => problemOf({ ...input, production: false })).toThrow('the configuration was accepted');
  });
});
