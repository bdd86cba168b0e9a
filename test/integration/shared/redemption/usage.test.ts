import { describe, expect, it } from 'vitest';
import { ProcessingSettings } from '../../../../shared/config/index.js';
import type { QueuedEvent } from '../../../../shared/events/index.js';
import { createLedger } from '../../../../shared/ledger/index.js';
import { METRIC } from '../../../../shared/metrics/index.js';
import { createProcessor, redemptionClawbackMarker } from '../../../../shared/points/index.js';
import { handleRedeem, sweepRedemptions, withRedemptionUsage } from '../../../../shared/redemption/index.js';
import { configureSource } from '../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../shared/sources/shopify/webhook.js';
import { fixture, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';
import { redemptionRows } from '../../../../ops/redemptions-command.js';
import { type ShopifyOrderInput, shopifyOrderWebhook, shopifyRefundCreate, type WebhookRequest } from '../../../../kit/webhooks/index.js';
import { ALICE, asJson, DAVE, type Harness, withRedemptionHarness } from './harness.js';

/**
 * A redemption follows its code's order (docs/redemption.md, "Use and return"): Shopify's deliveries
 * read by the real intake normaliser, processed by the real points processor and the usage step, against
 * the emulator, dynalite and the Admin API stand-in. Refunds in Shopify's published shape
 * (test/fixtures/shopify/SOURCES.md).
 */

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

const shopify = configureSource(shopifySource, 'shopify', ShopifySettings.parse({}));
const metrics: string[] = [];
const DAY = 86_400_000;

/** The resource inside an SDK fixture's `{"order": …}` / `{"refunds": [ … ]}` wrapper, byte for byte. */
function published(file: string): string {
  const text = fixture(`shopify/${file}`);
  const start = text.indexOf('{', text.indexOf(':'));
  const end = text.lastIndexOf('}', text.lastIndexOf('}') - 1) + 1;
  return text.slice(start, end);
}

function read(body: string, topic: string): QueuedEvent {
  const outcome = shopify.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 'secret', topic) });
  if (outcome.status !== 'ok') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}
const readRequest = (w: WebhookRequest) => read(w.body, w.headers['x-shopify-topic'] ?? w.headers['X-Shopify-Topic'] ?? '');

async function deliver(event: QueuedEvent, settings: Parameters<Harness['deps']>[0] = {}) {
  const orders = createLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  const points = createProcessor({ ledger: orders, openapi: h.openapi, clock: h.clock, settings: ProcessingSettings.parse({}) });
  const processor = withRedemptionUsage(points, {
    redemption: () => h.deps(settings),
    ledger: orders,
    metrics: { addMetric: (name) => metrics.push(name) },
  });
  return processor.process(event);
}

/** As `deliver`, with the insufficient-points policy the worker would have (INSUFFICIENT_POINTS_POLICY). */
async function deliverUnder(policy: 'clamp' | 'park', event: QueuedEvent) {
  const orders = createLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  const points = createProcessor({ ledger: orders, openapi: h.openapi, clock: h.clock, settings: ProcessingSettings.parse({}) });
  const processor = withRedemptionUsage(points, {
    redemption: () => ({ ...h.deps(), insufficientPointsPolicy: policy }),
    ledger: orders,
    metrics: { addMetric: (name) => metrics.push(name) },
  });
  return processor.process(event);
}

let n = 0;
const unique = () => `${process.pid % 100_000}${++n}${Date.now() % 100_000}`;

async function redeemed(customerId: string, points: number): Promise<string> {
  const answer = asJson(
    await handleRedeem(
      {
        method: 'POST',
        rawQuery: h.signed(customerId),
        accept: undefined,
        body: h.form(customerId, `points=${points}&request=usage-${unique()}-abcdefgh`),
      },
      h.deps(),
    ),
  );
  expect(answer.body).toMatchObject({ status: 'redeemed' });
  return String(answer.body.code);
}

const order = (orderId: string, customerId: string, code: string, extra: Partial<ShopifyOrderInput> = {}): ShopifyOrderInput => ({
  orderId,
  name: `#${orderId}`,
  customerId,
  subtotal: '0',
  tax: '0',
  currency: 'JPY',
  taxesIncluded: true,
  discountCodes: [{ code, amount: '300' }],
  ...extra,
});
const paid = (o: ShopifyOrderInput) => readRequest(shopifyOrderWebhook('orders/paid', 'paid', o, 'secret', `wh-${unique()}`, h.clock()));
const refund = (orderId: string, lines: { lineItemId: string; quantity: number }[], subtotal = '0') =>
  readRequest(
    shopifyRefundCreate({ refundId: unique(), orderId, subtotal, tax: '0', currency: 'JPY', lines }, 'secret', `wh-${unique()}`, h.clock()),
  );
const record = async (code: string) => h.ledger.byCode(code);

describe('refunded in full means every line refunded', () => {
  it("gives nothing back when a fully discounted order's shipping alone is refunded", async () => {
    // The order Shopify's refund names (450789469), its goods paid entirely by a 300-point code.
    const code = await redeemed('1001', 300);
    const lines = [
      { id: '466157049', quantity: 1 },
      { id: '518995019', quantity: 1 },
      { id: '703073504', quantity: 1 },
    ];
    await deliver(paid(order('450789469', '1001', code, { lines })));
    // Shopify's published shipping-only refund: no refund_line_items, a shipping_refund adjustment.
    await deliver(read(published('ruby-api-2024-07-refund-test3.json'), 'refunds/create'));
    expect(await record(code)).toMatchObject({ state: 'used', orderId: '450789469' });
    expect(await h.balance(ALICE)).toBe(700);
  });

  it('gives nothing back while one line of the order is still not refunded', async () => {
    // Shopify's published order (three lines, code TENOFF) and its refund of two of them.
    const code = await redeemedAs('TENOFF');
    await deliver(read(published('ruby-api-2024-07-order-test8.json'), 'orders/paid'));
    await deliver(read(published('ruby-api-2024-07-refund-test1.json'), 'refunds/create'));
    expect(await record(code)).toMatchObject({ state: 'used', orderId: '450789469' });
  });

  it("gives the points back once, when the last line's quantity is refunded", async () => {
    const code = await redeemed('1001', 300);
    const id = unique();
    const lines = [
      { id: `${id}1`, quantity: 2 },
      { id: `${id}2`, quantity: 1 },
    ];
    await deliver(paid(order(id, '1001', code, { lines })));
    await deliver(refund(id, [{ lineItemId: `${id}1`, quantity: 1 }]));
    await deliver(refund(id, [{ lineItemId: `${id}2`, quantity: 1 }]));
    expect((await record(code))?.state).toBe('used');
    const last = refund(id, [{ lineItemId: `${id}1`, quantity: 1 }]);
    await deliver(last);
    await deliver(last);
    expect(await record(code)).toMatchObject({ state: 'returned', returnReason: 'refunded', returnedPoints: 300 });
    expect(await h.balance(ALICE)).toBe(1000);
  });
});

describe("a redemption follows its code's order", () => {
  it('keeps a code reserved by an order awaiting payment past its end, and marks it used when the order is paid', async () => {
    const code = await redeemed('1001', 300);
    const id = unique();
    await deliver(
      readRequest(shopifyOrderWebhook('orders/create', 'pending', order(id, '1001', code), 'secret', `wh-${unique()}`, h.clock())),
    );
    expect(await record(code)).toMatchObject({ state: 'reserved', orderId: id });
    h.clock.advance(31 * DAY);
    const swept = await sweepRedemptions(h.deps());
    expect(swept.returned).toBe(0);
    await deliver(paid(order(id, '1001', code)));
    expect(await record(code)).toMatchObject({ state: 'used', orderId: id });
    expect(await h.balance(ALICE)).toBe(700);
  });

  it('gives the points back once when the order is cancelled before it was paid', async () => {
    const code = await redeemed('1001', 300);
    const id = unique();
    await deliver(
      readRequest(shopifyOrderWebhook('orders/create', 'pending', order(id, '1001', code), 'secret', `wh-${unique()}`, h.clock())),
    );
    const cancelled = readRequest(
      shopifyOrderWebhook('orders/cancelled', 'pending', order(id, '1001', code), 'secret', `wh-${unique()}`, h.clock()),
    );
    await deliver(cancelled);
    await deliver(cancelled);
    expect(await record(code)).toMatchObject({ state: 'returned', returnReason: 'cancelled', returnedPoints: 300 });
    expect(await h.balance(ALICE)).toBe(1000);
  });

  it('gives the points back once when the paid order is cancelled', async () => {
    const code = await redeemed('1001', 300);
    const id = unique();
    await deliver(paid(order(id, '1001', code)));
    await deliver(
      readRequest(shopifyOrderWebhook('orders/cancelled', 'refunded', order(id, '1001', code), 'secret', `wh-${unique()}`, h.clock())),
    );
    expect(await record(code)).toMatchObject({ state: 'returned', returnReason: 'cancelled', returnedPoints: 300 });
    expect(await h.balance(ALICE)).toBe(1000);
  });
});

describe('a cancellation under onRefund never', () => {
  it('still gives the points back: a cancelled order used nothing', async () => {
    const code = await redeemed('1001', 300);
    const id = unique();
    await deliver(paid(order(id, '1001', code)), { onRefund: 'never' });
    await deliver(refund(id, [{ lineItemId: id, quantity: 1 }]), { onRefund: 'never' });
    expect((await record(code))?.state).toBe('used');
    await deliver(
      readRequest(shopifyOrderWebhook('orders/cancelled', 'refunded', order(id, '1001', code), 'secret', `wh-${unique()}`, h.clock())),
      {
        onRefund: 'never',
      },
    );
    expect(await record(code)).toMatchObject({ state: 'returned', returnReason: 'cancelled' });
    expect(await h.balance(ALICE)).toBe(1000);
  });
});

describe('an order counts only for the code’s own customer, once', () => {
  it("records another customer's order naming the code, once, and gives nothing for it", async () => {
    metrics.length = 0;
    const code = await redeemed('1001', 300);
    const id = unique();
    const bobs = paid(order(id, '1002', code));
    await deliver(bobs);
    await deliver(bobs);
    const noted = await record(code);
    expect(noted).toMatchObject({ state: 'redeemed', misuses: [`other_customer:${id}`] });
    // The operator's list shows it (npm run redemptions -- list).
    expect(redemptionRows(noted ? [noted] : []).join('\n')).toContain(`other_customer:${id}`);
    await deliver(refund(id, [{ lineItemId: id, quantity: 1 }]));
    expect(await h.balance(ALICE)).toBe(700);
    expect(metrics.filter((m) => m === METRIC.redemptionMisuses)).toHaveLength(1);
  });

  it('records a second order naming a used code and gives nothing back when it is refunded', async () => {
    const code = await redeemed('1001', 300);
    const first = unique();
    const second = unique();
    await deliver(paid(order(first, '1001', code)));
    await deliver(paid(order(second, '1001', code)));
    await deliver(refund(second, [{ lineItemId: second, quantity: 1 }]));
    expect(await record(code)).toMatchObject({ state: 'used', orderId: first, misuses: [`second_order:${second}`] });
    expect(await h.balance(ALICE)).toBe(700);
  });
});

describe('a code whose points were given back, then used', () => {
  it('takes the points again, once, under their own marker, and counts it', async () => {
    metrics.length = 0;
    const code = await redeemed('1001', 300);
    h.clock.advance(30 * DAY + 2 * 3600_000);
    expect((await sweepRedemptions(h.deps())).returned).toBe(1);
    expect(await h.balance(ALICE)).toBe(1000);
    const late = paid(order(unique(), '1001', code));
    await deliver(late);
    await deliver(late);
    const r = await record(code);
    expect(r).toMatchObject({ state: 'used', clawedBackPoints: 300, clawbackShortfall: 0 });
    expect(await h.balance(ALICE)).toBe(700);
    const marker = redemptionClawbackMarker('shopify', '1001', r?.requestId ?? '');
    expect(await h.entries(ALICE, marker)).toEqual([{ point: -300, remarks: marker }]);
    expect(metrics.filter((m) => m === METRIC.redemptionClawbacks)).toHaveLength(1);
  });

  it('takes what the member holds and records the shortfall when they hold fewer (clamp)', async () => {
    const code = await redeemed('1001', 300);
    h.clock.advance(30 * DAY + 2 * 3600_000);
    await sweepRedemptions(h.deps());
    await h.openapi.grantPoints(ALICE, { point: -900, title: 'spent elsewhere' });
    await deliver(paid(order(unique(), '1001', code)));
    expect(await record(code)).toMatchObject({ state: 'used', clawedBackPoints: 100, clawbackShortfall: 200 });
    expect(await h.balance(ALICE)).toBe(0);
  });
});

describe('a claw-back parked under park (issue 51 remainder)', () => {
  it('is taken on a later sweep once the member holds enough again, exactly once, and leaves the parked list', async () => {
    const code = await redeemed('1001', 300);
    h.clock.advance(30 * DAY + 2 * 3600_000);
    await sweepRedemptions(h.deps());
    await h.openapi.grantPoints(ALICE, { point: -900, title: 'spent elsewhere' });
    await deliverUnder('park', paid(order(unique(), '1001', code)));
    const parked = await record(code);
    await sweepRedemptions(h.deps());
    const stillShort = await record(code);
    await h.openapi.grantPoints(ALICE, { point: 500, title: 'earned again' });
    await sweepRedemptions(h.deps());
    await sweepRedemptions(h.deps());
    const marker = redemptionClawbackMarker('shopify', '1001', parked?.requestId ?? '');
    expect([
      [parked?.clawedBackPoints, parked?.clawbackShortfall],
      [stillShort?.clawedBackPoints, stillShort?.clawbackShortfall],
      await record(code),
      await h.entries(ALICE, marker),
      await h.balance(ALICE),
      await h.ledger.listParked('shopify'),
    ]).toMatchObject([
      [0, 300],
      [0, 300],
      { state: 'used', clawedBackPoints: 300, clawbackShortfall: 0 },
      [{ point: -300, remarks: marker }],
      300,
      [],
    ]);
  });
});

/** A redemption of Shopify's published order's customer (207119551, DAVE) whose code is the order's `TENOFF`. */
async function redeemedAs(code: string): Promise<string> {
  const owner = 'seed';
  const started = await h.ledger.start(
    {
      source: 'shopify',
      customerId: '207119551',
      memberId: DAVE,
      requestId: `published-${unique()}`,
      points: 10,
      value: '10',
      currency: 'USD',
      code,
      expiresAt: new Date(h.clock() + 30 * DAY).toISOString(),
      deducted: true,
    },
    owner,
  );
  if (!started.created) throw new Error('redemption exists');
  await h.ledger.update(started.record.pk, owner, { state: 'redeemed' }, { release: true });
  return code;
}
