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
