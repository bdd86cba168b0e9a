import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminTokenSecretName, ConfigError, parseStageConfig } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import type { Json } from '../../support/json.js';

function stagingInput(): Record<string, Json> {
  return JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'staging.json'), 'utf8'));
}

function problemOf(input: unknown): string {
  try {
    parseStageConfig(input, 'stage.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('the configuration was accepted');
}

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
