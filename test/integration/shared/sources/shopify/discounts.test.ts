import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from '../../../../../stand-ins/shopify-admin/index.js';
import {
  createDiscountCode,
  createShopifyAdminClient,
  deactivateDiscountCode,
  discountByCode,
  isShopifyAdminError,
  type ShopifyAdminClient,
  shopCurrency,
} from '../../../../../shared/sources/shopify/index.js';

/** The redemption's discount documents, sent by the client to the Admin API stand-in over HTTP. */

const TOKEN = 'discount-token';
let clock = Date.parse('2026-11-27T10:00:00Z');

describe('single-use discount codes through the Admin API', () => {
  let shop: ShopifyAdminStandIn;
  let client: ShopifyAdminClient;
  beforeAll(async () => {
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN, now: () => clock });
    client = createShopifyAdminClient({ shopDomain: 'demo.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
  });
  afterAll(async () => {
    await client?.close();
    await shop?.close();
  });

  const input = (code: string, endsInMs = 86_400_000) => ({
    code,
    title: `Points ${code}`,
    amount: '500',
    customerGid: 'gid://shopify/Customer/1001',
    startsAt: new Date(clock).toISOString(),
    endsAt: new Date(clock + endsInMs).toISOString(),
  });

  /** The document exactly as the issue writes it, by raw HTTP. */
  const byCodeRaw = async (code: string) => {
    const res = await fetch(`${shop.url}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN },
      body: JSON.stringify({
        query:
          'query ($code: String!) { codeDiscountNodeByCode(code: $code) { id codeDiscount { ... on DiscountCodeBasic { status usageLimit } } } }',
        variables: { code },
      }),
    });
    return ((await res.json()) as { data: { codeDiscountNodeByCode: unknown } }).data.codeDiscountNodeByCode;
  };

  it('makes a fixed amount off for one customer, usable once, that codeDiscountNodeByCode finds ACTIVE with usageLimit 1', async () => {
    const made = await createDiscountCode(client, input('PTS-ACTIVE1'));
    expect(made.ok).toBe(true);
    expect(await byCodeRaw('PTS-ACTIVE1')).toEqual({
      id: made.ok ? made.node.id : '',
      codeDiscount: { status: 'ACTIVE', usageLimit: 1 },
    });
    const stored = shop.discounts.byCode('PTS-ACTIVE1');
    expect(stored).toMatchObject({ amount: '500', currency: 'JPY', customers: ['gid://shopify/Customer/1001'], usageLimit: 1 });
  });

  it('refuses a second discount with the same code (any case) as TAKEN and makes nothing more', async () => {
    await createDiscountCode(client, input('PTS-TWICE'));
    const again = await createDiscountCode(client, input('pts-twice'));
    expect(again).toMatchObject({ ok: false, taken: true });
    expect(shop.discounts.list().filter((d) => d.code.toUpperCase() === 'PTS-TWICE')).toHaveLength(1);
  });

  it('answers EXPIRED once the code is deactivated', async () => {
    const made = await createDiscountCode(client, input('PTS-DEACT'));
    if (!made.ok) throw new Error('not made');
    const ended = await deactivateDiscountCode(client, made.node.id);
    expect(ended.ok && ended.node.codeDiscount.status).toBe('EXPIRED');
    expect(await byCodeRaw('PTS-DEACT')).toMatchObject({ codeDiscount: { status: 'EXPIRED' } });
  });

  it('answers EXPIRED once the code is past its end', async () => {
    await createDiscountCode(client, input('PTS-ENDS', 60_000));
    clock += 61_000;
    expect((await discountByCode(client, 'PTS-ENDS'))?.codeDiscount.status).toBe('EXPIRED');
  });

  it('answers null for a code the shop does not have', async () => {
    expect(await byCodeRaw('PTS-NOSUCH')).toBeNull();
    expect(await discountByCode(client, 'PTS-NOSUCH')).toBeUndefined();
  });

  it('selects nothing through an inline fragment on another discount type', async () => {
    await createDiscountCode(client, input('PTS-FRAG'));
    const data = await client.graphql(
      'query ($code: String!) { codeDiscountNodeByCode(code: $code) { codeDiscount { __typename ... on DiscountCodeBxgy { title } } } }',
      { code: 'PTS-FRAG' },
    );
    expect(data).toEqual({ codeDiscountNodeByCode: { codeDiscount: { __typename: 'DiscountCodeBasic' } } });
  });

  it('refuses a discount for no customer with a userError and makes nothing', async () => {
    const before = shop.discounts.list().length;
    const res = await client.graphql(
      'mutation ($b: DiscountCodeBasicInput!) { discountCodeBasicCreate(basicCodeDiscount: $b) { codeDiscountNode { id } userErrors { field message } } }',
      {
        b: { ...input('PTS-NOBODY'), customerGets: { value: { discountAmount: { amount: '5' } }, items: { all: true } } },
      },
    );
    expect((res as { discountCodeBasicCreate: { userErrors: unknown[] } }).discountCodeBasicCreate.userErrors).not.toHaveLength(0);
    expect(shop.discounts.list()).toHaveLength(before);
  });

  /** The client, with every document's variables kept (what Shopify was asked for). */
  const recording = () => {
    const sent: Record<string, unknown>[] = [];
    const graphql = (q: string, v: Record<string, unknown>) => {
      sent.push(v);
      return client.graphql(q, v);
    };
    return { sent, client: { graphql } };
  };

  it("asks for a subtotal of at least the code's amount, so Shopify never caps a code on smaller goods", async () => {
    const r = recording();
    await createDiscountCode(r.client, input('PTS-MINIMUM1'));
    expect(r.sent[0]).toMatchObject({ basicCodeDiscount: { minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '500' } } } });
  });

  it('combines with shipping discounts only when asked to', async () => {
    const r = recording();
    await createDiscountCode(r.client, { ...input('PTS-SHIPYES1'), combinesWithShipping: true });
    await createDiscountCode(r.client, { ...input('PTS-SHIPNO01'), combinesWithShipping: false });
    expect(r.sent.map((v) => (v.basicCodeDiscount as { combinesWith: unknown }).combinesWith)).toEqual([
      { orderDiscounts: false, productDiscounts: false, shippingDiscounts: true },
      { orderDiscounts: false, productDiscounts: false, shippingDiscounts: false },
    ]);
  });

  it("reads the shop's currency", async () => {
    expect(await shopCurrency(client)).toBe('JPY');
  });

  it('reads INTERNAL_SERVER_ERROR answered at HTTP 200 as the transient kind internal, not a refusal', async () => {
    shop.addFault({ field: 'discountCodeBasicCreate', fault: 'internal_server_error', times: 1 });
    const failed = await createDiscountCode(client, input('PTS-INTERNAL1')).catch((e: unknown) => e);
    expect(isShopifyAdminError(failed) && failed.kind).toBe('internal');
  });

  it('reads the userError INTERNAL_ERROR as transient, nothing made', async () => {
    shop.addFault({ field: 'discountCodeBasicCreate', fault: 'internal_user_error', times: 1 });
    expect(await createDiscountCode(client, input('PTS-INTERNAL2'))).toMatchObject({ ok: false, taken: false, transient: true });
    expect(shop.discounts.byCode('PTS-INTERNAL2')).toBeUndefined();
  });
});

describe('the Admin API stand-in, as strict as Shopify', () => {
  let shop: ShopifyAdminStandIn;
  let client: ShopifyAdminClient;
  let now = Date.parse('2026-11-27T10:00:00Z');
  beforeAll(async () => {
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN, now: () => now, usageLagMs: 60_000 });
    client = createShopifyAdminClient({ shopDomain: 'demo.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
  });
  afterAll(async () => {
    await client?.close();
    await shop?.close();
  });

  const CREATE =
    'mutation ($b: DiscountCodeBasicInput!) { discountCodeBasicCreate(basicCodeDiscount: $b) { codeDiscountNode { id } userErrors { field code message } } }';
  const basic = (code: string, extra: Record<string, unknown> = {}) => ({
    title: code,
    code,
    startsAt: new Date(now).toISOString(),
    endsAt: new Date(now + 86_400_000).toISOString(),
    usageLimit: 1,
    context: { customers: { add: ['gid://shopify/Customer/1001'] } },
    customerGets: { value: { discountAmount: { amount: '500', appliesOnEachItem: false } }, items: { all: true } },
    ...extra,
  });
  const post = async (version: string, query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${shop.url}/admin/api/${version}/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: Record<string, { userErrors?: { code: string }[] }>; errors?: { message: string }[] };
  };

  it("answers a code's minimum subtotal through DiscountMinimumSubtotal, as Shopify does", async () => {
    await post('2026-10', CREATE, {
      b: basic('PTS-MINIMUM', { minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '500' } } }),
    });
    const answer = await client.graphql(
      'query ($c: String!) { codeDiscountNodeByCode(code: $c) { codeDiscount { ... on DiscountCodeBasic { minimumRequirement { ... on DiscountMinimumSubtotal { greaterThanOrEqualToSubtotal { amount } } } } } } }',
      { c: 'PTS-MINIMUM' },
    );
    expect(answer).toEqual({
      codeDiscountNodeByCode: { codeDiscount: { minimumRequirement: { greaterThanOrEqualToSubtotal: { amount: '500' } } } },
    });
  });

  it('refuses context before API version 2025-10, as an input field that version does not define, and makes nothing', async () => {
    const before = shop.discounts.list().length;
    const answer = await post('2025-07', CREATE, { b: basic('PTS-OLDVERSION') });
    expect(answer.errors?.[0]?.message).toMatch(/context/);
    expect(shop.discounts.list()).toHaveLength(before);
  });

  it('refuses an end before the start with END_DATE_BEFORE_START_DATE', async () => {
    const answer = await post('2026-10', CREATE, { b: basic('PTS-BACKWARDS', { endsAt: new Date(now - 1000).toISOString() }) });
    expect(answer.data?.discountCodeBasicCreate?.userErrors?.map((e) => e.code)).toEqual(['END_DATE_BEFORE_START_DATE']);
  });

  it('takes a code at checkout only for its customer, within its limit and minimum, before its end', async () => {
    await post('2026-10', CREATE, {
      b: basic('PTS-CHECKOUT', { minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '500' } } }),
    });
    const me = 'gid://shopify/Customer/1001';
    expect(shop.discounts.apply('PTS-CHECKOUT', { customerGid: 'gid://shopify/Customer/1002', subtotal: '900' })).toEqual({
      ok: false,
      reason: 'other_customer',
    });
    expect(shop.discounts.apply('PTS-CHECKOUT', { customerGid: me, subtotal: '400' })).toEqual({ ok: false, reason: 'below_minimum' });
    expect(shop.discounts.apply('PTS-CHECKOUT', { customerGid: me, subtotal: '900' })).toEqual({ ok: true });
    expect(shop.discounts.apply('PTS-CHECKOUT', { customerGid: me, subtotal: '900' })).toEqual({ ok: false, reason: 'usage_limit' });
    await post('2026-10', CREATE, { b: basic('PTS-LATE') });
    now += 86_400_000;
    expect(shop.discounts.apply('PTS-LATE', { customerGid: me, subtotal: '900' })).toEqual({ ok: false, reason: 'ended' });
  });

  /** An order as /__shopify/orders takes it (an orders/paid body): goods of `goods` yen before the code. */
  const orderUsing = (id: string, code: string, customerId: string, goods = '900') =>
    JSON.stringify({
      id,
      currency: 'JPY',
      created_at: new Date(now).toISOString(),
      customer: { id: customerId },
      discount_codes: [{ code }],
      total_line_items_price: goods,
      total_discounts: '500',
      subtotal_price: String(Number(goods) - 500),
    });
  const storeOrder = (path: string, body: string) =>
    fetch(`${shop.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const usesOf = (code: string) => shop.discounts.byCode(code)?.usageCount;

  it.each([
    ['another customer’s code', 'PTS-ORDER-OTHER', { customer: '1002' }, 'other_customer'],
    ['a code past its end', 'PTS-ORDER-ENDED', { endsAt: 'past' }, 'ended'],
    ['goods below the code’s minimum', 'PTS-ORDER-SMALL', { goods: '400' }, 'below_minimum'],
  ] as const)(
    'refuses at /__shopify/orders a new order using %s (422), storing nothing and counting no use',
    async (_what, code, how, reason) => {
      const endsAt = 'endsAt' in how ? new Date(now + 1000).toISOString() : new Date(now + 86_400_000).toISOString();
      await post('2026-10', CREATE, {
        b: basic(code, { endsAt, minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '500' } } }),
      });
      if ('endsAt' in how) now += 2000;
      const id = String(880000 + shop.store.list().length + Number(code.length));
      const res = await storeOrder(
        '/__shopify/orders',
        orderUsing(id, code, 'customer' in how ? how.customer : '1001', 'goods' in how ? how.goods : '900'),
      );
      expect([res.status, ((await res.json()) as { reason?: string }).reason, shop.store.get(id), usesOf(code)]).toEqual([
        422,
        reason,
        undefined,
        0,
      ]);
    },
  );

  it('counts a new order’s code once at /__shopify/orders, and the same order stored again (its cancellation) no second time', async () => {
    await post('2026-10', CREATE, { b: basic('PTS-ORDER-ONCE', { usageLimit: 1 }) });
    const body = orderUsing('880101', 'PTS-ORDER-ONCE', '1001');
    expect((await storeOrder('/__shopify/orders', body)).status).toBe(201);
    const cancelled = JSON.stringify({ ...JSON.parse(body), cancelled_at: new Date(now).toISOString() });
    expect((await storeOrder('/__shopify/orders', cancelled)).status).toBe(201);
    expect(usesOf('PTS-ORDER-ONCE')).toBe(1);
  });

  it('stores at /__shopify/historical-orders an order placed before its code ended, counting the use without the checkout rules', async () => {
    await post('2026-10', CREATE, { b: basic('PTS-ORDER-HISTORY', { endsAt: new Date(now + 1000).toISOString() }) });
    now += 2000;
    expect((await storeOrder('/__shopify/historical-orders', orderUsing('880201', 'PTS-ORDER-HISTORY', '1001'))).status).toBe(201);
    expect([shop.store.get('880201')?.order.id, usesOf('PTS-ORDER-HISTORY')]).toEqual(['880201', 1]);
  });

  it('shows a use in asyncUsageCount only after its lag', async () => {
    await post('2026-10', CREATE, { b: basic('PTS-LAGGING') });
    expect(shop.discounts.apply('PTS-LAGGING', { customerGid: 'gid://shopify/Customer/1001', subtotal: '900' })).toEqual({ ok: true });
    expect((await discountByCode(client, 'PTS-LAGGING'))?.codeDiscount.asyncUsageCount).toBe(0);
    now += 61_000;
    expect((await discountByCode(client, 'PTS-LAGGING'))?.codeDiscount.asyncUsageCount).toBe(1);
  });
});
