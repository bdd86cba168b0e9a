import { describe, expect, it } from 'vitest';
import {
  handlePointsPage,
  handleRedeem,
  issueRedeemRequest,
  REQUEST_TTL_SECONDS,
  shopCurrencyProblem,
} from '../../../../shared/redemption/index.js';
import { STOREFRONT_OPERATIONS } from '../../../../shared/openapi/index.js';
import { redemptionMarker, redemptionReturnMarker } from '../../../../shared/points/index.js';
import { ALICE, type Answer, asJson, BOB, type Harness, SECRET, withRedemptionHarness } from './harness.js';
import { createShopifyAdminClient } from '../../../../shared/sources/shopify/index.js';

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

let requests = 0;
const newRequest = () => `req-${process.pid}-${++requests}-abcdef`;

async function redeemAs(customerId: string, body: string, settings = {}): Promise<Answer> {
  return asJson(
    await handleRedeem(
      { method: 'POST', rawQuery: h.signed(customerId), accept: undefined, body: h.form(customerId, body) },
      h.deps(settings),
    ),
  );
}

describe('POST /proxy/shopify/redeem', () => {
  it('calls the Open API, page and redemption, only on endpoints where the App Proxy’s reserve of the shared budget is kept', async () => {
    // The reserve is kept on STOREFRONT_OPERATIONS alone (shared/openapi/storefront-reserve.ts): a call elsewhere would have none.
    const called = new Set<string>();
    const deps = h.deps();
    const recording = new Proxy(deps.openapi, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          called.add(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const page = await handlePointsPage(
      { method: 'GET', rawQuery: h.signed('1001'), accept: 'application/json' },
      { ...deps, openapi: recording },
    );
    expect(page.statusCode).toBe(200);
    const body = h.form('1001', `points=100&request=${newRequest()}`);
    const answer = asJson(
      await handleRedeem({ method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body }, { ...deps, openapi: recording }),
    );
    expect(answer.status).toBe(200);
    expect(called.has('grantPoints')).toBe(true);
    expect([...called].filter((name) => !(STOREFRONT_OPERATIONS as readonly string[]).includes(name))).toEqual([]);
  });

  it('deducts the points once and answers a code worth points × value per point, for that customer only, usable once', async () => {
    const request = newRequest();
    const answer = await redeemAs('1001', `points=300&request=${request}`, { valuePerPoint: '2' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'redeemed', points: 300, value: '600', currency: 'JPY' });
    expect(await h.balance(ALICE)).toBe(700);
    const code = String(answer.body.code);
    expect(h.shop.discounts.byCode(code)).toMatchObject({ amount: '600', usageLimit: 1, customers: ['gid://shopify/Customer/1001'] });
    expect(Date.parse(String(answer.body.expires_at))).toBe(h.clock() + 30 * 86_400_000);
  });

  it('answers the same code for the same request sent twice at once and deducts only once', async () => {
    const body = `points=200&request=${newRequest()}`;
    const [a, b] = await Promise.all([redeemAs('1001', body), redeemAs('1001', body)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.code).toBe(a.body.code);
    expect(await h.balance(ALICE)).toBe(800);
    expect(h.shop.discounts.list().filter((d) => d.code === a.body.code)).toHaveLength(1);
  });

  it('answers the same code for the same request sent again later, deducting nothing more', async () => {
    const body = `points=200&request=${newRequest()}`;
    const first = await redeemAs('1001', body);
    const again = await redeemAs('1001', body);
    expect(again.body).toEqual(first.body);
    expect(await h.balance(ALICE)).toBe(800);
  });

  it("never answers another customer's code for the same request id", async () => {
    const body = `points=100&request=${newRequest()}`;
    const alice = await redeemAs('1001', body);
    const bob = await redeemAs('1002', body);
    expect(bob.status).toBe(200);
    expect(bob.body.code).not.toBe(alice.body.code);
    expect(await h.balance(BOB)).toBe(900);
  });

  it('refuses more points than the balance with 409 insufficient_points and deducts nothing', async () => {
    const answer = await redeemAs('1001', `points=1500&request=${newRequest()}`);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: { kind: 'insufficient_points', balance: 1000, points: 1500 } });
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it('refuses fewer points than the minimum with 400 and the rule', async () => {
    const answer = await redeemAs('1001', `points=99&request=${newRequest()}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { kind: 'invalid_points', minPoints: 100, step: 1 } });
  });

  it('refuses points off the step with 400 and the rule, deducting nothing', async () => {
    const answer = await redeemAs('1001', `points=150&request=${newRequest()}`, { step: 100 });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { kind: 'invalid_points', step: 100 } });
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it('answers GET with 405', async () => {
    const answer = await handleRedeem({ method: 'GET', rawQuery: h.signed('1001'), accept: undefined }, h.deps());
    expect(answer.statusCode).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  it('refuses a forged signature with 401 and deducts nothing', async () => {
    const query = h.signed('1001').replace('logged_in_customer_id=1001', 'logged_in_customer_id=1002');
    const answer = asJson(
      await handleRedeem(
        { method: 'POST', rawQuery: query, accept: undefined, body: h.form('1001', `points=100&request=${newRequest()}`) },
        h.deps(),
      ),
    );
    expect(answer.status).toBe(401);
    expect(await h.balance(BOB)).toBe(1000);
  });

  it('finds a deduction whose answer was lost by its marker and never deducts twice', async () => {
    await h.emulator.addFault({ method: 'POST', path: '^/api/ext/users/[^/]+/points$', fault: 'reset_after_commit', times: 1 });
    const request = newRequest();
    const answer = await redeemAs('1001', `points=100&request=${request}`);
    expect(answer.status).toBe(200);
    expect(await h.balance(ALICE)).toBe(900);
    expect(await h.entries(ALICE, redemptionMarker('shopify', '1001', request))).toEqual([
      { point: -100, remarks: redemptionMarker('shopify', '1001', request) },
    ]);
  });

  it('a deduction whose request lands after a reset is never sent twice: pressed again it is "still being made", then finished', async () => {
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/[^/]+/points$',
      fault: 'late_commit',
      answer: 'reset',
      commit_after_ms: 3000,
    });
    const request = newRequest();
    const body = `points=300&request=${request}`;
    const first = await redeemAs('1001', body);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ error: { kind: 'in_doubt', retryAfterSeconds: 120 } });
    // Pressed again before the request has landed: nothing more is sent.
    const again = await handleRedeem(
      { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: h.form('1001', body) },
      h.deps(),
    );
    expect(again.statusCode).toBe(503);
    expect(again.headers['retry-after']).toBe('120');
    const marker = redemptionMarker('shopify', '1001', request);
    await expect.poll(() => h.entries(ALICE, marker), { timeout: 15_000, interval: 100 }).toHaveLength(1);
    h.clock.advance(120_000 + 1);
    const done = await redeemAs('1001', body);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'redeemed', points: 300 });
    expect(await h.balance(ALICE)).toBe(700);
    expect(await h.entries(ALICE, marker)).toEqual([{ point: -300, remarks: marker }]);
  });

  it('the page says in Japanese and English that a redemption in doubt is still being made, and when to press again', async () => {
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/[^/]+/points$',
      fault: 'late_commit',
      answer: 'reset',
      commit_after_ms: 3000,
    });
    const page = await handleRedeem(
      { method: 'POST', rawQuery: h.signed('1001'), accept: 'text/html', body: h.form('1001', `points=100&request=${newRequest()}`) },
      h.deps(),
    );
    expect(page.statusCode).toBe(503);
    expect(page.headers['retry-after']).toBe('120');
    expect(page.body).toContain('処理中');
    expect(page.body).toContain('still being made');
  });

  it('a deduction in doubt whose request never lands is sent again after the horizon, once', async () => {
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/[^/]+/points$',
      fault: 'status',
      status: 504,
      body: 'gateway timeout',
      times: 1,
    });
    const request = newRequest();
    const body = `points=200&request=${request}`;
    expect((await redeemAs('1001', body)).status).toBe(503);
    h.clock.advance(120_000 + 1);
    expect((await redeemAs('1001', body)).status).toBe(200);
    expect(await h.balance(ALICE)).toBe(800);
  });

  it('retries a code Shopify could not make at first and answers it', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'http_503', times: 1 });
    const answer = await redeemAs('1001', `points=100&request=${newRequest()}`);
    expect(answer.status).toBe(200);
    expect(await h.balance(ALICE)).toBe(900);
  });

  it('finds a code whose creation answer was lost instead of making a second one', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'reset_after_commit', times: 1 });
    const before = h.shop.discounts.list().length;
    const answer = await redeemAs('1001', `points=100&request=${newRequest()}`);
    expect(answer.status).toBe(200);
    expect(h.shop.discounts.list()).toHaveLength(before + 1);
  });

  it('gives the points back exactly once and answers 503 when Shopify refuses the code for good; the record keeps why', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'user_error', times: 1 });
    const request = newRequest();
    const answer = await redeemAs('1001', `points=100&request=${request}`);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: { kind: 'code_unavailable', returned: true } });
    expect(await h.balance(ALICE)).toBe(1000);
    const again = await redeemAs('1001', `points=100&request=${request}`);
    expect(again.status).toBe(503);
    expect(await h.entries(ALICE, redemptionReturnMarker('shopify', '1001', request))).toHaveLength(1);
    const [record] = (await h.ledger.list('1001')).filter((r) => r.requestId === request);
    expect(record).toMatchObject({ state: 'failed', returnReason: 'code_refused' });
    expect(record?.reason).toContain('refused');
  });

  it('takes over a redemption whose maker died after deducting, finds the deduction by its marker and deducts nothing more', async () => {
    const request = newRequest();
    const marker = redemptionMarker('shopify', '1001', request);
    // The maker: its record and lease, the deduction sent and done, then nothing (a crash).
    const started = await h.ledger.start(
      {
        source: 'shopify',
        customerId: '1001',
        memberId: ALICE,
        requestId: request,
        points: 100,
        value: '100',
        currency: 'JPY',
        code: 'PTS-CRASHED00001',
        expiresAt: new Date(h.clock() + 86_400_000).toISOString(),
      },
      'dead-maker',
    );
    expect(started.created).toBe(true);
    await h.ledger.update(started.created ? started.record.pk : '', 'dead-maker', { deductionSent: true });
    await h.openapi.grantPoints(ALICE, { point: -100, title: 'redeemed', remarks: marker });
    h.clock.advance(31_000);
    const answer = await redeemAs('1001', `points=100&request=${request}`);
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe('PTS-CRASHED00001');
    expect(await h.balance(ALICE)).toBe(900);
    expect(await h.entries(ALICE, marker)).toHaveLength(1);
  });

  it('keeps a deduction whose code could not be made yet and makes the code when the same request comes again', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'http_503', times: 3 });
    const body = `points=100&request=${newRequest()}`;
    const first = await redeemAs('1001', body);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ error: { kind: 'unavailable' } });
    expect(await h.balance(ALICE)).toBe(900);
    const again = await redeemAs('1001', body);
    expect(again.status).toBe(200);
    expect(await h.balance(ALICE)).toBe(900);
  });

  it('refuses a customer not linked to a member with 403 and a link to the link page', async () => {
    const answer = await redeemAs('1003', `points=100&request=${newRequest()}`);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { kind: 'not_linked', link: '/apps/points/link' } });
  });

  it('refuses points written with a leading zero (0100) with 400, deducting nothing, rather than reading them as 100', async () => {
    const request = newRequest();
    const answer = await redeemAs('1001', `points=0100&request=${request}`);
    expect([answer.status, answer.body]).toEqual([
      400,
      { error: expect.objectContaining({ kind: 'invalid_request', message: expect.stringMatching(/no leading zero/) }) },
    ]);
    // Nothing was kept of it: the same request with 100 is a new redemption of 100.
    expect(await redeemAs('1001', `points=100&request=${request}`)).toMatchObject({ status: 200, body: { points: 100 } });
  });

  it('refuses a body that is not points and request alone with 400', async () => {
    const answer = await redeemAs('1001', `points=100&request=${newRequest()}&customer=1002`);
    expect(answer.status).toBe(400);
  });
});

describe('POST /proxy/shopify/redeem: the request value the points page issued', () => {
  const SHOP = 'demo-shop.myshopify.com';
  /** Posts the form as `customerId` with a `request` value made as given, nothing rewritten. */
  const post = async (customerId: string, request: string) =>
    asJson(
      await handleRedeem(
        { method: 'POST', rawQuery: h.signed(customerId), accept: undefined, body: `points=100&request=${encodeURIComponent(request)}` },
        h.deps(),
      ),
    );
  const refusedUntouched = async (answer: Answer) => {
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { kind: 'request_not_issued' } });
    expect(await h.balance(ALICE)).toBe(1000);
    expect(await h.entries(ALICE, 'lp1:shopify:redeem')).toEqual([]);
    expect(await h.ledger.list('1001')).toEqual([]);
  };

  it('refuses with 403 request_not_issued a value issued to another customer, deducting nothing', async () => {
    await refusedUntouched(await post('1001', issueRedeemRequest(SECRET, { shop: SHOP, customerId: '1002' }, h.clock())));
  });

  it('refuses with 403 request_not_issued a value issued for another shop, deducting nothing', async () => {
    await refusedUntouched(
      await post('1001', issueRedeemRequest(SECRET, { shop: 'other-shop.myshopify.com', customerId: '1001' }, h.clock())),
    );
  });

  it('refuses with 403 request_not_issued a value past its expiry, deducting nothing', async () => {
    const value = issueRedeemRequest(SECRET, { shop: SHOP, customerId: '1001' }, h.clock());
    h.clock.advance(REQUEST_TTL_SECONDS * 1000 + 1000);
    await refusedUntouched(await post('1001', value));
  });

  it('refuses with 403 request_not_issued a value made with another secret, deducting nothing', async () => {
    await refusedUntouched(await post('1001', issueRedeemRequest('not-the-app-secret', { shop: SHOP, customerId: '1001' }, h.clock())));
  });

  it('refuses with 400 a bare request id that was never issued (the form of the value is wrong)', async () => {
    const answer = await post('1001', newRequest());
    expect(answer.status).toBe(400);
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it('logs "points redeemed" once for one deduction, however often its request is pressed', async () => {
    const lines: string[] = [];
    const logger = { info: (m: string) => void lines.push(m), warn: () => undefined, error: () => undefined };
    const body = h.form('1001', `points=100&request=${newRequest()}`);
    const press = () => handleRedeem({ method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body }, { ...h.deps(), logger });
    expect((await press()).statusCode).toBe(200);
    expect((await press()).statusCode).toBe(200);
    expect(lines.filter((m) => m === 'points redeemed')).toHaveLength(1);
    expect(await h.balance(ALICE)).toBe(900);
  });
});

describe("POST /proxy/shopify/redeem: Shopify's rules for the code", () => {
  it('makes the code for a subtotal of at least its value, combining with shipping discounts as the setting says', async () => {
    const sent: Record<string, unknown>[] = [];
    const shopify = {
      graphql: (q: string, v: Record<string, unknown>) => {
        sent.push(v);
        return h.admin.graphql(q, v);
      },
    };
    const body = h.form('1001', `points=300&request=${newRequest()}`);
    const answer = await handleRedeem(
      { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body },
      { ...h.deps({ valuePerPoint: '2', combinesWithShipping: false }), shopify },
    );
    expect(answer.statusCode).toBe(200);
    expect(sent.find((v) => 'basicCodeDiscount' in v)).toMatchObject({
      basicCodeDiscount: {
        minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '600' } },
        combinesWith: { shippingDiscounts: false },
      },
    });
  });

  it("combines with shipping discounts by default (a shop's automatic free shipping stays)", async () => {
    const sent: Record<string, unknown>[] = [];
    const shopify = {
      graphql: (q: string, v: Record<string, unknown>) => {
        sent.push(v);
        return h.admin.graphql(q, v);
      },
    };
    const body = h.form('1001', `points=100&request=${newRequest()}`);
    await handleRedeem({ method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body }, { ...h.deps(), shopify });
    expect(sent.find((v) => 'basicCodeDiscount' in v)).toMatchObject({ basicCodeDiscount: { combinesWith: { shippingDiscounts: true } } });
  });

  it('retries a code Shopify answered INTERNAL_SERVER_ERROR (HTTP 200) for, without making it, and answers the code', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'internal_server_error', times: 1 });
    const answer = await redeemAs('1001', `points=100&request=${newRequest()}`);
    expect(answer.status).toBe(200);
    expect(h.shop.discounts.byCode(String(answer.body.code))).toBeDefined();
    expect(await h.balance(ALICE)).toBe(900);
  });

  it('finds by its code a code Shopify made but answered INTERNAL_SERVER_ERROR for: one code, answered, points kept off once', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'internal_after_commit', times: 1 });
    const before = h.shop.discounts.list().length;
    const request = newRequest();
    const answer = await redeemAs('1001', `points=100&request=${request}`);
    expect(answer.status).toBe(200);
    expect(h.shop.discounts.list()).toHaveLength(before + 1);
    expect(await h.balance(ALICE)).toBe(900);
    expect(await h.entries(ALICE, redemptionReturnMarker('shopify', '1001', request))).toEqual([]);
  });

  it('retries the userError INTERNAL_ERROR rather than giving the points back', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'internal_user_error', times: 1 });
    const answer = await redeemAs('1001', `points=100&request=${newRequest()}`);
    expect(answer.status).toBe(200);
    expect(await h.balance(ALICE)).toBe(900);
  });

  it("refuses a redemption, deducting nothing and logging why, when the shop's currency is not the setting's", async () => {
    const errors: string[] = [];
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (m: string, f?: Record<string, unknown>) => void errors.push(`${m}: ${String(f?.problem)}`),
    };
    const deps = h.deps({ currency: 'USD' });
    const body = h.form('1001', `points=100&request=${newRequest()}`);
    const answer = asJson(
      await handleRedeem(
        { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body },
        { ...deps, logger, shopProblem: () => shopCurrencyProblem(deps) },
      ),
    );
    expect(answer.status).toBe(503);
    expect(await h.balance(ALICE)).toBe(1000);
    expect(errors).toEqual([expect.stringMatching(/shop's currency is JPY but sources.shopify.redemption.currency is USD/)]);
  });

  it("refuses a redemption, deducting nothing and logging why, when the shop refuses the App Proxy's Admin token", async () => {
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (m: string, f?: Record<string, unknown>) => void warnings.push(`${m}: ${String(f?.error)}`),
      error: () => undefined,
    };
    const wrongToken = createShopifyAdminClient({
      shopDomain: 'demo-shop.myshopify.com',
      origin: h.shop.url,
      accessToken: async () => 'not-the-token',
    });
    const deps = { ...h.deps(), shopify: wrongToken, logger };
    const body = h.form('1001', `points=100&request=${newRequest()}`);
    const answer = asJson(
      await handleRedeem(
        { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body },
        { ...deps, shopProblem: () => shopCurrencyProblem(deps) },
      ),
    );
    await wrongToken.close();
    expect(answer.status).toBe(503);
    expect(await h.balance(ALICE)).toBe(1000);
    expect(warnings).toContain('shop settings not read: unauthorized');
  });
});
