import { describe, expect, it } from 'vitest';
import type { RedemptionRecord } from '../../../../shared/ledger/index.js';
import { codePage } from '../../../../shared/redemption/pages.js';

describe('the App Proxy pages the shopper sees', () => {
  it("shows when a discount code ends in Japan time with the offset, the record's UTC evening as the next Japan day", () => {
    const record: RedemptionRecord = {
      pk: 'redemption#shopify#1001#req-1',
      kind: 'redemption',
      source: 'shopify',
      customerId: '1001',
      memberId: 'm-1',
      requestId: 'req-1',
      points: 500,
      value: '500',
      currency: 'JPY',
      code: 'PTS-ABCDEFGHJKLM',
      expiresAt: '2026-12-08T15:00:00.000Z',
      state: 'redeemed',
      createdAt: '2026-12-01T15:00:00.000Z',
    };
    const html = codePage(record);
    expect(html).toContain('有効期限 / Valid until 2026-12-09 00:00:00 JST (+09:00).');
    expect(html).not.toContain('2026-12-08T15:00:00.000Z');
  });
});
