import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../../../shared/campaigns/index.js';
import type { Checkpoint } from '../../../../../shared/points/index.js';
import { bonusMarker, bonusReturnMarker } from '../../../../../shared/points/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { IN_DOUBT_SECONDS, SimulatedCrash, useHarness } from '../../points/harness.js';
import { useTillMember } from '../../../../support/smaregi-membership.js';

/**
 * A campaign's bonus on a till sale under `tillPoints: membership` (issues 51/53): the bonus and each
 * share a return takes back reach the member's Smaregi customer record once, each its own mirror step
 * keyed by the bonus call's marker, at the sale or at its day, on the real emulator, dynalite and the
 * Smaregi stand-in over HTTP. The gold member (5 %) is the till's customer 1, code `cust-gold`; ¥11,000 a
 * product earns 500, and a 2× campaign as much again.
 */
const h = useHarness();
/** ポイント2倍 through the whole year the harness's clock moves in. */
const DOUBLE: Campaign = {
  id: 'double-2026',
  title: 'ポイント2倍',
  from: '2026-01-01T00:00:00+09:00',
  to: '2027-01-01T00:00:00+09:00',
  multiplier: '2',
};
const { till, steps, processor, tick, ringUp, halfBack, point } = useTillMember(h, { campaigns: [DOUBLE] });
const DAY_MS = 86_400_000;
const GOLD = 'member-gold';
const atOnce = SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', tillPoints: 'membership', returns: 'auto' });
const atDay = SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', earnAfter: { days: 14 }, tillPoints: 'membership' });
const deliver = (id: string, settings = atOnce, checkpoint?: Checkpoint, client?: typeof till.client) =>
  processor({ checkpoint, client }).process(smaregiThinEvent(id, 'smaregi', settings, h.clock(), 'created'));
const bonus = (orderId: string) => bonusMarker('smaregi', orderId, DOUBLE.id);
/** The real client, but Smaregi's answer to the second point add is lost after Smaregi applied it (the bonus's: it follows the base's). */
function losingSecondAdd(): typeof till.client {
  let adds = 0;
  return {
    ...till.client,
    addCustomerPoint: async (id: string, delta: number) => {
      const after = await till.client.addCustomerPoint(id, delta);
      if (++adds === 2) throw new Error('answer lost');
      return after;
    },
  };
}

describe('a till sale in a 2x campaign under tillPoints membership', () => {
  it('adds the base and the bonus to the till record once, though the sale is delivered twice', async () => {
    const start = point();
    ringUp('9001', 'B-9001', 1);
    await deliver('9001');
    await deliver('9001');
    expect([point() - start, await h.entries(GOLD, bonus('9001'))]).toEqual([1000, [500]]);
  }, 120_000);

  it('adds the bonus to the till record once when the worker died right after the bonus call', async () => {
    const start = point();
    ringUp('9002', 'B-9002', 1);
    const crash: Checkpoint = (s) => {
      if (s === 'bonus:granted') throw new SimulatedCrash(`crash at ${s}`);
    };
    await expect(deliver('9002', atOnce, crash)).rejects.toThrow(SimulatedCrash);
    h.passHorizon();
    await deliver('9002');
    await deliver('9002');
    expect([point() - start, (await steps().get('smaregi', bonus('9002')))?.state]).toEqual([1000, 'done']);
  }, 120_000);

  it('adds the bonus once when Smaregi applied the add but its answer was lost', async () => {
    const start = point();
    ringUp('9003', 'B-9003', 1);
    const first = await deliver('9003', atOnce, undefined, losingSecondAdd());
    h.clock.advance(IN_DOUBT_SECONDS * 1000);
    await deliver('9003');
    await deliver('9003');
    expect([first.kind, point() - start, (await steps().get('smaregi', bonus('9003')))?.state]).toEqual(['outcome_unknown', 1000, 'done']);
  }, 120_000);

  it('takes half of the base and half of the bonus off the till record when half the sale is returned', async () => {
    ringUp('9004', 'B-9004', 2);
    await deliver('9004');
    const afterSale = point();
    h.clock.advance(DAY_MS);
    ringUp('9005', 'B-9004', 1, true);
    await deliver('9005');
    await deliver('9005');
    const back = bonusReturnMarker('smaregi', '9004', DOUBLE.id, 'return-9005');
    expect([point() - afterSale, await h.entries(GOLD, back), (await steps().get('smaregi', back))?.state]).toEqual([
      -1000,
      [-500],
      'done',
    ]);
  }, 120_000);
});

describe('a till sale in a 2x campaign taken back whole under tillPoints membership', () => {
  it('takes the base and the whole bonus off the till record when the sale is deleted', async () => {
    ringUp('9006', 'B-9006', 1);
    await deliver('9006');
    const afterSale = point();
    till.standIn.deleteTransaction('9006');
    await processor().process(smaregiThinEvent('9006', 'smaregi', atOnce, h.clock(), 'deleted'));
    const back = bonusReturnMarker('smaregi', '9006', DOUBLE.id, 'cancel');
    expect([point() - afterSale, await h.entries(GOLD, back)]).toEqual([-1000, [-500]]);
  }, 120_000);
});

describe('a till sale earned at its day in a 2x campaign under tillPoints membership', () => {
  it('adds the base and the bonus to the till record at the day, once, though the due tick runs twice', async () => {
    const start = point();
    ringUp('9101', 'B-9101', 1);
    expect(await deliver('9101', atDay)).toMatchObject({ kind: 'pending_earn' });
    h.clock.advance(15 * DAY_MS);
    await tick();
    await tick();
    expect([point() - start, await h.entries(GOLD, bonus('9101'))]).toEqual([1000, [500]]);
  }, 120_000);

  it('takes half of the base and half of the bonus off the till record at the day when half the sale was returned before it', async () => {
    const start = point();
    ringUp('9102', 'B-9102', 2);
    await deliver('9102', atDay);
    h.clock.advance(DAY_MS);
    expect(await processor().process(halfBack('9102', 'return-9103'))).toMatchObject({ action: 'ack' });
    h.clock.advance(14 * DAY_MS);
    await tick();
    await tick();
    expect([point() - start, await h.entries(GOLD, bonus('9102'))]).toEqual([1000, [1000]]);
  }, 120_000);
});
