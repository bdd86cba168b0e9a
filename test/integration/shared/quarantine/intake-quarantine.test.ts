import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { type IntakeDeps, type IntakeRequest, receiveWebhook } from '../../../../shared/intake/index.js';
import { createQuarantineStore, createQuarantineTable, type QuarantineStore } from '../../../../shared/quarantine/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../../kit/dynalite.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, posHeaders, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';

/** Intake with the real quarantine store on dynalite: what is kept, and what is still refused. */
const SHOPIFY_SECRET = 'shpss_quarantine';
const POS_SECRET = 'pos_quarantine';
const NOW_S = 1_795_000_000;

let dynamo: LocalDynamo;
let table = 0;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => dynamo?.stop());

async function setup(options: { tableExists?: boolean } = {}) {
  const tableName = `quarantine-${++table}`;
  if (options.tableExists !== false) await createQuarantineTable(dynamo.client, tableName);
  const clock = manualClock(NOW_S * 1000);
  // The real client, with every command it sends kept for the test to read.
  const sent: { input: unknown }[] = [];
  const client = {
    send: ((command: { input: unknown }) => {
      sent.push(command);
      return dynamo.documentClient.send(command as never);
    }) as typeof dynamo.documentClient.send,
  };
  const store: QuarantineStore = createQuarantineStore({ client, tableName, clock, ttlDays: 90 });
  const queue = new RecordingQueue();
  const counted: string[] = [];
  const bodiesNotKept: string[] = [];
  const errors: string[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (message: string) => errors.push(message) };
  const deps: IntakeDeps = {
    sources: loadSources(undefined),
    secrets: staticWebhookSecrets({ shopify: [SHOPIFY_SECRET], pos: [POS_SECRET] }),
    queue,
    now: clock,
    maxBodyBytes: 256 * 1024,
    quarantine: store,
    countQuarantined: (source, entry) => {
      counted.push(source);
      if (entry?.bodyKept === false) bodiesNotKept.push(source);
    },
    logger,
  };
  const send = (request: Partial<IntakeRequest>) =>
    receiveWebhook({ source: 'shopify', method: 'POST', headers: {}, body: '', isBase64Encoded: false, ...request }, deps);
  return { store, queue, counted, bodiesNotKept, errors, sent, send, clock };
}

const REFUND = fixture('shopify/refunds-create-partial.json');
/** An authentic refund we cannot map: its refund id is not a number. */
const UNMAPPABLE = REFUND.replace(/"id": \d+/, '"id": "R-1"');
const shopify = (body: string, topic = 'refunds/create', secret = SHOPIFY_SECRET) => ({
  body,
  headers: shopifyHeaders(body, secret, topic),
});

describe('intake quarantine', () => {
  it('answers an authentic Shopify delivery it cannot map 200 and queues nothing', async () => {
    const { send, queue } = await setup();
    expect(UNMAPPABLE).not.toBe(REFUND);
    const response = await send(shopify(UNMAPPABLE));
    expect(response).toMatchObject({ statusCode: 200, answer: { status: 'quarantined', id: expect.stringMatching(/^q-[0-9a-f]{24}$/) } });
    expect(queue.messages).toHaveLength(0);
  });

  it('keeps the raw bytes, the headers, the source and the reason', async () => {
    const { send, store } = await setup();
    const request = shopify(UNMAPPABLE);
    const response = await send(request);
    const id = (response.answer as { id: string }).id;
    const entry = await store.get(id);
    expect(Buffer.from(entry!.body!).toString('utf8')).toBe(UNMAPPABLE);
    expect(entry).toMatchObject({
      source: 'shopify',
      state: 'quarantined',
      headers: request.headers,
      reason: { kind: 'invalid_payload', path: 'id' },
      deliveries: 1,
      firstReceivedAt: new Date(NOW_S * 1000).toISOString(),
    });
  });

  it('keeps a 1 MiB delivery byte for byte (compressed in the table, whose items hold 400 KB)', async () => {
    const { send, store } = await setup();
    // An unmappable refund with many line items: far over a DynamoDB item as it came.
    const line = '{"id": 1, "quantity": 1, "line_item_id": 2, "subtotal": 1.00, "total_tax": 0.00}';
    const lines = Array.from({ length: Math.ceil((1024 * 1024) / line.length) }, () => line).join(', ');
    const large = UNMAPPABLE.replace('"refund_line_items": [', `"refund_line_items": [${lines}, `);
    expect(Buffer.byteLength(large)).toBeGreaterThan(1024 * 1024);
    const response = await send(shopify(large));
    expect(response).toMatchObject({ statusCode: 200, answer: { status: 'quarantined' } });
    const entry = await store.get((response.answer as { id: string }).id);
    expect(Buffer.from(entry!.body!).toString('utf8')).toBe(large);
    expect(entry!.bodyBytes).toBe(Buffer.byteLength(large));
  });

  it('keeps a body that is not even JSON, byte for byte', async () => {
    const { send, store } = await setup();
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    const response = await send({
      body: bytes.toString('base64'),
      isBase64Encoded: true,
      headers: shopifyHeaders(bytes, SHOPIFY_SECRET, 'orders/paid'),
    });
    expect(response).toMatchObject({ statusCode: 200, answer: { status: 'quarantined' } });
    const entry = await store.get((response.answer as { id: string }).id);
    expect(Buffer.from(entry!.body!).equals(bytes)).toBe(true);
    expect(entry!.reason.kind).toBe('malformed_json');
  });

  it('counts each quarantined delivery for the alarm', async () => {
    const { send, counted } = await setup();
    await send(shopify(UNMAPPABLE));
    expect(counted).toEqual(['shopify']);
  });

  it("files Shopify's retries of one delivery under one entry, counting the deliveries", async () => {
    const { send, store, clock } = await setup();
    const first = await send(shopify(UNMAPPABLE));
    clock.advance(60_000);
    const second = await send(shopify(UNMAPPABLE));
    const id = (first.answer as { id: string }).id;
    expect((second.answer as { id: string }).id).toBe(id);
    expect(await store.list()).toHaveLength(1);
    expect(await store.get(id)).toMatchObject({
      deliveries: 2,
      firstReceivedAt: new Date(NOW_S * 1000).toISOString(),
      lastReceivedAt: new Date(NOW_S * 1000 + 60_000).toISOString(),
    });
  });

  it('expires an entry the configured days after its last delivery', async () => {
    const { send, store } = await setup();
    const response = await send(shopify(UNMAPPABLE));
    expect((await store.get((response.answer as { id: string }).id))!.ttl).toBe(NOW_S + 90 * 86_400);
  });

  it('still refuses a forged Shopify delivery with 401 and keeps nothing', async () => {
    const { send, store } = await setup();
    const response = await send(shopify(UNMAPPABLE, 'refunds/create', 'not-the-secret'));
    expect(response.statusCode).toBe(401);
    expect(await store.list()).toEqual([]);
  });

  it('still refuses an invalid POS message with its 4xx (the till must see the error) and keeps nothing', async () => {
    const { send, store } = await setup();
    const body = fixture('pos/sale.json').replace(/"currency": "[A-Z]+"/, '"currency": "yen"');
    const response = await send({ source: 'pos', body, headers: posHeaders(body, POS_SECRET, NOW_S) });
    expect(response.statusCode).toBe(422);
    expect(await store.list()).toEqual([]);
  });

  it('answers 503 when the delivery cannot be kept, so Shopify retries it', async () => {
    const { send, counted } = await setup({ tableExists: false });
    const response = await send(shopify(UNMAPPABLE));
    expect(response).toMatchObject({ statusCode: 503, answer: { error: { kind: 'unavailable' } } });
    expect(counted).toEqual([]);
  });

  it('records a replay and what intake answered it', async () => {
    const { send, store } = await setup();
    const id = ((await send(shopify(UNMAPPABLE))).answer as { id: string }).id;
    await store.markReplayed(id, 'accepted shopify:refund:1:2');
    expect(await store.get(id)).toMatchObject({ state: 'replayed', replayResult: 'accepted shopify:refund:1:2' });
  });

  const idOf = (response: { answer: unknown }) => (response.answer as { id: string }).id;

  it('keeps the topic and headers first seen when the same body comes again under another topic', async () => {
    const { send, store } = await setup();
    const first = shopify(UNMAPPABLE, 'refunds/create');
    const id = idOf(await send(first));
    const again = await send(shopify(UNMAPPABLE, 'orders/cancelled'));
    expect(again).toMatchObject({ statusCode: 200, answer: { status: 'quarantined', id } });
    expect(await store.get(id)).toMatchObject({ topic: 'refunds/create', headers: first.headers, deliveries: 2 });
  });

  it('never sets a replayed entry back to quarantined, nor erases its replay result', async () => {
    const { send, store } = await setup();
    const id = idOf(await send(shopify(UNMAPPABLE)));
    await store.markReplayed(id, 'accepted shopify:refund:1:2');
    await send(shopify(UNMAPPABLE, 'orders/cancelled'));
    expect(await store.get(id)).toMatchObject({ state: 'replayed', replayResult: 'accepted shopify:refund:1:2' });
  });

  it('does not extend an entry’s expiry when the body comes again', async () => {
    const { send, store, clock } = await setup();
    const id = idOf(await send(shopify(UNMAPPABLE)));
    clock.advance(30 * 86_400_000);
    await send(shopify(UNMAPPABLE));
    expect((await store.get(id))!.ttl).toBe(NOW_S + 90 * 86_400);
  });

  it('alarms and logs an error for the first delivery of a body only', async () => {
    const { send, counted, errors } = await setup();
    for (let n = 0; n < 3; n++) await send(shopify(UNMAPPABLE));
    expect(counted).toEqual(['shopify']);
    expect(errors).toEqual(['webhook quarantined']);
  });

  it('writes only the delivery counter when the entry exists, never the body again', async () => {
    const { send, sent } = await setup();
    await send(shopify(UNMAPPABLE));
    const before = sent.length;
    await send(shopify(UNMAPPABLE, 'orders/cancelled'));
    const again = sent.slice(before).map((c) => JSON.stringify(c.input));
    expect(again).toHaveLength(1);
    expect(again[0]).not.toContain('"body"');
    expect(again[0]).not.toContain('"headers"');
  });

  it('stops counting the deliveries of one body at 100', async () => {
    const { send, store } = await setup();
    let id = '';
    for (let n = 0; n < 105; n++) id = idOf(await send(shopify(UNMAPPABLE)));
    expect((await store.get(id))!.deliveries).toBe(100);
  });

  it('sends nothing more to the table for a body whose count is full', async () => {
    const { send, sent } = await setup();
    for (let n = 0; n < 102; n++) await send(shopify(UNMAPPABLE));
    const before = sent.length;
    for (let n = 0; n < 20; n++)
      expect(await send(shopify(UNMAPPABLE))).toMatchObject({ statusCode: 200, answer: { status: 'quarantined' } });
    expect(sent.length).toBe(before);
  });

  it('keeps only the sender’s own headers: credentials and caller addresses are never stored', async () => {
    const { send, store } = await setup();
    const signed = shopify(UNMAPPABLE);
    const hostile = {
      'x-shopify-access-token': 'shpat_captured',
      'x-amz-security-token': 'IQoJb3JpZ2luX2Vj',
      'x-auth-token': 'token',
      'x-csrf-token': 'csrf',
      'x-forwarded-for': '203.0.113.9',
      'user-agent': 'Shopify-Captain-Hook',
      'content-type': 'application/json',
    };
    const id = idOf(await send({ ...signed, headers: { ...signed.headers, ...hostile } }));
    const kept = (await store.get(id))!.headers;
    expect(Object.keys(kept).sort()).toEqual([...new Set([...Object.keys(signed.headers), 'content-type', 'user-agent'])].sort());
  });

  it('answers an authentic 4 MiB body that does not compress 200 and keeps its hash, size and headers', async () => {
    const { send, store } = await setup();
    const bytes = randomBytes(4 * 1024 * 1024);
    const headers = shopifyHeaders(bytes, SHOPIFY_SECRET, 'orders/paid');
    const response = await send({ body: bytes.toString('base64'), isBase64Encoded: true, headers });
    expect(response).toMatchObject({ statusCode: 200, answer: { status: 'quarantined' } });
    const entry = await store.get(idOf(response));
    expect(entry).toMatchObject({ bodyKept: false, bodyBytes: bytes.length, headers, reason: { kind: 'malformed_json' } });
    expect(entry!.bodySha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(entry!.body).toBeUndefined();
    expect(entry!.bodyProblem).toMatch(/^body not kept: 4194304 bytes/);
  });

  it('counts a delivery whose body could not be kept for its own alarm', async () => {
    const { send, bodiesNotKept } = await setup();
    const bytes = randomBytes(4 * 1024 * 1024);
    await send({ body: bytes.toString('base64'), isBase64Encoded: true, headers: shopifyHeaders(bytes, SHOPIFY_SECRET, 'orders/paid') });
    await send(shopify(UNMAPPABLE));
    expect(bodiesNotKept).toEqual(['shopify']);
  });

  it('names the order of a body too large to keep, so it can be reconciled from Shopify', async () => {
    const { send, store } = await setup();
    const noise = randomBytes(2.5 * 1024 * 1024).toString('base64');
    const order = `{"id": 820982911946154508, "note": "${noise}"}`;
    const id = idOf(await send(shopify(order, 'orders/paid')));
    expect(await store.get(id)).toMatchObject({ bodyKept: false, resource: 'order 820982911946154508', topic: 'orders/paid' });
  });

  it('quarantines an authentic Shopify order dated 2099, naming event.occurredAt, and queues nothing', async () => {
    const { send, store, queue } = await setup();
    const order = fixture('shopify/orders-paid-usd-discount-shipping.json').replace(
      '"processed_at": "2026-11-20T14:03:10-05:00"',
      '"processed_at": "2099-01-01T00:00:00-05:00"',
    );
    const response = await send(shopify(order, 'orders/paid'));
    expect(response).toMatchObject({
      statusCode: 200,
      answer: { status: 'quarantined', reason: expect.stringContaining('ahead of the clock') },
    });
    expect(queue.messages).toHaveLength(0);
    expect((await store.get(idOf(response)))!.reason).toMatchObject({ kind: 'invalid_payload', path: 'event.occurredAt' });
  });
});
