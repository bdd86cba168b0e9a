import { describe, expect, it } from 'vitest';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { bonusReturnMarker, refundMarker } from '../../../../shared/points/index.js';
import { DOUBLE_DAY, fulfilment, refund, shipped, useHarness } from './harness.js';

const h = useHarness();
const GOLD = 'member-gold';

/**
 * Issue 53, chaos seed 10: a refund booked before the moment of a provisional order, still finishing its park
 * while the moment's credit runs the refunds listed on the order. The credit meets the refund's lease and
 * passes it by; the refund then parks on an order that has earned. Gold earns 5%: ¥1000 -> 50, ¥100 back -> 5.
 */
const DOUBLE = DOUBLE_DAY;

/** The refund held between booking its share before the moment and parking, while the fulfilment is processed. */
async function parkedWhileEarning(p: PurchaseEvent, settings = {}) {
  await h.processor({ settings }).process(p);
  const r1 = refund(p, 'r1', 100, { refundExact: '100' });
  return h.whileHeldAt('refund:applied', r1, () => h.processor({ settings }).process(fulfilment(p), { followUpsQueued: true }));
}

describe('a refund parked before the moment while the order earns', () => {
  it('is debited its share by its own delivery, with no other delivery needed', async () => {
    const p = shipped();
    const [parked] = await parkedWhileEarning(p);
    expect(parked).toMatchObject({ kind: 'debited', points: 5 });
    expect(await h.entries(GOLD, refundMarker('shopify', p.orderId, 'r1'))).toEqual([-5]);
    expect(await h.balance(GOLD)).toBe(45);
  });

  it('does not stay parked on the earned order', async () => {
    const p = shipped();
    await parkedWhileEarning(p);
    expect(await h.ledger.getRefund({ source: 'shopify', orderId: p.orderId, refundId: 'r1' })).toMatchObject({
      state: 'done',
      outcome: 'debited',
    });
    expect((await h.ledger.getOrder(p))?.waitingRefunds).toEqual([]);
  });

  it('takes its share of the campaign bonus back too', async () => {
    const p = shipped();
    await parkedWhileEarning(p, { campaigns: [DOUBLE] });
    expect(await h.entries(GOLD, bonusReturnMarker('shopify', p.orderId, DOUBLE.id, 'r1'))).toEqual([-5]);
    expect(await h.balance(GOLD)).toBe(90);
  });
});

describe('refunds before the moment when the moment’s message dies among them', () => {
  it('are debited by the ticker, though that message never comes back', async () => {
    const p = shipped();
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 100, { refundExact: '100' }));
    await h.crashAt('refund:claimed', fulfilment(p));
    h.expireLeases();
    expect(await h.processor().creditDueEarns()).toMatchObject({ retry: 0 });
    expect(await h.entries(GOLD, refundMarker('shopify', p.orderId, 'r1'))).toEqual([-5]);
    expect(await h.balance(GOLD)).toBe(45);
  });
});
