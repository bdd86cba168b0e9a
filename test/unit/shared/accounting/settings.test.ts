import { describe, expect, it } from 'vitest';
import { jstDay, parseMonth, previousJstMonth, reportSettings } from '../../../../shared/accounting/index.js';
import { loadSourceSettings } from '../../../../shared/sources/index.js';

describe('the points report’s settings', () => {
  it('values a point as the redeeming source does, and files a Shopify source’s sales under the store web', () => {
    const settings = reportSettings(
      loadSourceSettings(JSON.stringify({ shop2: { kind: 'shopify', redemption: { enabled: true, valuePerPoint: '0.8' } } })),
    );
    expect(settings.valuePerPoint).toBe('0.8');
    expect(settings.valueFrom).toBe('shop2.redemption.valuePerPoint');
    expect([settings.storeOf('shop2', undefined), settings.storeOf('pos', undefined), settings.storeOf('smaregi', '12')]).toEqual([
      'web',
      '-',
      '12',
    ]);
  });

  it('values a point at 1 yen, saying so, when no source redeems', () => {
    expect(reportSettings(loadSourceSettings(undefined))).toMatchObject({
      valuePerPoint: '1',
      valueFrom: 'the default (no source redeems)',
    });
  });

  it('refuses sources that value a point differently, naming each', () => {
    const sources = loadSourceSettings(
      JSON.stringify({
        shopify: { redemption: { enabled: true, valuePerPoint: '1' } },
        outlet: { kind: 'shopify', redemption: { enabled: true, valuePerPoint: '0.5' } },
      }),
    );
    expect(() => reportSettings(sources)).toThrow(
      expect.objectContaining({ kind: 'conflicting_value_per_point', message: expect.stringContaining('shopify 1, outlet 0.5') }),
    );
  });
});

describe('JST months', () => {
  it('counts a day in Asia/Tokyo whatever the machine’s zone: 15:00 UTC is the next day', () => {
    expect([jstDay('2026-12-31T14:59:59.999Z'), jstDay('2026-12-31T15:00:00.000Z')]).toEqual(['2026-12-31', '2027-01-01']);
  });

  it('exports December on 1 January (JST), across the year', () => {
    expect(previousJstMonth(Date.parse('2027-01-01T01:00:00+09:00'))).toBe('2026-12');
    expect(previousJstMonth(Date.parse('2026-12-01T01:00:00+09:00'))).toBe('2026-11');
  });

  it('takes a month as YYYY-MM only', () => {
    expect(parseMonth('2026-12')).toBe('2026-12');
    for (const bad of ['2026-1', '2026-00', '2026-13', '12-2026', '2026-12-01']) {
      expect(() => parseMonth(bad)).toThrow(expect.objectContaining({ kind: 'invalid_month' }));
    }
  });
});
