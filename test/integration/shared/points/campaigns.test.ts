import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../../shared/campaigns/index.js';
import { bonusMarker, bonusReturnMarker, purchaseMarker, refundMarker } from '../../../../shared/points/index.js';
import { CALCULATION, CLIENT_ID, DOUBLE_DAY, GRANT, purchase, refund, useHarness } from './harness.js';

const h = useHarness();
const GOLD = 'member-gold';

/** Gold earns 5%: 1000 -> 50 points. */
const DOUBLE = DOUBLE_DAY;
const withCampaigns = (campaigns: Campaign[] = [DOUBLE]) => ({ settings: { campaigns } });
/** The worker dies at `step` (the checkpoint throws), the campaign in force. */
const crashingAt = (step: string) => ({
  ...withCampaigns(),
  checkpoint: (s: string) => {
    if (s === step) throw new Error(`crash at ${s}`);
  },
});

describe('campaigns: the bonus, exactly once', () => {
  it('a purchase in a 2x campaign earns its base and a bonus of the same size, each under its own marker', async () => {
    const p = purchase();
    expect(await h.processor(withCampaigns()).process(p)).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.entries(GOLD, bonusMarker('shopify', p.orderId, DOUBLE.id))).toEqual([50]);
    expect(await h.balance(GOLD)).toBe(100);
  });

  it('records the bonus with its order', async () => {
    const p = purchase();
    await h.processor(withCampaigns()).process(p);
    expect((await h.ledger.getOrder(p))?.campaigns).toMatchObject([{ id: DOUBLE.id, title: DOUBLE.title, multiplier: '2' }]);
    expect(await h.ledger.getBonus({ ...p, campaignId: DOUBLE.id })).toMatchObject({ state: 'done', base: 50, points: 50 });
  });

  it('delivered twice, the purchase earns its base and bonus once', async () => {
    const p = purchase();
    await h.processor(withCampaigns()).process(p);
    expect(await h.processor(withCampaigns()).process(p)).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await h.balance(GOLD)).toBe(100);
    expect(await h.calls(GRANT)).toBe(1);
  });

  it('a crash between the base credit and the bonus: the redelivery grants the bonus, once', async () => {
    const p = purchase();
    await expect(h.processor(crashingAt('purchase:recorded')).process(p)).rejects.toThrow('crash at purchase:recorded');
    expect(await h.balance(GOLD)).toBe(50);
    await h.processor(withCampaigns()).process(p);
    await h.processor(withCampaigns()).process(p);
    expect(await h.entries(GOLD, bonusMarker('shopify', p.orderId, DOUBLE.id))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a crash after the bonus was granted: once its lease is free, the redelivery finds it in the history and grants nothing more', async () => {
    const p = purchase();
    await expect(h.processor(crashingAt('bonus:granted')).process(p)).rejects.toThrow('crash at bonus:granted');
    expect(await h.processor(withCampaigns()).process(p)).toMatchObject({ kind: 'lease_held', action: 'retry' });
    h.expireLeases();
    expect(await h.processor(withCampaigns()).process(p)).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await h.entries(GOLD, bonusMarker('shopify', p.orderId, DOUBLE.id))).toEqual([50]);
    expect(await h.ledger.getBonus({ ...p, campaignId: DOUBLE.id })).toMatchObject({ state: 'done', points: 50, reconciled: true });
    expect(await h.calls(GRANT)).toBe(1);
  });

  it('a purchase made before the campaign and processed during it earns no bonus', async () => {
    const p = purchase({ occurredAt: '2026-01-14T23:59:59+09:00' });
    await h.processor(withCampaigns()).process(p);
    expect(await h.balance(GOLD)).toBe(50);
    expect((await h.ledger.getOrder(p))?.campaigns).toBeUndefined();
  });

  it('a purchase after the end earns no bonus, though its webhook is processed while another day of the sale runs', async () => {
    const later: Campaign = { ...DOUBLE, id: 'double-late', from: '2026-01-16T00:00:00+09:00', to: '2026-01-17T00:00:00+09:00' };
    await h.processor(withCampaigns([later])).process(purchase());
    expect(await h.balance(GOLD)).toBe(50);
  });

  it('overlapping campaigns add up: 2x and a fixed 100 points', async () => {
    const fixed: Campaign = { ...DOUBLE, id: 'opening', title: '開店記念', multiplier: undefined, fixedPoints: 100 };
    await h.processor(withCampaigns([DOUBLE, fixed])).process(purchase());
    expect(await h.balance(GOLD)).toBe(200);
  });

  it('a campaign for a rank gives its bonus to members of that rank only', async () => {
    const gold: Campaign = { ...DOUBLE, id: 'gold-only', ranks: ['gold'] };
    await h.processor(withCampaigns([gold])).process(purchase());
    const regular = purchase({ customer: { externalKey: 'shopify', externalId: 'cust-regular' } });
    await h.processor(withCampaigns([gold])).process(regular);
    expect([await h.balance(GOLD), await h.balance('member-regular')]).toEqual([100, 10]);
  });

  it('a purchase without campaigns still makes one calculation and no grant', async () => {
    await h.processor().process(purchase());
    expect([await h.calls(CALCULATION), await h.calls(GRANT)]).toEqual([1, 0]);
  });
});

describe('campaigns: refunds take the bonus back', () => {
  it('a half refund takes half of the base and half of the bonus back', async () => {
    const p = purchase();
    await h.processor(withCampaigns()).process(p);
    expect(await h.processor(withCampaigns()).process(refund(p, 'r1', 500))).toMatchObject({ kind: 'debited', points: 25 });
    expect(await h.entries(GOLD, refundMarker('shopify', p.orderId, 'r1'))).toEqual([-25]);
    expect(await h.entries(GOLD, bonusReturnMarker('shopify', p.orderId, DOUBLE.id, 'r1'))).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(50);
  });

  it('refunds adding up to the whole order take all of the bonus back, each once (delivered twice)', async () => {
    const p = purchase({ eligibleAmount: 414, eligibleExact: '414.95' });
    await h.processor(withCampaigns()).process(p);
    expect(await h.balance(GOLD)).toBe(40);
    const r1 = refund(p, 'r1', 89, { refundExact: '89.99' });
    const r2 = refund(p, 'r2', 324, { refundExact: '324.96' });
    for (const r of [r1, r1, r2, r2]) await h.processor(withCampaigns()).process(r);
    expect(await h.balance(GOLD)).toBe(0);
    expect(await h.ledger.getBonus({ ...p, campaignId: DOUBLE.id })).toMatchObject({ clawbackTarget: 20, clawedBack: 20 });
  });

  it('a crash after a claw-back was sent: the refund’s redelivery finds it in the history and takes nothing more', async () => {
    const p = purchase();
    await h.processor(withCampaigns()).process(p);
    const r1 = refund(p, 'r1', 500);
    await expect(h.processor(crashingAt('bonus:taken-back')).process(r1)).rejects.toThrow('crash at bonus:taken-back');
    h.expireLeases();
    expect(await h.processor(withCampaigns()).process(r1)).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await h.entries(GOLD, bonusReturnMarker('shopify', p.orderId, DOUBLE.id, 'r1'))).toEqual([-25]);
    expect(await h.ledger.getBonus({ ...p, campaignId: DOUBLE.id })).toMatchObject({ clawedBack: 25 });
  });

  it('a cancellation takes all of the bonus back, even with the campaign gone from the settings', async () => {
    const p = purchase();
    await h.processor(withCampaigns()).process(p);
    expect(await h.balance(GOLD)).toBe(100);
    await h.processor().process(refund(p, 'cancel', 0, { refundsRemainder: true }));
    expect(await h.balance(GOLD)).toBe(0);
  });
});

describe('campaigns under a history behind the service', () => {
  it("the bonus waits for its order's credit entry, then is the credit's size, never the balance difference", async () => {
    const p = purchase();
    // Another grant lands between the lookup and the credit: the balance difference (150) is not the credit (50).
    const operatorGrant = {
      ...withCampaigns(),
      checkpoint: async (step: string) => {
        if (step === 'purchase:customer') await h.api.grantPoints(GOLD, { point: 100, remarks: 'operator' });
      },
    };
    await h.emulator.patchClient(CLIENT_ID, { history_lag_ms: 3000 });
    expect(await h.processor(operatorGrant).process(p)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'credit_not_visible' });
    expect(await h.entries(GOLD, bonusMarker('shopify', p.orderId, DOUBLE.id))).toEqual([]);
    await expect.poll(() => h.entries(GOLD, purchaseMarker('shopify', p.orderId)), { timeout: 15_000, interval: 100 }).toHaveLength(1);
    expect(await h.processor(withCampaigns()).process(p)).toMatchObject({ kind: 'duplicate', action: 'ack' });
    await expect
      .poll(() => h.entries(GOLD, bonusMarker('shopify', p.orderId, DOUBLE.id)), { timeout: 15_000, interval: 100 })
      .toEqual([50]);
  });
});
