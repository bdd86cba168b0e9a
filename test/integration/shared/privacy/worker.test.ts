import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomerRecords } from '../../../../shared/customers/index.js';
import { GetCommand } from '../../../../shared/dynamodb/index.js';
import type { PrivacyEvent } from '../../../../shared/events/index.js';
import { linkMarkKey, refundKey } from '../../../../shared/ledger/index.js';
import { createPrivacyRequests, type PrivacyDeps, processPrivacyEvent, withPrivacyEvents } from '../../../../shared/privacy/index.js';
import { createQuarantineStore, createQuarantineTable, type QuarantineStore } from '../../../../shared/quarantine/index.js';
import { fixture } from '../../../../kit/fixture-webhooks.js';
import { purchase, refund, useHarness } from '../points/harness.js';

/** Privacy requests on what the real processor wrote (dynalite ledger and quarantine tables, the emulator). */
const h = useHarness();
const SHOP = 'example.myshopify.com';
let quarantine: QuarantineStore;
let requestNo = 0;

beforeAll(async () => {
  const tableName = `quarantine-privacy-${process.pid}`;
  await createQuarantineTable(h.dynamo.client, tableName);
  quarantine = createQuarantineStore({ client: h.dynamo.documentClient, tableName, clock: h.clock, ttlDays: 90 });
});

function deps(): PrivacyDeps {
  const { documentClient: client, tableName } = h.dynamo;
  return {
    client,
    tableName,
    ledger: h.ledger,
    records: createCustomerRecords({ client, tableName, clock: h.clock, leaseSeconds: 60, ttlDays: 400 }),
    quarantine,
    requests: createPrivacyRequests({ client, tableName, clock: h.clock }),
    ledgerTtlDays: 400,
    clock: h.clock,
  };
}

/** The Shopify topic each action is read from (shared/sources/shopify/webhook-privacy.ts). */
const TOPIC_OF = { redact_customer: 'customers/redact', report_customer: 'customers/data_request', redact_shop: 'shop/redact' } as const;

function request(
  action: PrivacyEvent['action'],
  customerId: string | null,
  orderIds: string[] = [],
  shop: Partial<Pick<PrivacyEvent, 'shopDomain' | 'soleShop'>> = {},
): PrivacyEvent {
  const id = `req-${process.pid}-${++requestNo}`;
  return {
    type: 'privacy',
    eventId: `shopify:privacy:${action}:${id}`,
    source: 'shopify',
    action,
    shopDomain: SHOP,
    ...shop,
    customer: customerId === null ? null : { externalKey: 'shopify', externalId: customerId },
    orderIds,
    delivery: { id, topic: TOPIC_OF[action] },
  };
}

const redact = (customerId: string, orderIds: string[] = []) =>
  processPrivacyEvent(deps(), request('redact_customer', customerId, orderIds));
const rawItem = async (pk: string) =>
  (await h.dynamo.documentClient.send(new GetCommand({ TableName: h.dynamo.tableName, Key: { pk } }))).Item;
const orderItem = (orderId: string) => rawItem(`order#shopify#${encodeURIComponent(orderId)}`);
const since = '2000-01-01T00:00:00.000Z';

/** A member of the emulator linked to `customerId`, and a credited order of theirs (delivered by `shop`; null: naming none). */
async function creditedOrder(customerId: string, shop: string | null = SHOP) {
  await h.api.registerMember({ rank: 'gold', external_ids: { shopify: customerId } });
  const made = purchase({ customer: { externalKey: 'shopify', externalId: customerId } });
  const p = { ...made, delivery: { ...made.delivery, ...(shop === null ? {} : { shopDomain: shop }) } };
  expect(await h.processor().process(p)).toMatchObject({ kind: 'credited' });
  return p;
}

/** Keeps `body` in the quarantine as an authentic delivery intake could not read. */
const keep = (body: string, topic = 'orders/paid', shop = SHOP) =>
  quarantine.keep({
    source: 'shopify',
    headers: { 'X-Shopify-Topic': topic, 'X-Shopify-Shop-Domain': shop },
    rawBody: Buffer.from(body),
    reason: { kind: 'invalid_payload', message: 'id: expected an integer id' },
  });

describe('customers/redact', () => {
  it('removes the shop customer id from a credited order and its refund, keeping member, amounts, points and outcome', async () => {
    const p = await creditedOrder('redact-1');
    await h.processor().process(refund(p, 'r1', 400));
    const before = await h.ledger.getOrder(p);
    expect(await redact('redact-1', [p.orderId])).toMatchObject({ kind: 'redacted', action: 'ack', figures: { orders: 1, refunds: 1 } });
    const after = await h.ledger.getOrder(p);
    expect(after?.externalId).toBeUndefined();
    expect(after).toMatchObject({
      outcome: 'credited',
      customerId: before?.customerId,
      eligibleAmount: before?.eligibleAmount,
      pointsCredited: before?.pointsCredited,
      debited: before?.debited,
      redactedAt: expect.any(String),
    });
    expect(JSON.stringify(await orderItem(p.orderId))).not.toContain('redact-1');
    expect(JSON.stringify(await rawItem(refundKey('shopify', p.orderId, 'r1')))).not.toContain('redact-1');
  });

  it('lets a later refund of a redacted order still take its share back from the member', async () => {
    const p = await creditedOrder('redact-2');
    await redact('redact-2', [p.orderId]);
    const outcome = await h.processor().process(refund(p, 'r1', 500));
    expect(outcome).toMatchObject({ kind: 'debited' });
    const order = await h.ledger.getOrder(p);
    expect(order?.debited).toBeGreaterThan(0);
    expect(order?.externalId).toBeUndefined();
  });

  it('takes an order waiting for the customer out of the byUnlinkedCustomer index, with its stored purchase event', async () => {
    const p = purchase({ customer: { externalKey: 'shopify', externalId: 'redact-waiting' } });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'customer_not_found' });
    expect(await redact('redact-waiting')).toMatchObject({ kind: 'redacted', figures: { orders: 1 } });
    const query = { source: 'shopify', externalKey: 'shopify', externalId: 'redact-waiting', since };
    expect(await h.ledger.listUnlinkedOrders(query)).toEqual([]);
    const item = await orderItem(p.orderId);
    expect(item).toMatchObject({ outcome: 'customer_not_found' });
    for (const attr of ['externalId', 'purchaseEvent', 'unlinkedCustomer', 'purchasedAt']) expect(item?.[attr], attr).toBeUndefined();
  });

  it('removes the purchase event a parked (upstream_rejected) order keeps for reprocessing: it names the customer', async () => {
    await h.api.registerMember({ external_ids: { shopify: 'redact-parked' } });
    const p = purchase({ customer: { externalKey: 'shopify', externalId: 'redact-parked' } });
    await h.emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'status', status: 403, body: '<html>denied</html>' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'upstream_rejected' });
    expect(await redact('redact-parked', [p.orderId])).toMatchObject({ kind: 'redacted', figures: { orders: 1 } });
    const item = await orderItem(p.orderId);
    expect([item?.outcome, item?.rejectedEvent, JSON.stringify(item).includes('redact-parked')]).toEqual([
      'upstream_rejected',
      undefined,
      false,
    ]);
  });

  it('leaves an order of another customer untouched even when the request names it', async () => {
    const other = await creditedOrder('redact-other');
    expect(await redact('redact-3', [other.orderId])).toMatchObject({ figures: { orders: 0 } });
    expect(await h.ledger.getOrder(other)).toMatchObject({ externalId: 'redact-other' });
  });

  it("deletes the customer's enrolment record", async () => {
    const records = createCustomerRecords({
      client: h.dynamo.documentClient,
      tableName: h.dynamo.tableName,
      clock: h.clock,
      leaseSeconds: 60,
      ttlDays: 400,
    });
    const ref = { source: 'shopify', customerId: 'redact-enrolled' };
    expect(await records.claim({ ...ref, externalKey: 'shopify', owner: 'w1' })).toMatchObject({ ok: true });
    await records.finish(ref, 'w1', { outcome: 'enrolled', memberId: 'm-1' });
    expect(await redact('redact-enrolled')).toMatchObject({ figures: { customers: 1 } });
    expect(await records.get(ref)).toBeUndefined();
  });

  it('deletes the mark a recent link of the customer left (it names the shop customer id)', async () => {
    const customer = { source: 'shopify', externalKey: 'shopify', externalId: 'redact-linked' };
    await h.ledger.markCustomerLinked(customer);
    expect(await h.ledger.customerLinked(customer)).toBe(true);
    await redact('redact-linked');
    expect(await h.ledger.customerLinked(customer)).toBe(false);
    expect(await rawItem(linkMarkKey('shopify', 'shopify', 'redact-linked'))).toBeUndefined();
  });

  it("removes the bodies of quarantined deliveries naming the customer, and leaves other customers' entries", async () => {
    // Shopify's own published order (ruby API tests), wrapped as that test wraps it: a body intake cannot read.
    const theirs = await keep(fixture('shopify/ruby-api-2024-07-order-test8.json'));
    // The same customer's order as the python API's fixture prints it (indented JSON).
    const pretty = await keep(fixture('shopify/python-api-order.json'));
    // A capture of another customer's order (test/fixtures/shopify/SOURCES.md).
    const others = await keep(fixture('shopify/capture-2022-12-gift-card-order.json'));
    expect(await redact('207119551')).toMatchObject({ figures: { quarantined: 2 } });
    expect(await quarantine.get(pretty.id)).toMatchObject({ state: 'redacted' });
    expect(await quarantine.get(theirs.id)).toMatchObject({
      state: 'redacted',
      redactedBy: 'customers/redact',
      bodyKept: false,
      bodyProblem: expect.stringContaining('privacy request'),
    });
    expect(await quarantine.get(others.id)).toMatchObject({ state: 'quarantined', body: expect.any(Uint8Array) });
  });

  it('finds a quarantined delivery of one of the named orders by the order it names', async () => {
    const kept = await keep('{"id":7770001,"note":"a body the schema refuses","total_price":{}}');
    expect(await redact('redact-4', ['7770001'])).toMatchObject({ figures: { quarantined: 1 } });
    expect(await quarantine.get(kept.id)).toMatchObject({ state: 'redacted' });
  });

  it('waits for an order being processed: lease_held, then done once it is released', async () => {
    await h.api.registerMember({ external_ids: { shopify: 'redact-busy' } });
    const p = purchase({ customer: { externalKey: 'shopify', externalId: 'redact-busy' } });
    const [credited, meanwhile] = await h.whileHeldAt('purchase:granted', p, () => redact('redact-busy', [p.orderId]));
    expect(meanwhile).toMatchObject({ kind: 'lease_held', action: 'retry' });
    expect(credited).toMatchObject({ kind: 'credited' });
    expect(await redact('redact-busy', [p.orderId])).toMatchObject({ kind: 'redacted', figures: { orders: 1 } });
    expect((await h.ledger.getOrder(p))?.externalId).toBeUndefined();
  });

  it("records what it did under the request's id, naming no customer", async () => {
    const p = await creditedOrder('redact-record-55');
    const event = request('redact_customer', 'redact-record-55', [p.orderId]);
    await processPrivacyEvent(deps(), event);
    const record = await deps().requests.get(event.eventId);
    expect(record).toMatchObject({ outcome: 'redacted', topic: 'customers/redact', orderIds: [p.orderId], figures: { orders: 1 } });
    expect(JSON.stringify(record)).not.toContain('redact-record-55');
  });
});

describe('customers/data_request', () => {
  it('records a report of the orders, refunds, enrolment and quarantined deliveries held, changing nothing', async () => {
    const credited = await creditedOrder('asks-1');
    await h.processor().process(refund(credited, 'r1', 200));
    const kept = await keep(`{"id":1,"customer_id":"asks-1","broken":`);
    const event = request('report_customer', 'asks-1', [credited.orderId]);
    const before = await h.ledger.getOrder(credited);
    expect(await processPrivacyEvent(deps(), event)).toMatchObject({
      kind: 'reported',
      figures: { orders: 1, refunds: 1, quarantined: 1 },
    });
    const record = await deps().requests.get(event.eventId);
    expect(JSON.parse(record?.report ?? '{}')).toEqual({
      source: 'shopify',
      customerId: 'asks-1',
      orders: [
        {
          orderId: credited.orderId,
          outcome: 'credited',
          memberId: before?.customerId,
          points: before?.pointsCredited,
          refunds: [{ refundId: 'r1', outcome: 'debited', points: expect.any(Number) }],
          purchaseEventHeld: false,
        },
      ],
      enrolment: null,
      quarantined: [kept.id],
    });
    expect(await h.ledger.getOrder(credited)).toEqual(before);
    expect(await quarantine.get(kept.id)).toMatchObject({ state: 'quarantined' });
  });
});

describe('shop/redact', () => {
  it("removes the shop customer ids of the shop's orders and quarantined deliveries, leaving another shop's", async () => {
    const a = await creditedOrder('shop-a');
    await h.api.registerMember({ external_ids: { shopify: 'shop-c' } });
    const another = purchase({
      customer: { externalKey: 'shopify', externalId: 'shop-c' },
      delivery: { id: 'd-another', topic: 'orders/paid', shopDomain: 'another.myshopify.com' },
    });
    expect(await h.processor().process(another)).toMatchObject({ kind: 'credited' });
    const waiting = purchase({
      customer: { externalKey: 'shopify', externalId: 'shop-b' },
      delivery: { id: 'd-waiting', topic: 'orders/paid', shopDomain: SHOP },
    });
    await h.processor().process(waiting);
    const ours = await keep('{"id":1,"broken":', 'orders/paid', SHOP);
    const theirs = await keep('{"id":2,"broken":', 'orders/paid', 'another.myshopify.com');
    const outcome = await processPrivacyEvent(deps(), request('redact_shop', null));
    expect(outcome).toMatchObject({ kind: 'redacted' });
    expect((await h.ledger.getOrder(a))?.externalId).toBeUndefined();
    expect((await h.ledger.getOrder(a))?.customerId).toBeDefined();
    expect((await h.ledger.getOrder(waiting))?.purchaseEvent).toBeUndefined();
    expect(await quarantine.get(ours.id)).toMatchObject({ state: 'redacted', redactedBy: 'shop/redact' });
    expect(await quarantine.get(theirs.id)).toMatchObject({ state: 'quarantined' });
    expect(await h.ledger.getOrder(another)).toMatchObject({ externalId: 'shop-c', shopDomain: 'another.myshopify.com' });
  });

  it("deletes the source's link marks when the source serves that shop alone", async () => {
    const customer = { source: 'shopify', externalKey: 'shopify', externalId: 'shop-linked' };
    await h.ledger.markCustomerLinked(customer);
    expect(await processPrivacyEvent(deps(), request('redact_shop', null, [], { soleShop: true }))).toMatchObject({ kind: 'redacted' });
    expect(await h.ledger.customerLinked(customer)).toBe(false);
  });

  it("leaves the source's link marks, which name no shop, when a shop/redact names another shop", async () => {
    const customer = { source: 'shopify', externalKey: 'shopify', externalId: 'shop-linked-kept' };
    await h.ledger.markCustomerLinked(customer);
    await processPrivacyEvent(deps(), request('redact_shop', null, [], { shopDomain: 'other-dev-store.myshopify.com' }));
    expect(await h.ledger.customerLinked(customer)).toBe(true);
  });

  it('stops in time when the invocation runs short, and the retry goes on from where it stopped', async () => {
    const orders = [await creditedOrder('shop-long-1'), await creditedOrder('shop-long-2'), await creditedOrder('shop-long-3')];
    let checks = 0;
    // Time for one order's redaction, then the invocation is nearly over.
    const short = { ...deps(), remainingMs: () => (++checks <= 1 ? 60_000 : 1_000) };
    const first = await processPrivacyEvent(short, request('redact_shop', null));
    expect(first).toMatchObject({ kind: 'redaction_continues', action: 'retry' });
    const left = async () => (await Promise.all(orders.map((o) => h.ledger.getOrder(o)))).filter((o) => o?.externalId !== undefined).length;
    expect(await left()).toBeLessThan(3);
    expect(await processPrivacyEvent(deps(), request('redact_shop', null))).toMatchObject({ kind: 'redacted' });
    expect(await left()).toBe(0);
  });
});

describe('shop/redact of another shop, and records naming no shop', () => {
  const records = () =>
    createCustomerRecords({
      client: h.dynamo.documentClient,
      tableName: h.dynamo.tableName,
      clock: h.clock,
      leaseSeconds: 60,
      ttlDays: 400,
    });
  async function enrolled(customerId: string, shopDomain?: string) {
    const ref = { source: 'shopify', customerId };
    await records().claim({ ...ref, externalKey: 'shopify', owner: 'w1', shopDomain });
    await records().finish(ref, 'w1', { outcome: 'enrolled', memberId: 'm-1' });
    return ref;
  }

  it("leaves this shop's orders and customer records, named or not, when a signed shop/redact names another shop", async () => {
    const named = await creditedOrder('other-shop-1');
    const unnamed = await creditedOrder('other-shop-2', null);
    const customer = await enrolled('other-shop-3', SHOP);
    const older = await enrolled('other-shop-4');
    const outcome = await processPrivacyEvent(deps(), request('redact_shop', null, [], { shopDomain: 'other-dev-store.myshopify.com' }));
    expect(outcome).toMatchObject({ kind: 'redacted', figures: { orders: 0, customers: 0 } });
    expect(await h.ledger.getOrder(named)).toMatchObject({ externalId: 'other-shop-1' });
    expect(await h.ledger.getOrder(unnamed)).toMatchObject({ externalId: 'other-shop-2' });
    expect(await records().get(customer)).toMatchObject({ outcome: 'enrolled', shopDomain: SHOP });
    expect(await records().get(older)).toMatchObject({ outcome: 'enrolled' });
  });

  it("removes its own shop's customer records, and leaves records naming no shop when the source does not name the shop alone", async () => {
    const ours = await enrolled('own-shop-1', SHOP);
    const unnamed = await enrolled('own-shop-2');
    const unnamedOrder = await creditedOrder('own-shop-3', null);
    await processPrivacyEvent(deps(), request('redact_shop', null));
    expect(await records().get(ours)).toBeUndefined();
    expect(await records().get(unnamed)).toBeDefined();
    expect(await h.ledger.getOrder(unnamedOrder)).toMatchObject({ externalId: 'own-shop-3' });
  });

  it("takes records naming no shop as the shop's when the source's shopDomains lists that shop alone", async () => {
    const unnamed = await enrolled('sole-shop-1');
    const unnamedOrder = await creditedOrder('sole-shop-2', null);
    await processPrivacyEvent(deps(), request('redact_shop', null, [], { soleShop: true }));
    expect(await records().get(unnamed)).toBeUndefined();
    expect((await h.ledger.getOrder(unnamedOrder))?.externalId).toBeUndefined();
  });
});

describe('customers/redact leaves a tombstone', () => {
  it('keeps a replayed customers/create from enrolling the erased customer again', async () => {
    const records = createCustomerRecords({
      client: h.dynamo.documentClient,
      tableName: h.dynamo.tableName,
      clock: h.clock,
      leaseSeconds: 60,
      ttlDays: 400,
    });
    const ref = { source: 'shopify', customerId: '5550001' };
    expect(await records.isRedacted(ref)).toBe(false);
    await redact('5550001');
    expect(await records.isRedacted(ref)).toBe(true);
    expect(await records.isRedacted({ source: 'shopify', customerId: '5550002' })).toBe(false);
  });
});

describe('the worker with privacy requests', () => {
  it('retries a request as a configuration error where the quarantine is not configured, never dropping it', async () => {
    expect(await withPrivacyEvents(h.processor(), undefined).process(request('redact_customer', 'x-1'))).toEqual({
      kind: 'configuration_error',
      action: 'retry',
      errorKind: 'not_configured',
      reason: 'privacy events need the quarantine table',
    });
  });

  it('names the field of a privacy event that is off its schema', async () => {
    const outcome = await withPrivacyEvents(h.processor(), deps()).process({ ...request('redact_shop', null), orderIds: ['not-an-id'] });
    expect(outcome).toMatchObject({ kind: 'invalid_event', action: 'retry', reason: expect.stringContaining('orderIds.0') });
  });

  it('refuses a customer request that names no customer, touching nothing', async () => {
    expect(await processPrivacyEvent(deps(), request('redact_customer', null))).toMatchObject({
      kind: 'invalid_event',
      reason: 'customer: a customers/redact request names its customer',
    });
  });

  it('hands points events to the points processor', async () => {
    await h.api.registerMember({ external_ids: { shopify: 'routed-1' } });
    const p = purchase({ customer: { externalKey: 'shopify', externalId: 'routed-1' } });
    expect(await withPrivacyEvents(h.processor(), deps()).process(p)).toMatchObject({ kind: 'credited' });
  });
});
