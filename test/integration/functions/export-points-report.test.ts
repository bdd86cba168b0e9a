import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportDeps, makeHandler } from '../../../functions/export-points-report.js';
import { CSV_HEADER, reportSettings } from '../../../shared/accounting/index.js';
import { createLedger, type Ledger, refundKey, scanPointsRecords } from '../../../shared/ledger/index.js';
import { loadSourceSettings } from '../../../shared/sources/index.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../kit/dynalite.js';

/**
 * export-points-report as the schedule runs it: the ledger in dynalite through the real SDK, the bucket's
 * write taken at its boundary (what would be PutObject's key, body and content type).
 */

const JST = (local: string) => Date.parse(`${local}+09:00`);

describe('export-points-report', () => {
  let dynamo: LocalDynamo;
  let ledger: Ledger;
  const clock = manualClock(JST('2026-11-30T23:30:00'));
  const written: { key: string; body: string; contentType: string }[] = [];
  const deps = (): ExportDeps => ({
    settings: reportSettings(loadSourceSettings(undefined)),
    pages: () => scanPointsRecords(dynamo.documentClient, dynamo.tableName),
    put: async (key, body, contentType) => {
      written.push({ key, body, contentType });
    },
    clock,
    logger: { info: () => {} },
  });

  beforeAll(async () => {
    dynamo = await startDynalite();
    ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
    // A Shopify sale credited 120 points at 23:30 JST on 30 November, refunded by 20 on the same day.
    const ref = { source: 'shopify', orderId: '5001' };
    await ledger.claimPurchase({ ...ref, owner: 'w', eligibleAmount: 12000, currency: 'JPY', externalKey: 'shopify', externalId: '1001' });
    await ledger.finishPurchase(ref, 'w', { outcome: 'credited', customerId: 'm1', pointsCredited: 120 });
    const refundRef = { ...ref, refundId: 'r1' };
    await ledger.claimRefund(refundRef, 'w', '{}');
    await ledger.claimOrderForRefund(refundRef, 'w');
    await ledger.applyRefund(ref, 'w', {
      refundId: 'r1',
      applied: { amount: 2000, refundedAfter: 2000, target: 20, debited: 20, at: new Date(clock()).toISOString() },
      refundedSoFar: 2000,
      debitTarget: 20,
      debited: 20,
    });
    await ledger.finishRefund(refundRef, 'w', { state: 'done', outcome: 'debited', pointsDebited: 20, debitTarget: 20 });
  });
  afterAll(async () => {
    await dynamo?.stop();
  });

  it('writes the previous JST month’s CSV as points-report/YYYY-MM.csv when run on the 1st (JST)', async () => {
    clock.set(JST('2026-12-01T01:00:00'));
    const result = await makeHandler(deps())();
    expect(result).toMatchObject({ month: '2026-11', key: 'points-report/2026-11.csv', rows: 1, net: 100 });
    expect(written).toEqual([
      {
        key: 'points-report/2026-11.csv',
        body: `${CSV_HEADER}\n2026-11-30,shopify,web,120,-20,0,0,0,0,0,0,100,100\n`,
        contentType: 'text/csv; charset=utf-8',
      },
    ]);
  });

  it('exports the month its input names instead', async () => {
    written.length = 0;
    const result = await makeHandler(deps())({ month: '2026-10' });
    expect(result).toMatchObject({ month: '2026-10', rows: 0, net: 0 });
    expect(written.map((w) => [w.key, w.body])).toEqual([['points-report/2026-10.csv', `${CSV_HEADER}\n`]]);
  });

  it('refuses an input month that is not YYYY-MM and writes nothing', async () => {
    written.length = 0;
    await expect(makeHandler(deps())({ month: 'November' })).rejects.toMatchObject({ kind: 'invalid_month' });
    expect(written).toEqual([]);
  });

  it('fails with what differs, and writes nothing, when the month does not reconcile', async () => {
    written.length = 0;
    await dynamo.documentClient.send(
      new UpdateCommand({
        TableName: dynamo.tableName,
        Key: { pk: refundKey('shopify', '5001', 'r1') },
        UpdateExpression: 'SET pointsDebited = :p',
        ExpressionAttributeValues: { ':p': 2 },
      }),
    );
    await expect(makeHandler(deps())()).rejects.toMatchObject({
      name: 'ReportNotReconciledError',
      kind: 'not_reconciled',
      differences: ['refunded: rows -2, ledger books -20', `${refundKey('shopify', '5001', 'r1')}: its record -2, its order's book -20`],
    });
    expect(written).toEqual([]);
  });
});
