import { describe, expect, it } from 'vitest';
import { handlePointsPage, handleRedeem } from '../../../../shared/redemption/index.js';
import { ProcessingSettings } from '../../../../shared/config/index.js';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { createLedger } from '../../../../shared/ledger/index.js';
import { createProcessor } from '../../../../shared/points/index.js';
import { ALICE, asJson, type Harness, withRedemptionHarness } from './harness.js';

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

const show = (customerId: string, accept: string | undefined = 'application/json', settings = {}) =>
  handlePointsPage({ method: 'GET', rawQuery: h.signed(customerId), accept }, h.deps(settings));

describe('GET /proxy/shopify/points', () => {
  it('answers the balance, the nearest expiries and the redemption rules as JSON', async () => {
    const answer = asJson(await show('1001', 'application/json', { valuePerPoint: '0.5', minPoints: 200, step: 10 }));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      request: expect.stringMatching(/^[0-9a-f-]{36}\.\d+\.[A-Za-z0-9_-]{43}$/),
      balance: 1000,
      expiring: [{ expires_at: '2027-01-15 23:59:59', points: 1000 }],
      pending: [],
      redemption: { valuePerPoint: '0.5', currency: 'JPY', minPoints: 200, step: 10, validSeconds: 2_592_000 },
    });
  });

  it('answers a page in Japanese and English whose form posts points and the issued request value to redeem', async () => {
    const answer = await show('1001', 'text/html');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('保有ポイント / Balance');
    expect(answer.body).toMatch(/<form method="post" action="\/apps\/points\/redeem">/);
    expect(answer.body).toMatch(/<input type="hidden" name="request" value="[0-9a-f-]{36}\.\d+\.[A-Za-z0-9_-]{43}">/);
  });

  it("answers the page as application/liquid, a fragment Shopify renders inside the shop's theme", async () => {
    const answer = await show('1001', 'text/html');
    expect(answer.headers['content-type']).toBe('application/liquid');
    expect(answer.body).not.toContain('<html');
  });

  it('answers JSON when the storefront asks by the query (format=json) rather than by Accept', async () => {
    const answer = await handlePointsPage({ method: 'GET', rawQuery: h.signed('1001', { format: 'json' }), accept: '*/*' }, h.deps());
    expect(answer.headers['content-type']).toBe('application/json');
    expect(asJson(answer).body).toMatchObject({ balance: 1000 });
  });

  it('sends anti-framing and nosniff headers on the page, its JSON and its refusals', async () => {
    const answers = [await show('1001', 'text/html'), await show('1001'), await show('1003'), await show('1003', 'text/html')];
    for (const answer of answers) {
      expect(answer.headers).toMatchObject({
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      });
    }
  });

  it('issues a request value the redeem POST takes, once, for its customer', async () => {
    const { request } = asJson(await show('1001')).body;
    const body = `points=100&request=${encodeURIComponent(String(request))}`;
    const redeemed = await handleRedeem({ method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body }, h.deps());
    expect(redeemed.statusCode).toBe(200);
    const again = await handleRedeem({ method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body }, h.deps());
    expect(asJson(again).body.code).toBe(asJson(redeemed).body.code);
    expect(await h.balance(ALICE)).toBe(900);
    const bob = await handleRedeem({ method: 'POST', rawQuery: h.signed('1002'), accept: undefined, body }, h.deps());
    expect(bob.statusCode).toBe(403);
  });

  it('gives each page its own request id', async () => {
    const ids = await Promise.all([show('1001', 'text/html'), show('1001', 'text/html')]);
    const [a, b] = ids.map((p) => /name="request" value="([^"]+)"/.exec(p.body)?.[1]);
    expect(a).not.toBe(b);
  });

  it('refuses a customer not linked to a member with 403 and a link to the link page', async () => {
    const answer = asJson(await show('1003'));
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { kind: 'not_linked', link: '/apps/points/link' } });
  });

  it('refuses when nobody is logged in with 403', async () => {
    const answer = asJson(await show(''));
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { kind: 'not_logged_in' } });
  });

  it('refuses a query carrying a parameter of its own (another split of the signed text) with 400', async () => {
    const answer = asJson(
      await handlePointsPage({ method: 'GET', rawQuery: h.signed('1001', { member: 'x' }), accept: 'application/json' }, h.deps()),
    );
    expect(answer.status).toBe(400);
  });
});

describe('GET /proxy/shopify/points: provisional points (仮ポイント)', () => {
  const show = (customerId: string, accept = 'application/json') =>
    handlePointsPage({ method: 'GET', rawQuery: h.signed(customerId), accept }, h.deps({}, { earnsLater: true }));
  const processor = () =>
    createProcessor({
      ledger: createLedger({ client: h.dynamo.documentClient, tableName: h.tableName, clock: h.clock }),
      openapi: h.openapi,
      clock: h.clock,
      settings: ProcessingSettings.parse({}),
    });
  const order = (orderId: string, eligibleAmount: number, earnAfter?: PurchaseEvent['earnAfter']): PurchaseEvent => ({
    type: 'purchase',
    eventId: `shopify:order:${orderId}`,
    source: 'shopify',
    orderId,
    orderName: `#${orderId}`,
    customer: { externalKey: 'shopify', externalId: '1001' },
    currency: 'JPY',
    occurredAt: new Date(h.clock()).toISOString(),
    pointTitle: 'Purchase',
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'orders/paid' },
    eligibleAmount,
    expiryDays: null,
    ...(earnAfter ? { earnAfter } : {}),
  });

  it('lists an order waiting for its shipment, estimated at the rate of the customer’s last credit', async () => {
    await processor().process(order('2001', 1000));
    const credited = (await h.entries(ALICE, 'lp1:shopify:order:2001'))[0]?.point ?? 0;
    await processor().process(order('2002', 3000, { kind: 'fulfilled' }));
    const answer = asJson(await show('1001'));
    expect(answer.body.pending).toEqual([{ points: credited * 3, order: '#2002', from: 'fulfilment' }]);
  });

  it('a shipped share is no longer provisional: only the part still to ship is listed', async () => {
    await processor().process(order('2007', 1000));
    const credited = (await h.entries(ALICE, 'lp1:shopify:order:2007'))[0]?.point ?? 0;
    const p = order('2008', 3000, { kind: 'fulfilled' });
    await processor().process(p);
    await processor().process({ ...p, eventId: `${p.eventId}:shipped:1/3`, earnMoment: 'partial', shipped: { num: '1', den: '3' } });
    expect(asJson(await show('1001')).body.pending).toEqual([{ points: credited * 2, order: '#2008', from: 'fulfilment' }]);
  });

  it('names the day a days-after-payment order becomes final, and has no estimate before a first credit', async () => {
    await processor().process(order('2003', 1000, { kind: 'days', days: 14 }));
    const answer = asJson(await show('1001'));
    expect(answer.body.pending).toEqual([{ points: null, order: '#2003', from: new Date(h.clock() + 14 * 86_400_000).toISOString() }]);
  });

  it('shows the provisional points in Japanese on the page', async () => {
    await processor().process(order('2004', 1000, { kind: 'fulfilled' }));
    expect((await show('1001', 'text/html')).body).toContain('仮ポイント（注文 #2004、発送後に確定）');
  });

  it('lists nothing, reading no order, where the source earns at payment', async () => {
    await processor().process(order('2006', 1000, { kind: 'fulfilled' }));
    const paidSource = await handlePointsPage({ method: 'GET', rawQuery: h.signed('1001'), accept: 'application/json' }, h.deps());
    expect([paidSource.statusCode, asJson(paidSource).body.pending]).toEqual([200, []]);
  });

  it('lists nothing once the order has earned its points', async () => {
    const p = order('2005', 1000, { kind: 'fulfilled' });
    await processor().process(p);
    await processor().process({ ...p, eventId: `${p.eventId}:fulfilled`, earnMoment: 'fulfilled' });
    expect(asJson(await show('1001')).body.pending).toEqual([]);
  });
});

describe('GET /proxy/shopify/points: a till’s provisional sales of the same member (仮ポイント)', () => {
  // The stage's Smaregi source earning 14 days after a sale (its codes under the emulator's `pos_card` key);
  // the shop's own source earns at payment.
  const TILL = { source: 'smaregi', externalKey: 'pos_card' } as const;
  const show = (customerId: string, accept = 'application/json') =>
    handlePointsPage({ method: 'GET', rawQuery: h.signed(customerId), accept }, h.deps({}, { pendingElsewhere: [TILL] }));
  const processor = () =>
    createProcessor({
      ledger: createLedger({ client: h.dynamo.documentClient, tableName: h.tableName, clock: h.clock }),
      openapi: h.openapi,
      clock: h.clock,
      settings: ProcessingSettings.parse({}),
    });
  const sale = (source: string, orderId: string, customer: { externalKey: string; externalId: string }, days?: number): PurchaseEvent => ({
    type: 'purchase',
    eventId: `${source}:order:${orderId}`,
    source,
    orderId,
    customer,
    currency: 'JPY',
    occurredAt: new Date(h.clock()).toISOString(),
    pointTitle: 'Purchase',
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'test' },
    eligibleAmount: 1000,
    expiryDays: null,
    ...(days ? { earnAfter: { kind: 'days', days, current: true } } : {}),
  });
  const linkTill = async (memberId: string, shopifyId: string, code: string) => {
    await h.openapi.updateMember(memberId, { external_ids: { shopify: shopifyId, pos_card: code } });
  };

  it('lists the member’s till sale waiting for its day, with its points, order and day, though the shop earns at payment', async () => {
    await linkTill(ALICE, '1001', 'C-1001');
    await processor().process(sale('shopify', '3001', { externalKey: 'shopify', externalId: '1001' }));
    const credited = (await h.entries(ALICE, 'lp1:shopify:order:3001'))[0]?.point ?? 0;
    await processor().process(sale('smaregi', '7101', { externalKey: 'pos_card', externalId: 'C-1001' }, 14));
    expect(asJson(await show('1001')).body.pending).toEqual([
      { points: credited, order: '7101', from: new Date(h.clock() + 14 * 86_400_000).toISOString() },
    ]);
  });

  it('shows the till sale’s provisional points in Japanese on the page', async () => {
    await linkTill(ALICE, '1001', 'C-1001');
    await processor().process(sale('smaregi', '7102', { externalKey: 'pos_card', externalId: 'C-1001' }, 14));
    expect((await show('1001', 'text/html')).body).toMatch(/仮ポイント( 約 \d+ pt)?（注文 7102、[^）]+ に確定）/);
  });

  it('lists no till sale of another customer for a member whose record holds no till customer', async () => {
    await processor().process(sale('smaregi', '7103', { externalKey: 'pos_card', externalId: 'C-9999' }, 14));
    expect(asJson(await show('1002')).body.pending).toEqual([]);
  });
});
