import { describe, expect, it } from 'vitest';
import { ledgerReport } from '../../../ops/ledger-report.js';
import { bonusMarker, bonusReturnMarker } from '../../../shared/points/index.js';
import { purchase, refund, useHarness } from '../shared/points/harness.js';

/** `npm run ledger -- <source> <order id>` for an order in a campaign: the bonus's record and its entries. */
const h = useHarness();
const DOUBLE = { id: 'double', title: 'ポイント2倍', from: '2026-01-15T00:00:00+09:00', to: '2026-01-16T00:00:00+09:00', multiplier: '2' };

describe('npm run ledger for an order in a campaign', () => {
  it('shows the bonus record and the history entries of the bonus and its claw-back', async () => {
    const p = purchase();
    const processor = h.processor({ settings: { campaigns: [DOUBLE] } });
    await processor.process(p);
    await processor.process(refund(p, 'r1', 500));
    const { lines } = await ledgerReport(h.ledger, h.api, 'shopify', p.orderId);
    expect(lines).toContain('campaign bonus double (ポイント2倍)');
    expect(lines).toContain('    points: 50');
    expect(lines).toContain('    clawedBack: 25');
    expect(lines.some((l) => l.includes('+50') && l.includes(bonusMarker('shopify', p.orderId, 'double')))).toBe(true);
    expect(lines.some((l) => l.includes('-25') && l.includes(bonusReturnMarker('shopify', p.orderId, 'double', 'r1')))).toBe(true);
  });
});
