import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildPointsReport,
  CSV_HEADER,
  pointsInYen,
  type PointsReport,
  pointsReportCsv,
  pointsReportSummary,
  reportSettings,
} from '../../../../shared/accounting/index.js';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { createRedemptionLedger, orderKey, refundKey, scanPointsRecords } from '../../../../shared/ledger/index.js';
import { loadSourceSettings } from '../../../../shared/sources/index.js';
import { testClient } from '../../../support/emulator.js';
import { MEMBERS, purchase, refund, useHarness } from '../points/harness.js';

/**
 * A month of ledger records as the protocol writes them (Shopify purchases and refunds through the real
 * processor, the emulator and dynalite; a Smaregi store's sale, till spend and give-back and a web
 * redemption through the ledger's own stores), reported for December 2026 (JST) at 0.5 yen a point.
 */

const JST = (local: string) => Date.parse(`${local}+09:00`);
const SOURCES = loadSourceSettings(
  JSON.stringify({
    shopify: { redemption: { enabled: true, valuePerPoint: '0.5' } },
    smaregi: { contractId: 'c1', webhookHeader: 'x-smaregi-webhook-token' },
  }),
);

describe('the points report of a month (ASBJ 29)', () => {
  const h = useHarness();
  let sales: {
    lastOfNovember: PurchaseEvent;
    firstOfDecember: PurchaseEvent;
    lastOfDecember: PurchaseEvent;
    firstOfJanuary: PurchaseEvent;
  };

  /** The gold member (5 %) buys `amount` at a JST time: the points are credited then. */
  const sale = async (name: string, at: string, amount: number) => {
    h.clock.set(JST(at));
    const event = purchase({ orderId: `pr-${name}`, eligibleAmount: amount, occurredAt: `${at}+09:00` });
    expect((await h.processor().process(event)).kind).toBe('credited');
    return event;
  };

  /** A Smaregi record written through the ledger's stores: claimed with its store, finished with its points. */
  const smaregi = async (orderId: string, at: string, outcome: 'credited' | 'debited', points: number) => {
    h.clock.set(JST(at));
    const ref = { source: 'smaregi', orderId };
    await h.ledger.claimPurchase({
      ...ref,
      owner: 'w',
      eligibleAmount: 0,
      currency: 'JPY',
      store: '3',
      externalKey: 'smaregi',
      externalId: 'C-1',
    });
    await h.ledger.finishPurchase(ref, 'w', { outcome, customerId: 'member-gold', pointsCredited: points });
  };

  const report = (month = '2026-12') =>
    buildPointsReport({ month, ...reportSettings(SOURCES), pages: scanPointsRecords(h.dynamo.documentClient, h.dynamo.tableName) });

  beforeAll(async () => {
    // The membership service's clock in the month, so the points' expiry dates lie ahead of it.
    await h.emulator.reset({ now: '2026-11-01 10:00:00', clients: [testClient({ members: MEMBERS })] });
    sales = {
      // 23:30 JST on 30 November is November's; 00:30 on 1 December is December's (15:30 UTC the day before).
      lastOfNovember: await sale('nov-30', '2026-11-30T23:30:00', 2000),
      firstOfDecember: await sale('dec-01', '2026-12-01T00:30:00', 1000),
      lastOfDecember: await sale('dec-31', '2026-12-31T23:30:00', 4000),
      firstOfJanuary: await sale('jan-01', '2027-01-01T00:30:00', 6000),
    };
    // A partial refund of December's first sale (400 of 1000: 20 of its 50 points).
    h.clock.set(JST('2026-12-05T10:00:00'));
    expect((await h.processor().process(refund(sales.firstOfDecember, 'r1', 400))).kind).toBe('debited');
    // Store 3: a sale earning 70, 30 points spent at the till, given back (the sale was voided).
    await smaregi('tx-9', '2026-12-10T12:00:00', 'credited', 70);
    await smaregi('tx-9/spend-1', '2026-12-10T12:00:00', 'debited', -30);
    await smaregi('tx-9/spend-1/back', '2026-12-11T09:00:00', 'credited', 30);
    // The web shop: 100 points turned into a code on 20 December; another 40 whose code ended unused came back.
    const redemptions = createRedemptionLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
    for (const [request, points, returned] of [
      ['req-used', 100, false],
      ['req-back', 40, true],
    ] as const) {
      h.clock.set(JST('2026-12-20T15:00:00'));
      const started = await redemptions.start(
        {
          source: 'shopify',
          customerId: 'cust-gold',
          memberId: 'member-gold',
          requestId: request,
          points,
          value: String(points / 2),
          currency: 'JPY',
          code: `CODE-${request}`,
          expiresAt: '2027-01-19T06:00:00.000Z',
        },
        'w',
      );
      expect(started.created).toBe(true);
      await redemptions.update(
        started.created ? started.record.pk : '',
        'w',
        { deducted: true, state: 'redeemed' },
        { release: !returned },
      );
      if (returned) {
        h.clock.set(JST('2026-12-27T08:00:00'));
        await redemptions.update(
          started.created ? started.record.pk : '',
          'w',
          { returnedPoints: points, state: 'returned', returnReason: 'expired' },
          { release: true },
        );
      }
    }
  }, 60_000);

  it('has one row per JST day, source and store, each point signed as it moved the balance', async () => {
    const r = await report();
    const rows = r.rows.map(({ day, source, store, granted, refunded, redeemed, spent_till, returned, net, net_yen }) => ({
      day,
      source,
      store,
      granted,
      refunded,
      redeemed,
      spent_till,
      returned,
      net,
      net_yen,
    }));
    expect(rows).toEqual([
      {
        day: '2026-12-01',
        source: 'shopify',
        store: 'web',
        granted: 50,
        refunded: 0,
        redeemed: 0,
        spent_till: 0,
        returned: 0,
        net: 50,
        net_yen: '25',
      },
      {
        day: '2026-12-05',
        source: 'shopify',
        store: 'web',
        granted: 0,
        refunded: -20,
        redeemed: 0,
        spent_till: 0,
        returned: 0,
        net: -20,
        net_yen: '-10',
      },
      {
        day: '2026-12-10',
        source: 'smaregi',
        store: '3',
        granted: 70,
        refunded: 0,
        redeemed: 0,
        spent_till: -30,
        returned: 0,
        net: 40,
        net_yen: '20',
      },
      {
        day: '2026-12-11',
        source: 'smaregi',
        store: '3',
        granted: 0,
        refunded: 0,
        redeemed: 0,
        spent_till: 0,
        returned: 30,
        net: 30,
        net_yen: '15',
      },
      {
        day: '2026-12-20',
        source: 'shopify',
        store: 'web',
        granted: 0,
        refunded: 0,
        redeemed: -140,
        spent_till: 0,
        returned: 0,
        net: -140,
        net_yen: '-70',
      },
      {
        day: '2026-12-27',
        source: 'shopify',
        store: 'web',
        granted: 0,
        refunded: 0,
        redeemed: 0,
        spent_till: 0,
        returned: 40,
        net: 40,
        net_yen: '20',
      },
      {
        day: '2026-12-31',
        source: 'shopify',
        store: 'web',
        granted: 200,
        refunded: 0,
        redeemed: 0,
        spent_till: 0,
        returned: 0,
        net: 200,
        net_yen: '100',
      },
    ]);
  });

  it('reads the ledger page by page to the same report', async () => {
    let read = 0;
    async function* counted() {
      for await (const page of scanPointsRecords(h.dynamo.documentClient, h.dynamo.tableName, { pageSize: 2 })) {
        read += 1;
        yield page;
      }
    }
    const paged = await buildPointsReport({ month: '2026-12', ...reportSettings(SOURCES), pages: counted() });
    expect(paged).toEqual(await report());
    expect(read).toBeGreaterThan(5);
  });

  it('puts a sale at 23:30 JST on the last day in its month and one at 00:30 JST on the 1st in the next', async () => {
    const november = await report('2026-11');
    const january = await report('2027-01');
    expect(november.rows.map((r) => [r.day, r.granted])).toEqual([['2026-11-30', 100]]);
    expect(january.rows.map((r) => [r.day, r.granted])).toEqual([['2027-01-01', 300]]);
    expect((await report()).rows.map((r) => r.day)).toContain('2026-12-31');
  });

  it('totals the month, reconciled with the orders’ books, and says so on its summary line', async () => {
    const r = await report();
    expect(r.totals).toMatchObject({
      granted: 320,
      refunded: -20,
      bonus: 0,
      redeemed: -140,
      spent_till: -30,
      returned: 70,
      clawed_back: 0,
      reversed: 0,
    });
    expect(r.totals.net).toBe(200);
    expect(r.totals.net_yen).toBe('100');
    expect(r.reconciled).toBe(true);
    expect(pointsReportSummary(r)).toBe('points-report: month=2026-12 rows=7 net=200 reconciled=yes');
  });

  it('writes the CSV with the accountants’ header and a line per row', async () => {
    const lines = pointsReportCsv(await report())
      .trimEnd()
      .split('\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines[0]).toBe('day,source,store,granted,refunded,bonus,redeemed,spent_till,returned,clawed_back,reversed,net,net_yen');
    expect(lines[3]).toBe('2026-12-10,smaregi,3,70,0,0,0,-30,0,0,0,40,20');
    expect(lines).toHaveLength(8);
  });

  it('rounds only the final yen figure, halves away from zero', async () => {
    // 0.5 yen a point: December 1's 50 points are exactly 25 yen; an odd net (-20 + 1) would be -9.5 -> -10.
    const r = await report();
    expect(r.rows[0]?.net_yen).toBe('25');
    expect([pointsInYen(-19, '0.5'), pointsInYen(19, '0.5'), pointsInYen(3, '0.333333')]).toEqual(['-10', '10', '1']);
  });

  describe('when the ledger is tampered with', () => {
    let tampered: PointsReport;
    beforeAll(async () => {
      // A refund record that says it debited 25 where its order's book (and the member's history) say 20.
      const sale = sales.firstOfDecember;
      await h.dynamo.documentClient.send(
        new UpdateCommand({
          TableName: h.dynamo.tableName,
          Key: { pk: refundKey('shopify', sale.orderId, 'r1') },
          UpdateExpression: 'SET pointsDebited = :p',
          ExpressionAttributeValues: { ':p': 25 },
        }),
      );
      tampered = await report();
    });

    it('does not reconcile, and names the refund and the column that differ', () => {
      expect(tampered.reconciled).toBe(false);
      const sale = sales.firstOfDecember;
      expect(tampered.differences).toEqual([
        'refunded: rows -25, ledger books -20',
        `${refundKey('shopify', sale.orderId, 'r1')}: its record -25, its order's book -20`,
      ]);
      expect(pointsReportSummary(tampered)).toBe('points-report: month=2026-12 rows=7 net=195 reconciled=no');
    });

    it('names a record of a points kind it cannot read rather than leaving it out', async () => {
      await h.dynamo.documentClient.send(
        new UpdateCommand({
          TableName: h.dynamo.tableName,
          Key: { pk: orderKey('smaregi', 'tx-9') },
          UpdateExpression: 'SET pointsCredited = :p',
          ExpressionAttributeValues: { ':p': 'seventy' },
        }),
      );
      const r = await report();
      expect(r.reconciled).toBe(false);
      expect(r.differences).toContain(`record ${orderKey('smaregi', 'tx-9')} does not read as an order`);
    });
  });
});
