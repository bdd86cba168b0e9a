import { describe, expect, it } from 'vitest';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { IN_DOUBT_SECONDS, SimulatedCrash, useHarness } from '../../points/harness.js';
import { useTillMember } from '../../../../support/smaregi-membership.js';

/**
 * A till sale earned at its day (`earnAfter: {"days": 14}`) under `tillPoints: membership` (issue 53):
 * the due tick credits it and mirrors the credit (and the debits of returns before the day) to the
 * member's Smaregi customer record, once, on the real emulator, dynalite and the Smaregi stand-in over
 * HTTP. The gold member (5 %) is the till's customer 1, code `cust-gold`; ¥11,000 a product earns 500.
 */
const h = useHarness();
const { till, steps, processor, tick, ringUp, halfBack, point } = useTillMember(h);
const DAY_MS = 86_400_000;
const GOLD = 'member-gold';

const settings = SmaregiSettings.parse({
  contractId: 'c1',
  externalKey: 'shopify',
  earnAfter: { days: 14 },
  tillPoints: 'membership',
  returns: 'auto',
});
const deliver = (id: string, action = 'created') => processor().process(smaregiThinEvent(id, 'smaregi', settings, h.clock(), action));
/** A sale (or with `returned` a plain return) of `quantity` × product `productId` at ¥11,000, rung up now and delivered (an edit keeps its time). */
async function rungUp(id: string, productId: string, quantity: number, returned = false, action = 'created') {
  ringUp(id, productId, quantity, returned);
  return deliver(id, action);
}
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
