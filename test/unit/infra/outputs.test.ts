import { describe, expect, it } from 'vitest';
import { webhookSecretNameOutputKey, webhookUrlOutputKey } from '../../../infra/outputs.js';

describe('stack output keys', () => {
  it('keep a plain source name as it is, the key deployed stacks already have', () => {
    expect(webhookUrlOutputKey('shopify')).toBe('WebhookUrlshopify');
    expect(webhookSecretNameOutputKey('pos')).toBe('WebhookSecretNamepos');
  });

  it('give two sources that differ only by a hyphen different keys, letters and digits only', () => {
    const keys = ['shopify-eu', 'shopifyeu', 'shop-1', 'shop1'].map(webhookUrlOutputKey);
    expect(new Set(keys).size).toBe(4);
    expect(keys.every((k) => /^[A-Za-z0-9]+$/.test(k))).toBe(true);
  });
});
