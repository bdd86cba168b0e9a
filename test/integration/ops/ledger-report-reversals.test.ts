import { describe, expect, it } from 'vitest';
import { ledgerReport } from '../../../ops/ledger-report.js';
import { auditLedger, type AuditResult, reversalDepsOf, scanLedger } from '../../../shared/audit/index.js';
import { ProcessingSettings } from '../../../shared/config/processing-settings.js';
import { createReversalLedger } from '../../../shared/ledger/index.js';
import { purchaseMarker, refundMarker, reversalMarker } from '../../../shared/points/index.js';
import { IN_DOUBT_SECONDS, LEASE_SECONDS, purchase, refund, useHarness } from '../shared/points/harness.js';

/** `npm run ledger`'s report against the real emulator and dynalite. */
const h = useHarness();

/** One audit run over these orders only (the harness's table is shared by the processing tests). */
async function auditOrders(...orderIds: string[]): Promise<AuditResult> {
  const processing = ProcessingSettings.parse({ leaseSeconds: LEASE_SECONDS, inDoubtSeconds: IN_DOUBT_SECONDS });
  const reversal = reversalDepsOf({
    client: h.dynamo.documentClient,
    tableName: h.dynamo.tableName,
    clock: h.clock,
    openapi: h.api,
    processing,
  });
  const records = await scanLedger(h.dynamo.documentClient, h.dynamo.tableName);
  const ours = new Set(orderIds);
  const mine = { orders: records.orders.filter((o) => ours.has(o.orderId)), refunds: records.refunds.filter((r) => ours.has(r.orderId)) };
  return auditLedger(mine, { ledger: h.ledger, openapi: h.api, reversal });
}

describe('npm run ledger (an order)', () => {
  it("shows the audit's reversal of a doubled credit: its record and its entry next to the order's", async () => {
    const p = purchase();
    expect((await h.processor().process(p)).kind).toBe('credited');
    const marker = purchaseMarker('shopify', p.orderId);
    await h.api.grantPoints('member-gold', { point: 50, title: 'late', remarks: marker });
    expect(await auditOrders(p.orderId)).toMatchObject({ reversed: 1 });

    const reversals = createReversalLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
    const report = await ledgerReport(h.ledger, h.api, 'shopify', p.orderId, reversals);
    const [record] = await reversals.list({ source: 'shopify', orderId: p.orderId });
    expect(report.lines).toContain(`reversal of extra entry ${record!.entryId} (${marker})`);
    expect(report.lines).toContain('    outcome: reversed');
    const history = report.lines.findIndex((l) => l.startsWith('upstream point history'));
    const rows = report.lines.slice(history + 1).filter((l) => l.includes('lp1:shopify:'));
    expect(rows.filter((l) => l.includes(marker))).toHaveLength(2);
    expect(rows.some((l) => /-50\s.*lp1:shopify:reversal:/.test(l) && l.includes(reversalMarker('shopify', record!.entryId)))).toBe(true);
  });

  it("shows a clamp's shortfall the audit settled, as such, under the clamped refund's order", async () => {
    const [a, b] = [purchase(), purchase()];
    const processor = h.processor();
    for (const e of [a, b, refund(a, 'ra', 333)]) await processor.process(e);
    const doubled = refundMarker('shopify', a.orderId, 'ra');
    await h.api.grantPoints('member-gold', { point: -16, remarks: doubled });
    await h.api.grantPoints('member-gold', { point: -34, title: 'spent at the till' });
    expect(await processor.process(refund(b, 'cancel', 1000))).toMatchObject({ kind: 'insufficient_points', shortfall: 16 });
    await auditOrders(a.orderId, b.orderId);

    const reversals = createReversalLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
    const report = await ledgerReport(h.ledger, h.api, 'shopify', b.orderId, reversals);
    expect(report.lines).toContain(`shortfall of refund cancel settled by the audit (its clamp came after a double of ${doubled})`);
    expect(report.lines).toContain('    shortfallSettled: 16');
  });
});
