import { describe, expect, it } from 'vitest';
import { parseMarker, purchaseMarker, refundMarker, reversalMarker } from '../../../../shared/points/markers.js';

describe('parseMarker', () => {
  it('reads back the operation of a purchase marker, ids with separators included', () => {
    expect(parseMarker(purchaseMarker('shopify', 'a:b#1'))).toEqual({ kind: 'order', source: 'shopify', orderId: 'a:b#1' });
  });

  it('reads back the operation of a refund marker', () => {
    expect(parseMarker(refundMarker('pos', 'R-1', 'ret:2'))).toEqual({ kind: 'refund', source: 'pos', orderId: 'R-1', refundId: 'ret:2' });
  });

  it("reads back the audit's reversal of an extra history entry", () => {
    expect(reversalMarker('shopify', '1042')).toBe('lp1:shopify:reversal:1042');
    expect(parseMarker(reversalMarker('shopify', 'e:7'))).toEqual({ kind: 'reversal', source: 'shopify', entryId: 'e:7' });
    expect(parseMarker('lp1:shopify:reversal:1042:extra')).toBeUndefined();
  });

  it('tells that remarks written by anyone else are not a marker of ours', () => {
    for (const remarks of [
      null,
      undefined,
      '',
      'goodwill',
      'lp2:shopify:order:1',
      'lp1:shopify:order',
      'lp1:shopify:order:1:extra',
      'lp1:shopify:gift:1',
      'lp1:shopify:order:%E0%A4%A',
    ]) {
      expect(parseMarker(remarks), String(remarks)).toBeUndefined();
    }
  });
});
