import { describe, expect, it } from 'vitest';
import { renderTitle, TitleTemplate } from '../../../../shared/sources/settings.js';

const values = { order: '#1001', orderId: '820982911946154508', source: 'shopify' };

describe('point titles', () => {
  it('fills every placeholder, as often as it appears', () => {
    expect(renderTitle('{source}: {order} / {order} ({orderId})', values)).toBe('shopify: #1001 / #1001 (820982911946154508)');
  });

  it('cuts a long title to 255 characters without splitting a character', () => {
    const title = renderTitle(`${'x'.repeat(254)}{order}`, { ...values, order: '🎁🎁' });
    expect(title).toBe(`${'x'.repeat(254)}`);
    expect(renderTitle(`${'x'.repeat(253)}{order}`, { ...values, order: '🎁🎁' })).toHaveLength(255);
  });

  it('accepts only known placeholders in a template', () => {
    expect(TitleTemplate.safeParse('Purchase {order}').success).toBe(true);
    expect(TitleTemplate.safeParse('Purchase {total}').success).toBe(false);
  });
});
