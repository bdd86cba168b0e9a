import { describe, expect, it } from 'vitest';
import { markedHistory, shareTimeline } from '../../../console/orders.js';
import type { PurchaseEvent } from '../../../shared/events/index.js';
import { SUPERSEDED_SHARE, shareOrderId } from '../../../shared/points/index.js';
import { purchase, useHarness } from '../shared/points/harness.js';

const h = useHarness();

/** Issue 53: an order shipped in two parcels (gold, 5%: ¥1038, half shipped first: 25, then the whole: 51). */
const paid = () => purchase({ earnAfter: { kind: 'fulfilled' }, eligibleAmount: 1038, eligibleExact: '1038' });
const partial = (p: PurchaseEvent): PurchaseEvent => ({
  ...p,
  eventId: `${p.eventId}:shipped:1/2`,
  delivery: { id: `${p.delivery.id}-shipped`, topic: 'orders/partially_fulfilled' },
  earnMoment: 'partial',
  shipped: { num: '1', den: '2' },
});
const fulfilment = (p: PurchaseEvent): PurchaseEvent => ({
  ...p,
  eventId: `${p.eventId}:fulfilled`,
  delivery: { id: `${p.delivery.id}-fulfilled`, topic: 'orders/fulfilled' },
  earnMoment: 'fulfilled',
});

async function shippedInTwo(): Promise<PurchaseEvent> {
  const p = paid();
  for (const event of [p, partial(p), fulfilment(p)]) await h.processor().process(event);
  return p;
}

describe("the console's timeline of an order shipped in parts", () => {
  it('shows the point-history entries of each shipped share: its credit and its take-back', async () => {
    const p = await shippedInTwo();
    const entries = await markedHistory(h.api, { source: 'shopify', orderId: p.orderId, customerId: 'member-gold' });
    const said = entries.map((e) => [e.what.key, e.what.params?.amount ?? null, e.points]);
    expect(said).toEqual(
      expect.arrayContaining([
        ['timeline.historyShare', '519', 25],
        ['timeline.historyShareBack', '519', -25],
        ['timeline.historyCredit', null, 51],
      ]),
    );
    expect(entries).toHaveLength(3);
  });

  it('shows each shipped share as its ledger records tell it: credited, then taken back, with their points', async () => {
    const p = await shippedInTwo();
    const ref = { source: 'shopify', orderId: shareOrderId(p.orderId, 519) };
    const share = await h.ledger.getOrder(ref);
    const back = await h.ledger.getRefund({ ...ref, refundId: SUPERSEDED_SHARE });
    expect(share).toBeDefined();
    expect(shareTimeline('519', share!, back).map((e) => [e.what, e.points])).toEqual([
      [{ key: 'timeline.shareCredited', params: { amount: '519', outcome: 'credited' } }, 25],
      [{ key: 'timeline.shareTakenBack', params: { amount: '519', outcome: 'debited' } }, -25],
    ]);
  });
});
