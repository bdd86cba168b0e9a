import { beforeEach, describe, expect, it } from 'vitest';
import type { Campaign } from '../../../../shared/campaigns/index.js';
import { bonusMarker, purchaseMarker, refundMarker } from '../../../../shared/points/index.js';
import { CALCULATION, fulfilment, LOOKUP, purchase, refund, shipped, useHarness } from './harness.js';

const h = useHarness();
const GOLD = 'member-gold';
const DAY_MS = 86_400_000;
const CALCULATION_PATH = '^/api/ext/users/[^/]+/points/calculation$';

/** Issue 53: provisional points. Gold earns 5%: ¥1000 -> 50 points. */
/** Paid "now" (the harness clock), earned 14 days later. */
const inTwoWeeks = () => purchase({ earnAfter: { kind: 'days', days: 14 }, occurredAt: new Date(h.clock()).toISOString() });

// An order earned at fulfilment with refunds before it keeps a ticker entry until a tick: earlier tests' are ticked away.
beforeEach(async () => {
  await h.processor().creditDueEarns();
});

describe('provisional points: earnAfter fulfilled', () => {
  it('a purchase earns nothing at payment: recorded pending_earn, no call to the service (not even a lookup)', async () => {
    const p = shipped();
    expect(await h.processor().process(p)).toMatchObject({ kind: 'pending_earn', action: 'ack', earnWhen: 'fulfilled' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'pending_earn', earnWhen: 'fulfilled', earnBase: { amount: 1000 } });
    expect(await h.calls(CALCULATION)).toBe(0);
    expect(await h.calls(LOOKUP)).toBe(0);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('earns once at fulfilment, though the fulfilment and the payment are delivered again', async () => {
    const p = shipped();
    await h.processor().process(p);
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'credited', action: 'ack' });
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'duplicate', action: 'ack' });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a crash after the credit at fulfilment: the redelivery after the horizon finds it and credits nothing more', async () => {
    const p = shipped();
    await h.processor().process(p);
    await h.crashAt('purchase:granted', fulfilment(p));
    h.passHorizon();
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a crash at the moment is finished by a redelivery of the payment, which never makes the order provisional again', async () => {
    const p = shipped();
    await h.processor().process(p);
    await h.crashAt('purchase:claimed', fulfilment(p));
    // A lease never released may have sent its call: the takeover waits out the in-doubt horizon.
    h.passHorizon();
    expect(await h.processor().process(p)).toMatchObject({ kind: 'credited' });
    expect(await h.balance(GOLD)).toBe(50);
  });

  it('a fulfilment sent before its payment was seen and left in doubt is not sent again after the payment makes the order provisional', async () => {
    // Chaos seed 10: the fulfilment's copy raced ahead of the payment (a second worker), its calculation's
    // answer was lost and the request applied a moment later; the payment then recorded the order pending_earn.
    await h.emulator.addFault({ method: 'POST', path: CALCULATION_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: 300 });
    const p = shipped();
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'outcome_unknown' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'pending_earn' });
    await expect.poll(() => h.entries(GOLD, purchaseMarker('shopify', p.orderId)), { timeout: 15_000, interval: 100 }).toEqual([50]);
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('a fulfilment that crashed after its credit, before its payment was seen, is not credited again once the payment made the order provisional', async () => {
    const p = shipped();
    await h.crashAt('purchase:granted', fulfilment(p));
    h.expireLeases();
    expect(await h.processor().process(p)).toMatchObject({ kind: 'pending_earn' });
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'credited', reconciled: true });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.calls(CALCULATION)).toBe(1);
  });

  it('an order cancelled before shipping never earns, even when the fulfilment comes after', async () => {
    const p = shipped();
    await h.processor().process(p);
    const cancel = refund(p, 'cancel', 1000, { refundsRemainder: true });
    expect(await h.processor().process(cancel)).toMatchObject({ kind: 'skipped', reason: 'before_earn' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned' });
    expect(await h.processor().process(fulfilment(p))).toMatchObject({ kind: 'duplicate', previous: 'not_earned' });
    expect(await h.calls(CALCULATION)).toBe(0);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a half refund before the moment halves the provisional points: the moment credits the whole, the refund takes half back', async () => {
    const p = shipped({ eligibleExact: '1000' });
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 500, { refundExact: '500' }));
    expect(await h.ledger.getOrder(p)).toMatchObject({ earnRefunded: 500 });
    await h.processor().process(fulfilment(p));
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
    expect(await h.entries(GOLD, refundMarker('shopify', p.orderId, 'r1'))).toEqual([-25]);
    expect(await h.balance(GOLD)).toBe(25);
  });

  it('a refund after the moment debits its share of the credit, so refunds before and after add up to all of it', async () => {
    const p = shipped({ eligibleExact: '1000' });
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 500, { refundExact: '500' }));
    await h.processor().process(fulfilment(p));
    expect(await h.processor().process(refund(p, 'r2', 500, { refundExact: '500' }))).toMatchObject({ kind: 'debited', points: 25 });
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('a refund before the moment leaves the same balance as the same refund after it', async () => {
    // ¥1010 at 5%: 50 points. A refund of ¥333 after the moment debits floor(50 × 333 / 1010) = 16: 34 left.
    // Earning on the remainder (¥677: 33 points) would have left one point less.
    const before = shipped({ eligibleAmount: 1010, eligibleExact: '1010' });
    await h.processor().process(before);
    expect(await h.processor().process(refund(before, 'r1', 333, { refundExact: '333' }))).toMatchObject({ reason: 'before_earn' });
    await h.processor().process(fulfilment(before));
    expect(await h.entries(GOLD, purchaseMarker('shopify', before.orderId))).toEqual([50]);
    expect(await h.balance(GOLD)).toBe(34);
    const after = shipped({ eligibleAmount: 1010, eligibleExact: '1010' });
    await h.processor().process(after);
    await h.processor().process(fulfilment(after));
    expect(await h.processor().process(refund(after, 'r1', 333, { refundExact: '333' }))).toMatchObject({ kind: 'debited', points: 16 });
    expect(await h.balance(GOLD)).toBe(68);
  });

  it('refunds before the moment are debited once, though the moment is delivered again', async () => {
    const p = shipped({ eligibleAmount: 1010, eligibleExact: '1010' });
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 333, { refundExact: '333' }));
    await h.processor().process(refund(p, 'r2', 100, { refundExact: '100' }));
    expect(await h.processor().process(fulfilment(p))).toMatchObject({
      kind: 'credited',
      followUps: [
        { refundId: 'r1', kind: 'debited' },
        { refundId: 'r2', kind: 'debited' },
      ],
    });
    await h.processor().process(fulfilment(p));
    await h.processor().process(refund(p, 'r1', 333, { refundExact: '333' }));
    // floor(50 × 433 / 1010) = 21 taken back in all.
    expect(await h.balance(GOLD)).toBe(29);
    expect(await h.ledger.getOrder(p)).toMatchObject({ waitingRefunds: [] });
  });

  it('a crash among the refunds before the moment: the ticker finishes their debits once', async () => {
    const p = inTwoWeeks();
    await h.processor().process({ ...p, eligibleAmount: 1010, eligibleExact: '1010' });
    await h.processor().process(refund(p, 'r1', 333, { refundExact: '333' }));
    h.clock.advance(15 * DAY_MS);
    await h.crashAt('refund:claimed', { ...p, eligibleAmount: 1010, eligibleExact: '1010', earnMoment: 'due' });
    expect(await h.balance(GOLD)).toBe(50);
    h.passHorizon();
    expect(await h.processor().creditDueEarns()).toMatchObject({ done: 1, retry: 0 });
    expect(await h.processor().creditDueEarns()).toMatchObject({ due: 0 });
    expect(await h.balance(GOLD)).toBe(34);
  });

  it('a cancellation after a partial refund before the moment ends both refunds, and nothing is earned', async () => {
    const p = shipped();
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 300));
    await h.processor().process(refund(p, 'cancel', 700, { refundsRemainder: true }));
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'skipped' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned', waitingRefunds: [] });
    await h.processor().process(fulfilment(p));
    expect(await h.calls(CALCULATION)).toBe(0);
  });

  it('a partial refund and a cancellation both delivered before the payment: the order never earns and both end', async () => {
    const p = shipped();
    await h.processor().process(refund(p, 'r1', 300));
    await h.processor().process(refund(p, 'cancel', 700, { refundsRemainder: true }));
    await h.processor().process(p);
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned', waitingRefunds: [] });
    expect(await h.ledger.getRefund({ ...p, refundId: 'r1' })).toMatchObject({ state: 'done', outcome: 'skipped' });
    expect(await h.ledger.getRefund({ ...p, refundId: 'cancel' })).toMatchObject({ state: 'done', outcome: 'skipped' });
  });

  it('a refund delivered before the payment reduces the provisional points once the payment comes', async () => {
    const p = shipped();
    expect(await h.processor().process(refund(p, 'r1', 500))).toMatchObject({ kind: 'refund_waiting' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'pending_earn', followUps: [{ refundId: 'r1', kind: 'skipped' }] });
    await h.processor().process(fulfilment(p));
    expect(await h.balance(GOLD)).toBe(25);
  });

  it('a campaign bonus follows the base: granted at the moment, on what was earned', async () => {
    const double: Campaign = {
      id: 'double-jan',
      title: 'ポイント2倍',
      from: '2026-01-15T00:00:00+09:00',
      to: '2026-01-16T00:00:00+09:00',
      multiplier: '2',
    };
    const settings = { settings: { campaigns: [double] } };
    const p = shipped();
    await h.processor(settings).process(p);
    expect(await h.balance(GOLD)).toBe(0);
    await h.processor(settings).process(fulfilment(p));
    expect(await h.entries(GOLD, bonusMarker('shopify', p.orderId, double.id))).toEqual([50]);
    expect(await h.balance(GOLD)).toBe(100);
  });

  it("the customer's provisional orders are listed for the points page", async () => {
    const p = shipped({ customer: { externalKey: 'shopify', externalId: 'cust-silver' } });
    await h.processor().process(p);
    const pending = await h.ledger.listPendingEarns('shopify', 'shopify', 'cust-silver');
    expect(pending.map((o) => [o.orderId, o.earnWhen])).toEqual([[p.orderId, 'fulfilled']]);
    await h.processor().process(fulfilment(p));
    expect(await h.ledger.listPendingEarns('shopify', 'shopify', 'cust-silver')).toEqual([]);
  });
});

describe('provisional points: earnAfter days', () => {
  it('the ticker credits nothing before the day and the provisional points once it has come', async () => {
    const p = inTwoWeeks();
    const earnAt = new Date(h.clock() + 14 * DAY_MS).toISOString();
    expect(await h.processor().process(p)).toMatchObject({ kind: 'pending_earn', earnWhen: earnAt });
    h.clock.advance(13 * DAY_MS);
    expect(await h.processor().creditDueEarns()).toEqual({ due: 0, done: 0, retry: 0 });
    h.clock.advance(DAY_MS);
    expect(await h.processor().creditDueEarns()).toMatchObject({ done: 1, retry: 0 });
    expect(await h.processor().creditDueEarns()).toMatchObject({ due: 0 });
    expect(await h.entries(GOLD, purchaseMarker('shopify', p.orderId))).toEqual([50]);
  });

  it('a payment delivered after its day has passed earns at once', async () => {
    const p = purchase({ earnAfter: { kind: 'days', days: 14 }, occurredAt: new Date(h.clock() - 15 * DAY_MS).toISOString() });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'credited' });
  });

  it('an order refunded in full before its day is dropped by the ticker and never earns', async () => {
    const p = inTwoWeeks();
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 1000));
    h.clock.advance(15 * DAY_MS);
    expect(await h.processor().creditDueEarns()).toMatchObject({ done: 1 });
    expect(await h.ledger.getOrder(p)).toMatchObject({ outcome: 'not_earned' });
    expect(await h.calls(CALCULATION)).toBe(0);
  });
});
