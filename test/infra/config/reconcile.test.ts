import { describe, expect, it } from 'vitest';
import { adminTokenSecretName, parseStageConfig } from '../../../infra/config/index.js';
import { problemOf, stagingInput } from '../support/stage-input.js';

describe('stage configuration: scheduled reconciliation', () => {
  it('fills in every 15 minutes over the 3 hours before the last 5 minutes, alarming after 3 runs in a row', () => {
    const input = stagingInput();
    input.reconcile = { shopify: { shopDomain: 'my-shop.myshopify.com' } };
    expect(parseStageConfig(input).reconcile.shopify).toEqual({
      shopDomain: 'my-shop.myshopify.com',
      everyMinutes: 15,
      lookbackHours: 3,
      settleMinutes: 5,
      alarmAfterRuns: 3,
    });
  });

  it('names the token secret after the stage unless one is given', () => {
    const input = stagingInput();
    input.reconcile = { shopify: { shopDomain: 'my-shop.myshopify.com' } };
    expect(adminTokenSecretName(parseStageConfig(input), 'shopify')).toBe('loyalty-bridge/staging/shopify-admin/shopify');
  });

  it('refuses to reconcile a POS source', () => {
    const input = stagingInput();
    input.reconcile = { pos: { shopDomain: 'my-shop.myshopify.com' } };
    expect(problemOf(input)).toContain('reconcile.pos: only Shopify sources can be reconciled');
  });

  it('refuses to reconcile a source that is not configured', () => {
    const input = stagingInput();
    input.reconcile = { 'shopify-eu': { shopDomain: 'my-shop.myshopify.com' } };
    expect(problemOf(input)).toContain('no source shopify-eu is configured');
  });

  it('refuses a shop that is not a myshopify.com domain', () => {
    const input = stagingInput();
    input.reconcile = { shopify: { shopDomain: 'https://my-shop.com' } };
    expect(problemOf(input)).toContain('shopDomain');
  });
});
