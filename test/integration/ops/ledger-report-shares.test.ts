import { describe, expect, it } from 'vitest';
import { ledgerReport } from '../../../ops/ledger-report.js';
import type { PurchaseEvent } from '../../../shared/events/index.js';
import { purchaseMarker, refundMarker, SUPERSEDED_SHARE, shareOrderId } from '../../../shared/points/index.js';
import { purchase, useHarness } from '../shared/points/harness.js';

/** `npm run ledger -- <source> <order id>` for an order shipped in parts: each share's record and entries. */
const h = useHarness();

describe('npm run ledger for an order shipped in parts', () => {
  it('shows each shipped share’s record, its take-back, and their history entries next to the order’s', async () => {
    const p = purchase({ earnAfter: { kind: 'fulfilled' }, eligibleAmount: 1038 });
    const half: PurchaseEvent = { ...p, eventId: `${p.eventId}:shipped:1/2`, earnMoment: 'partial', shipped: { num: '1', den: '2' } };
    await h.processor().process(p);
    await h.processor().process(half);
    await h.processor().process({ ...p, eventId: `${p.eventId}:fulfilled`, earnMoment: 'fulfilled' });
    const share = shareOrderId(p.orderId, 519);
    const { lines } = await ledgerReport(h.ledger, h.api, 'shopify', p.orderId);
    expect(lines).toContain(`shipped share ${share}`);
    expect(lines).toContain(`shipped share ${share}: refund ${SUPERSEDED_SHARE}`);
    expect(lines.some((l) => l.includes('+51') && l.includes(purchaseMarker('shopify', p.orderId)))).toBe(true);
    expect(lines.some((l) => l.includes('+25') && l.includes(purchaseMarker('shopify', share)))).toBe(true);
    expect(lines.some((l) => l.includes('-25') && l.includes(refundMarker('shopify', share, SUPERSEDED_SHARE)))).toBe(true);
  });
});
