import { describe, expect, it } from 'vitest';
import { earnsLater } from '../../../infra/constructs/earn-schedule.js';

describe('the stages that get the provisional points ticker', () => {
  it('a stage whose source earns at fulfilment gets it: its refunds before the moment are finished by it', () => {
    expect(earnsLater({ shopify: { externalKey: 'shopify', earnAfter: 'fulfilled' } })).toBe(true);
  });

  it('a stage whose sources all earn at payment does without it', () => {
    expect(earnsLater({ shopify: { externalKey: 'shopify', earnAfter: 'paid' }, pos: { externalKey: 'pos' } })).toBe(false);
  });
});
