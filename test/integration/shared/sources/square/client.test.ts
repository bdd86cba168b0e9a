import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSquareOrdersStandIn, type SquareOrdersStandIn } from '../../../../../stand-ins/square-orders/server.js';
import { createSquareOrdersClient, SquareOrder, subtotalExcludingTax } from '../../../../../shared/sources/square/index.js';
import { fixture } from '../../../../../kit/fixture-webhooks.js';

/** Square's published order examples (test/fixtures/square/SOURCES.md), served by the local stand-in. */
const published = (file: string, path: (j: Record<string, unknown>) => unknown) =>
  SquareOrder.parse(path(JSON.parse(fixture(`square/${file}`)) as Record<string, unknown>));
const RETRIEVED = published('retrieve-order-response.json', (j) => j.order);
const ADDITIVE = published('create-order-response-additive-tax.json', (j) => j.order);
// The checkout's order is shown before it has an id: the test names it.
const INCLUSIVE = published('create-checkout-response-inclusive-tax.json', (j) => ({
  id: 'CHECKOUT_ORDER',
  ...((j.checkout as Record<string, unknown>).order as object),
}));

describe("an order's amount without tax (Square's published examples)", () => {
  it('takes the added tax off each line: 61.76 with 5.10 tax earns on 56.66', () => {
    expect(subtotalExcludingTax(ADDITIVE)).toEqual({ minor: 5666n, currency: 'USD' });
  });

  it('takes the included tax out of each line: 145.03 with 1.03 inside earns on 144.00', () => {
    expect(subtotalExcludingTax(INCLUSIVE)).toEqual({ minor: 14400n, currency: 'USD' });
  });

  it('counts the lines after their discounts: 11.00 with a 50 % discount earns on 5.50', () => {
    expect(subtotalExcludingTax(RETRIEVED)).toEqual({ minor: 550n, currency: 'USD' });
  });

  it('leaves out a gift card sold on the order', () => {
    const withGiftCard = {
      ...RETRIEVED,
      line_items: [...RETRIEVED.line_items, { item_type: 'GIFT_CARD', total_money: { amount: 5000, currency: 'USD' } }],
    };
    expect(subtotalExcludingTax(withGiftCard)).toEqual({ minor: 550n, currency: 'USD' });
  });
});

describe('the Square Orders API client against the stand-in', () => {
  const TOKEN = 'EAAA-local-square-orders-token';
  let square: SquareOrdersStandIn;
  const slept: number[] = [];
  const client = (token = TOKEN) =>
    createSquareOrdersClient({ origin: square.url, accessToken: async () => token, sleep: async (ms) => void slept.push(ms) });
  const fault = (body: unknown) =>
    fetch(`${square.url}/__square/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    square = await startSquareOrdersStandIn({ accessToken: TOKEN });
    square.put(ADDITIVE);
  });
  afterAll(async () => {
    await square?.close();
  });

  it('reads the order behind a payment', async () => {
    expect((await client().retrieveOrder(ADDITIVE.id)).total_money).toEqual({ amount: 6176, currency: 'USD' });
  });

  it("waits as long as Square's Retry-After says on a 429, then reads the order", async () => {
    slept.length = 0;
    await fault({ status: 429, times: 1, retry_after: '2' });
    expect((await client().retrieveOrder(ADDITIVE.id)).id).toBe(ADDITIVE.id);
    expect(slept).toEqual([2000]);
  });

  it('gives up as unavailable after three 500s, so the event waits like any upstream outage', async () => {
    await fault({ status: 500, times: 3 });
    await expect(client().retrieveOrder(ADDITIVE.id)).rejects.toMatchObject({ kind: 'unavailable', status: 500 });
  });

  it('says the token is refused without retrying or showing it', async () => {
    const reads = square.reads();
    const refused = await client('wrong-token')
      .retrieveOrder(ADDITIVE.id)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(String((refused as Error).message)).not.toContain('wrong-token');
    expect(square.reads()).toBe(reads);
  });

  it('says an unknown order is not found', async () => {
    await expect(client().retrieveOrder('NO_SUCH_ORDER')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('stops calling a failing Square after five outages in a row, until the next probe', async () => {
    const c = client();
    await fault({ status: 503, times: 15 });
    for (let i = 0; i < 5; i++) await expect(c.retrieveOrder(ADDITIVE.id)).rejects.toMatchObject({ kind: 'unavailable' });
    const reads = square.reads();
    await expect(c.retrieveOrder(ADDITIVE.id)).rejects.toThrow(/waiting for the next probe/);
    expect(square.reads()).toBe(reads);
    await fault({ status: 200, times: 0 });
  });
});
