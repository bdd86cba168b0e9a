import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { type IntakeDeps, type IntakeRequest, receiveWebhook } from '../../../../shared/intake/index.js';
import { createQuarantineStore, createQuarantineTable, type QuarantineStore } from '../../../../shared/quarantine/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../support/dynalite.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, posHeaders, shopifyHeaders } from '../../../support/webhooks.js';

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
  const store: QuarantineStore = createQuarantineStore({ client: dynamo.documentClient, tableName, clock, ttlDays: 90 });
  const queue = new RecordingQueue();
  const counted: string[] = [];
  const deps: IntakeDeps = {
    sources: loadSources(undefined),
    secrets: staticWebhookSecrets({ shopify: [SHOPIFY_SECRET], pos: [POS_SECRET] }),
    queue,
    now: clock,
    maxBodyBytes: 256 * 1024,
    quarantine: store,
    countQuarantined: (source) => counted.push(source),
  };
  const send = (request: Partial<IntakeRequest>) =>
    receiveWebhook({ source: 'shopify', method: 'POST', headers: {}, body: '', isBase64Encoded: false, ...request }, deps);
  return { store, queue, counted, send, clock };
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
    expect(Buffer.from(entry!.body).toString('utf8')).toBe(UNMAPPABLE);
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
    expect(Buffer.from(entry!.body).toString('utf8')).toBe(large);
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
    expect(Buffer.from(entry!.body).equals(bytes)).toBe(true);
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
});
