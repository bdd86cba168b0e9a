import type { RefundEvent } from '../../../../../shared/events/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTillMirrors, createTillReturns } from '../../../../../shared/ledger/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { dueEarnMirror, type TillMirrorDeps } from '../../../../../shared/sources/smaregi/index.js';
import { SENDER_RESOLUTIONS, withSenderResolution } from '../../../../../shared/sources/resolution.entry.js';
import { smaregiTillTransaction } from '../../../../../kit/smaregi.js';
import { IN_DOUBT_SECONDS, SimulatedCrash, useHarness } from '../../points/harness.js';
import { useSmaregiStandIn } from '../../../../support/smaregi.js';

/**
 * A till sale earned at its day (`earnAfter: {"days": 14}`) under `tillPoints: membership` (issue 53):
 * the due tick credits it and mirrors the credit (and the debits of returns before the day) to the
 * member's Smaregi customer record, once, on the real emulator, dynalite and the Smaregi stand-in over
 * HTTP. The gold member (5 %) is the till's customer 1, code `cust-gold`; ¥11,000 a product earns 500.
 */
const h = useHarness();
const till = useSmaregiStandIn();
const DAY_MS = 86_400_000;
const GOLD = 'member-gold';
beforeAll(() => {
  till.standIn.putCustomer({ customerId: '1', customerCode: 'cust-gold', point: '100000' } as never);
});

const settings = SmaregiSettings.parse({
  contractId: 'c1',
  externalKey: 'shopify',
  earnAfter: { days: 14 },
  tillPoints: 'membership',
  returns: 'auto',
});
const steps = () => createTillMirrors({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
const processor = () =>
  withSenderResolution(
    h.processor(),
    { resolutions: SENDER_RESOLUTIONS, clients: { smaregi: () => till.client } },
    {
      ledger: h.ledger,
      openapi: h.api,
      tillMirrors: steps(),
      tillReturns: createTillReturns({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock }),
      inDoubtSeconds: IN_DOUBT_SECONDS,
    },
  );
const mirrorDeps = (): TillMirrorDeps => ({
  source: 'smaregi',
  externalKey: 'shopify',
  memberLookup: 'external_id',
  customerField: 'customerCode',
  openapi: h.api,
  smaregi: {
    addCustomerPoint: (id, delta) => till.client.addCustomerPoint(id, delta),
    getCustomerPoint: (id) => till.client.getCustomerPoint(id),
    findCustomerByCode: (code) => till.client.findCustomerByCode(code),
    listTransactions: (query) => till.client.listTransactions(query),
    readCustomer: (id) => till.client.readCustomer(id),
  },
  steps: steps(),
  inDoubtSeconds: IN_DOUBT_SECONDS,
});
/** The due tick as the worker runs it under tillPoints membership. */
const tick = () => processor().creditDueEarns(undefined, dueEarnMirror(mirrorDeps(), h.ledger));
const deliver = (id: string, action = 'created') => processor().process(smaregiThinEvent(id, 'smaregi', settings, h.clock(), action));
const rungAt = new Map<string, string>();
/** A sale (or with `returned` a plain return) of `quantity` × product `productId` at ¥11,000, rung up now (an edit keeps its time). */
async function rungUp(id: string, productId: string, quantity: number, returned = false, action = 'created') {
  const at = rungAt.get(id) ?? new Date(h.clock()).toISOString();
  rungAt.set(id, at);
  till.standIn.putTransaction({ ...smaregiTillTransaction(id, { productId, quantity, at }, returned), customerCode: 'cust-gold' } as never);
  return deliver(id, action);
}
/** A refund of half a ¥22,000 sale (¥10,000 of its ¥20,000 earning amount). */
const halfBack = (orderId: string, refundId: string): RefundEvent => ({
  type: 'refund',
  eventId: `smaregi:refund:${orderId}:${refundId}`,
  source: 'smaregi',
  orderId,
  refundId,
  customer: null,
  currency: 'JPY',
  occurredAt: new Date(h.clock()).toISOString(),
  pointTitle: `Refund ${orderId}`,
  test: false,
  delivery: { id: refundId, topic: 'ops/returns' },
  refundAmount: 10_000,
  refundExact: '10000',
  refundsRemainder: false,
});
const point = () => Number(till.standIn.customerPoint('1'));
const marker = (orderId: string) => `lp1:smaregi:order:${encodeURIComponent(orderId)}`;

describe('a till sale earned at its day under tillPoints membership', () => {
  it('adds the day’s 500 points to the till record once, though the due tick runs twice', async () => {
    const start = point();
    expect(await rungUp('8001', 'P-8001', 1)).toMatchObject({ kind: 'pending_earn' });
    const atSale = point();
    h.clock.advance(15 * DAY_MS);
    await tick();
    await tick();
    expect([atSale - start, point() - start, await h.entries(GOLD, marker('8001'))]).toEqual([0, 500, [500]]);
  }, 120_000);

  it('adds the day’s points to the till record once when the tick died between the credit and the mirror', async () => {
    const start = point();
    await rungUp('8002', 'P-8002', 1);
    h.clock.advance(15 * DAY_MS);
    const died = processor().creditDueEarns(undefined, async () => {
      throw new SimulatedCrash('died before the mirror');
    });
    await expect(died).rejects.toThrow(SimulatedCrash);
    const afterCrash = point();
    await tick();
    await tick();
    expect([afterCrash - start, point() - start, (await steps().get('smaregi', marker('8002')))?.state]).toEqual([0, 500, 'done']);
  }, 120_000);

  it('keeps the sale due while the till add’s answer was lost, then settles it once after the horizon, not adding twice', async () => {
    const start = point();
    await rungUp('8006', 'P-8006', 1);
    h.clock.advance(15 * DAY_MS);
    // Smaregi applies the add but its answer is lost (a 500 after the commit).
    await fetch(`${till.standIn.url}/__smaregi/write-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 500, times: 1, commit: true }),
    });
    const first = await tick();
    const soon = await tick();
    h.clock.advance(IN_DOUBT_SECONDS * 1000);
    const after = await tick();
    expect([first.retry, soon.retry, after.done, point() - start, (await steps().get('smaregi', marker('8006')))?.state]).toEqual([
      1,
      1,
      1,
      500,
      'done',
    ]);
  }, 120_000);

  it('leaves the till record with the credit less a return’s share when half the sale was taken back before the day', async () => {
    const start = point();
    await rungUp('8003', 'P-8003', 2);
    h.clock.advance(DAY_MS);
    // Half the sale given back before the day (a return applied to it: its refund, as queued for it).
    expect(await processor().process(halfBack('8003', 'return-8004'))).toMatchObject({ action: 'ack' });
    h.clock.advance(14 * DAY_MS);
    await tick();
    await tick();
    expect([
      point() - start,
      await h.entries(GOLD, marker('8003')),
      (await steps().get('smaregi', 'lp1:smaregi:refund:8003:return-8004'))?.state,
    ]).toEqual([500, [1000], 'done']);
  }, 120_000);

  it('leaves the till record with the credit less a plain return’s share when the return was matched before the day', async () => {
    const start = point();
    await rungUp('8007', 'P-8007', 2);
    h.clock.advance(DAY_MS);
    await rungUp('8008', 'P-8007', 1, true);
    h.clock.advance(14 * DAY_MS);
    await tick();
    await tick();
    expect([point() - start, (await steps().get('smaregi', 'lp1:smaregi:refund:8007:return-8008'))?.state]).toEqual([500, 'done']);
  }, 120_000);

  it('takes a lowering edit’s points back from the till record after the day as well', async () => {
    const start = point();
    await rungUp('8005', 'P-8005', 2);
    h.clock.advance(15 * DAY_MS);
    await tick();
    await rungUp('8005', 'P-8005', 1, false, 'edited');
    expect(point() - start).toBe(500);
  }, 120_000);
});
