import { describe, expect, it } from 'vitest';
import { redemptionReturnMarker } from '../../../../shared/points/index.js';
import { handleRedeem, sweepRedemptions } from '../../../../shared/redemption/index.js';
import { ALICE, asJson, type Harness, withRedemptionHarness } from './harness.js';

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
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
    h.clock.advance(30 * 86_400_000 + 1000);
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
    h.clock.advance(30 * 86_400_000 + 1000);
    const result = await sweepRedemptions(h.deps());
    expect(result.failed).toBe(1);
    expect(await h.balance(ALICE)).toBe(1000);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'failed', returnReason: 'code_unavailable', returnedPoints: 200 });
  });

  it('marks a code Shopify counts as used as used instead of giving its points back', async () => {
    const { code, request } = await redeemed(100);
    h.shop.discounts.use(code);
    h.clock.advance(30 * 86_400_000 + 1000);
    const result = await sweepRedemptions(h.deps());
    expect(result.used).toBeGreaterThanOrEqual(1);
    expect(await h.balance(ALICE)).toBe(900);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record?.state).toBe('used');
  });
});
