import { describe, expect, it } from 'vitest';
import { redemptionMarker, redemptionReturnMarker } from '../../../../shared/points/index.js';
import { handleRedeem, sweepRedemptions } from '../../../../shared/redemption/index.js';
import { ALICE, asJson, type Harness, withRedemptionHarness } from './harness.js';

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

/** Past a 30-day code's end and the default grace (an hour). */
const PAST_GRACE = 30 * 86_400_000 + 3600_000 + 1000;
const orderBody = (orderId: string, customerId: string, code: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: orderId,
    currency: 'JPY',
    financial_status: 'paid',
    created_at: '2026-02-14T10:00:00+09:00',
    customer: { id: customerId },
    discount_codes: [{ code }],
    ...extra,
  });

let n = 0;
async function redeemed(points: number): Promise<{ code: string; request: string }> {
  const request = `sweep-${process.pid}-${++n}-abcdefgh`;
  const answer = asJson(
    await handleRedeem(
      { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: h.form('1001', `points=${points}&request=${request}`) },
      h.deps(),
    ),
  );
  expect(answer.body).toMatchObject({ status: 'redeemed' });
  return { code: String(answer.body.code), request };
}

describe('the redemption sweep', () => {
  it('leaves a code alone before its end', async () => {
    await redeemed(100);
    h.clock.advance(29 * 86_400_000);
    const result = await sweepRedemptions(h.deps());
    expect(result.returned).toBe(0);
    expect(await h.balance(ALICE)).toBe(900);
  });

  it('deactivates an unused code past its end and gives its points back exactly once', async () => {
    const { code, request } = await redeemed(300);
    h.clock.advance(PAST_GRACE);
    const first = await sweepRedemptions(h.deps());
    const second = await sweepRedemptions(h.deps());
    expect(first.returned).toBeGreaterThanOrEqual(1);
    expect(second.returned).toBe(0);
    expect(await h.balance(ALICE)).toBe(1000);
    expect(await h.entries(ALICE, redemptionReturnMarker('shopify', '1001', request))).toEqual([
      { point: 300, remarks: redemptionReturnMarker('shopify', '1001', request) },
    ]);
    expect(h.shop.discounts.byCode(code)?.endsAt).not.toBeNull();
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'returned', returnReason: 'expired', returnedPoints: 300 });
  });

  it('gives back, once its validity ends, the points of a redemption whose code was never made', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'http_503', times: 3 });
    const request = `sweep-${process.pid}-${++n}-nevermade`;
    const answer = asJson(
      await handleRedeem(
        { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: h.form('1001', `points=200&request=${request}`) },
        h.deps(),
      ),
    );
    expect(answer.status).toBe(503);
    expect(await h.balance(ALICE)).toBe(800);
    h.clock.advance(PAST_GRACE);
    const result = await sweepRedemptions(h.deps());
    expect(result.failed).toBe(1);
    expect(await h.balance(ALICE)).toBe(1000);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'failed', returnReason: 'code_unavailable', returnedPoints: 200 });
  });

  it("waits the grace period after the code's end before it gives anything back", async () => {
    await redeemed(100);
    h.clock.advance(30 * 86_400_000 + 1000);
    expect((await sweepRedemptions(h.deps())).due).toBe(0);
    expect(await h.balance(ALICE)).toBe(900);
    h.clock.advance(3600_000);
    expect((await sweepRedemptions(h.deps())).returned).toBe(1);
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it("links the code to its customer's order found at Shopify instead of giving its points back", async () => {
    const { code, request } = await redeemed(100);
    // The order reached Shopify (its webhook not us), and Shopify's usage count has not caught up.
    h.shop.store.putOrder(orderBody('770001', '1001', code));
    h.clock.advance(PAST_GRACE);
    const result = await sweepRedemptions(h.deps());
    expect(result).toMatchObject({ used: 1, returned: 0 });
    expect(await h.balance(ALICE)).toBe(900);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'used', orderId: '770001' });
  });

  it('keeps a code reserved by its order awaiting payment at Shopify', async () => {
    const { code, request } = await redeemed(100);
    h.shop.store.putOrder(orderBody('770002', '1001', code, { financial_status: 'pending' }));
    h.clock.advance(PAST_GRACE);
    await sweepRedemptions(h.deps());
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'reserved', orderId: '770002' });
    expect(await h.balance(ALICE)).toBe(900);
  });

  it("gives the points back when the only order naming the code is another customer's", async () => {
    const { code } = await redeemed(100);
    h.shop.store.putOrder(orderBody('770003', '1002', code));
    h.clock.advance(PAST_GRACE);
    expect((await sweepRedemptions(h.deps())).returned).toBe(1);
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it('does not trust a usage count alone: a code counted used with no order found waits', async () => {
    const { code, request } = await redeemed(100);
    h.shop.discounts.use(code);
    h.clock.advance(PAST_GRACE);
    const result = await sweepRedemptions(h.deps());
    expect(result).toMatchObject({ used: 0, returned: 0, later: 1 });
    expect(await h.balance(ALICE)).toBe(900);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record?.state).toBe('redeemed');
  });

  describe('a redemption left in doubt by a customer who does not press again', () => {
    /** Past the in-doubt horizon (120 s) of a deduction whose send ended in doubt. */
    const PAST_HORIZON = 121_000;
    const POINTS_ROUTE = '^/api/ext/users/[^/]+/points$';

    async function pressOnce(points: number, tag: string): Promise<string> {
      const request = `sweep-${process.pid}-${++n}-${tag}`;
      const answer = asJson(
        await handleRedeem(
          { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: h.form('1001', `points=${points}&request=${request}`) },
          h.deps(),
        ),
      );
      expect(answer.body).toMatchObject({ error: { kind: 'in_doubt' } });
      return request;
    }

    it('ends "not run" once the horizon has passed when its deduction never ran: nothing taken, no code', async () => {
      // The connection is dropped before the service does anything: the deduction never runs.
      await h.emulator.addFault({ method: 'POST', path: POINTS_ROUTE, fault: 'reset_before', times: 1 });
      const request = await pressOnce(300, 'neverran');
      h.clock.advance(PAST_HORIZON);
      const result = await sweepRedemptions(h.deps());
      expect(result).toMatchObject({ notRun: 1, failed: 1 });
      const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
      expect(record).toMatchObject({ state: 'failed', returnReason: 'not_run', returnedPoints: 0 });
      expect(h.shop.discounts.byCode(record?.code ?? '')).toBeUndefined();
      expect(await h.balance(ALICE)).toBe(1000);
      expect(await h.entries(ALICE, redemptionMarker('shopify', '1001', request))).toEqual([]);
    });

    it('makes its code once the horizon has passed when its deduction landed late, the points taken once', async () => {
      await h.emulator.addFault({ method: 'POST', path: POINTS_ROUTE, fault: 'late_commit', answer: 'reset', commit_after_ms: 1000 });
      const request = await pressOnce(300, 'landedlate');
      const marker = redemptionMarker('shopify', '1001', request);
      await expect.poll(() => h.entries(ALICE, marker), { timeout: 15_000, interval: 100 }).toHaveLength(1);
      h.clock.advance(PAST_HORIZON);
      const result = await sweepRedemptions(h.deps());
      expect(result.madeAfterDoubt).toBe(1);
      const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
      expect(record).toMatchObject({ state: 'redeemed', deducted: true });
      expect(h.shop.discounts.byCode(record?.code ?? '')).toBeDefined();
      expect(await h.balance(ALICE)).toBe(700);
      expect(await h.entries(ALICE, marker)).toEqual([{ point: -300, remarks: marker }]);
    });

    it('leaves the code it made alone until the code ends', async () => {
      await h.emulator.addFault({ method: 'POST', path: POINTS_ROUTE, fault: 'late_commit', answer: 'reset', commit_after_ms: 1000 });
      const request = await pressOnce(200, 'keptlive');
      await expect
        .poll(() => h.entries(ALICE, redemptionMarker('shopify', '1001', request)), { timeout: 15_000, interval: 100 })
        .toHaveLength(1);
      h.clock.advance(PAST_HORIZON);
      await sweepRedemptions(h.deps());
      h.clock.advance(86_400_000);
      const later = await sweepRedemptions(h.deps());
      expect(later).toMatchObject({ due: 0, returned: 0 });
      expect(await h.balance(ALICE)).toBe(800);
    });
  });
});
