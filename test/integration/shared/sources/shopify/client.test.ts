import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../../../stand-ins/shopify-admin/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient, ShopifyAdminError } from '../../../../../shared/sources/shopify/index.js';

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

/**
 * The client against a real local HTTP server that misbehaves the way a hostile or broken Admin API
 * (or anyone answering at its address) could: the Open API client's rules hold here too.
 */
describe('the Shopify GraphQL Admin API client against a misbehaving server', () => {
  type Behaviour = (res: ServerResponse, query: string, variables: Record<string, unknown>, n: number) => void;
  let server: Server;
  let url = '';
  let requests = 0;
  let written = 0;
  let behaviour: Behaviour;
  let client: ShopifyAdminClient | undefined;
  // A server left alone would never stop: each behaviour ends itself after this many requests.
  const GIVE_UP_AFTER = 300;

  beforeEach(async () => {
    requests = 0;
    written = 0;
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests += 1;
        const { query, variables } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          query: string;
          variables: Record<string, unknown>;
        };
        behaviour(res, query, variables, requests);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const connect = (options: Partial<Parameters<typeof createShopifyAdminClient>[0]> = {}) => {
    client = createShopifyAdminClient({ shopDomain: 'hostile.myshopify.com', origin: url, accessToken: async () => TOKEN, ...options });
    return client;
  };
  const json = (res: ServerResponse, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const ordersPage = (endCursor: string, hasNextPage: boolean) => ({
    data: { orders: { pageInfo: { hasNextPage, endCursor }, nodes: [] } },
  });
  const money = { shopMoney: { amount: '1.00', currencyCode: 'JPY' } };
  const refundPage = (endCursor: string, hasNextPage: boolean) => ({
    data: {
      refund: {
        id: 'gid://shopify/Refund/1',
        createdAt: '2026-11-23T00:00:00Z',
        order: { id: 'gid://shopify/Order/1' },
        refundLineItems: {
          pageInfo: { hasNextPage, endCursor },
          nodes: Array.from({ length: 20 }, () => ({ subtotalSet: money, totalTaxSet: money })),
        },
        orderAdjustments: { nodes: [] },
        refundShippingLines: { nodes: [] },
      },
    },
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e,
    );
  /** What reading every page of orders ends with (undefined: it ended). */
  const readingAllOrders = (options: Partial<Parameters<typeof createShopifyAdminClient>[0]> = {}) =>
    failure(
      (async () => {
        for await (const _ of connect(options).orders(WINDOW));
      })(),
    );

  it('cuts off an answer larger than 1 MiB instead of holding it in memory', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // Up to 64 MiB, as fast as the client takes it; a closed socket ends the stream.
      const pump = () => {
        while (written < 64 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const error = await failure(connect().orders(WINDOW).next());
    expect(error).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('larger than 1048576 bytes') });
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('ends a call whose answer trickles in at its overall deadline', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || ++sent > 100) {
          clearInterval(timer);
          res.end();
        } else res.write(' ');
      }, 100);
    };
    const error = await failure(connect({ deadlineMs: 500 }).orders(WINDOW).next());
    expect(error).toMatchObject({ kind: 'timeout', message: expect.stringContaining('500 ms') });
  });

  it('stops when Shopify answers the same orders cursor again, after two requests', async () => {
    behaviour = (res, _q, _v, n) => json(res, ordersPage('same-cursor', n < GIVE_UP_AFTER));
    const error = await readingAllOrders();
    expect(error).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('repeated') });
    expect(requests).toBe(2);
  });

  it('stops at its page limit when the pages never end', async () => {
    behaviour = (res, _q, _v, n) => json(res, ordersPage(`cursor-${n}`, n < GIVE_UP_AFTER));
    const error = await readingAllOrders({ maxPages: 5 });
    expect(error).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('5 pages') });
    expect(requests).toBe(5);
  });

  it('stops when a refund’s line-item cursor repeats, after two requests', async () => {
    behaviour = (res, _q, _v, n) => json(res, refundPage('same-line-cursor', n < GIVE_UP_AFTER));
    const error = await failure(connect().refund('gid://shopify/Refund/1'));
    expect(error).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('repeated') });
    expect(requests).toBe(2);
  });

  it('stops reading a refund’s line items at the cap', async () => {
    behaviour = (res, _q, _v, n) => json(res, refundPage(`line-cursor-${n}`, n < GIVE_UP_AFTER));
    const error = await failure(connect({ maxRefundLineItems: 100 }).refund('gid://shopify/Refund/1'));
    expect(error).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('100 line items') });
    expect(requests).toBe(5);
  });
});
