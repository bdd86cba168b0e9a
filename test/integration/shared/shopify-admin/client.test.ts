import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../../local/shopify-admin/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient, ShopifyAdminError } from '../../../../shared/shopify-admin/index.js';

/** The client against the local GraphQL Admin API stand-in over real HTTP. */

const TOKEN = 'test-admin-token';
const WINDOW = { since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() + 3_600_000) };

function orderBody(n: number): string {
  return `{"id": ${7_000_000_000_000_000_000n + BigInt(n)}, "name": "#${n}", "currency": "USD", "financial_status": "paid",
    "created_at": "2026-11-22T10:00:00-05:00", "customer": {"id": 1001},
    "subtotal_price": "${n}.50", "total_tax": "1.00", "total_price": "${n + 1}.50", "shipping_lines": []}`;
}

describe('the Shopify GraphQL Admin API client', () => {
  let shop: ShopifyAdminStandIn;
  let client: ShopifyAdminClient;
  const waits: { ms: number; reason: string }[] = [];

  beforeEach(async () => {
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN });
    waits.length = 0;
    client = createShopifyAdminClient({
      shopDomain: 'test-shop.myshopify.com',
      origin: shop.url,
      accessToken: async () => TOKEN,
      onWait: (ms, reason) => waits.push({ ms, reason }),
    });
  });
  afterEach(async () => {
    await client.close();
    await shop.close();
  });

  const put = async (path: string, body: string) =>
    (await fetch(`${shop.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
  const readAll = async (window = WINDOW) => {
    const ids: string[] = [];
    let pages = 0;
    for await (const page of client.orders(window)) {
      pages += 1;
      ids.push(...page.map((o) => o.id));
    }
    return { ids, pages };
  };

  it('reads every order updated in the window, page by page through the cursor', async () => {
    for (let n = 1; n <= 25; n++) expect(await put('/__shopify/orders', orderBody(n))).toBe(201);
    const { ids, pages } = await readAll();
    expect(pages).toBe(3);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `gid://shopify/Order/${7_000_000_000_000_000_000n + BigInt(i + 1)}`));
  });

  it('leaves out orders updated outside the window', async () => {
    await put('/__shopify/orders', orderBody(1));
    const { ids } = await readAll({ since: new Date(Date.now() + 60_000), until: new Date(Date.now() + 120_000) });
    expect(ids).toEqual([]);
  });

  it('backs off on THROTTLED until the bucket has refilled, then completes', async () => {
    for (let n = 1; n <= 3; n++) await put('/__shopify/orders', orderBody(n));
    shop.setBucket({ maximumAvailable: 1000, restoreRate: 2000, currentlyAvailable: 0 });
    const { ids } = await readAll();
    expect(ids).toHaveLength(3);
    expect(shop.stats().throttled).toBe(1);
    expect(waits.map((w) => w.reason)).toContain('throttled');
  });

  it('waits for the bucket before a page it cannot pay for, instead of being throttled', async () => {
    for (let n = 1; n <= 25; n++) await put('/__shopify/orders', orderBody(n));
    // One page costs about 520 points: the second page must wait for the bucket to refill.
    shop.setBucket({ maximumAvailable: 600, restoreRate: 2000, currentlyAvailable: 600 });
    const { ids } = await readAll();
    expect(ids).toHaveLength(25);
    expect(shop.stats().throttled).toBe(0);
    expect(waits.some((w) => w.reason === 'bucket_low')).toBe(true);
  });

  it('gives up with a throttled error when the bucket never refills', async () => {
    await put('/__shopify/orders', orderBody(1));
    shop.setBucket({ restoreRate: 0, currentlyAvailable: 0 });
    const limited = createShopifyAdminClient({
      shopDomain: 'x.myshopify.com',
      origin: shop.url,
      accessToken: async () => TOKEN,
      maxThrottleRetries: 2,
    });
    try {
      await expect(limited.orders(WINDOW).next()).rejects.toMatchObject({ kind: 'throttled' });
      expect(shop.stats().throttled).toBe(3);
    } finally {
      await limited.close();
    }
  });

  it('refuses a wrong access token as unauthorized, without repeating the token', async () => {
    const wrong = createShopifyAdminClient({
      shopDomain: 'x.myshopify.com',
      origin: shop.url,
      accessToken: async () => 'shpat_wrong_token',
    });
    try {
      const error = await wrong
        .orders(WINDOW)
        .next()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ShopifyAdminError);
      expect(error).toMatchObject({ kind: 'unauthorized', status: 401 });
      expect(String((error as Error).message)).not.toContain('shpat_wrong_token');
    } finally {
      await wrong.close();
    }
  });

  it('reads every line item of a refund with more lines than one page', async () => {
    await put('/__shopify/orders', orderBody(1));
    const lines = Array.from({ length: 60 }, (_, i) => `{"subtotal": "${i}.01", "total_tax": "0.10"}`).join(',');
    expect(
      await put(
        '/__shopify/refunds',
        `{"id": 55, "order_id": 7000000000000000001, "created_at": "2026-11-23T10:00:00Z", "refund_line_items": [${lines}]}`,
      ),
    ).toBe(201);
    const refund = await client.refund('gid://shopify/Refund/55');
    expect(refund?.refundLineItems).toHaveLength(60);
    expect(refund?.refundLineItems[59]?.subtotalSet.shopMoney.amount).toBe('59.01');
    expect(refund?.orderId).toBe('gid://shopify/Order/7000000000000000001');
  });

  it('answers undefined for a refund Shopify does not have', async () => {
    expect(await client.refund('gid://shopify/Refund/404')).toBeUndefined();
  });
});
