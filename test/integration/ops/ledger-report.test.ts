import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerReport } from '../../../ops/ledger-report.js';
import type { Ledger } from '../../../shared/ledger/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { purchaseMarker } from '../../../shared/points/index.js';
import { formatJst } from '../../../shared/time/index.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';
import { withLocalLedger } from '../../support/ledger.js';

/** `npm run ledger -- <source> <order id>` (ops/ledger-report.ts) on a real ledger (dynalite) and the emulator. */
describe('npm run ledger for an order whose points call is in doubt', () => {
  let ledger: Ledger;
  let emulator: TestEmulator;
  let openapi: OpenApiClient;
  withLocalLedger({ clock: Date.now }, (made) => {
    ({ ledger } = made);
  });
  beforeAll(async () => {
    emulator = await startTestEmulator();
    openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
  });
  afterAll(async () => {
    await openapi?.close();
    await emulator?.close();
  });

  it('shows until when the call is in doubt, as a time, the member it went to, and that member’s entry carrying the order’s marker', async () => {
    const ref = { source: 'shopify', orderId: 'doubt-1' };
    const member = await openapi.registerMember({});
    const since = Date.parse('2026-12-01T09:00:00.000Z');
    const until = since + 90_000;
    await ledger.claimPurchase({ ...ref, owner: 'w1', eligibleAmount: 1000, currency: 'JPY', externalKey: 'shopify', externalId: '1001' });
    // The call went out and its answer proved nothing; it landed at the member all the same.
    await openapi.grantPoints(member.id, { point: 10, remarks: purchaseMarker(ref.source, ref.orderId) });
    await ledger.releaseOrder(ref, 'w1', {
      lastError: 'reset: connection reset before an answer',
      needsReconcile: true,
      keepLease: true,
      inDoubt: { until, since, memberId: member.id },
    });

    const report = await ledgerReport(ledger, openapi, ref.source, ref.orderId);
    expect(report.found).toBe(true);
    expect(report.lines).toContain(`    inDoubtUntil: ${until} (${formatJst(until)})`);
    expect(report.lines).toContain(`    inDoubtSince: ${since} (${formatJst(since)})`);
    expect(report.lines).toContain(`    inDoubtMemberId: ${member.id}`);
    const history = report.lines.indexOf(
      `upstream point history of member ${member.id}, to whom the call in doubt went (entries carrying this order's markers, newest first):`,
    );
    expect(history).toBeGreaterThan(0);
    expect(report.lines.slice(history + 1).some((l) => l.includes('+10') && l.includes('lp1:shopify:order:doubt-1'))).toBe(true);
  });
});
