import { parse, stringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { staticWebhookSecrets, type WebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { type IntakeDeps, type IntakeRequest, receiveWebhook } from '../../../../shared/intake/index.js';
import { PointsEvent } from '../../../../shared/events/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, posHeaders, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';

const SHOPIFY_SECRET = 'shpss_intake_current';
const POS_SECRET = 'pos_intake_current';
// 2026-11-24T03:53:20Z: after every fixture (the latest is 2026-11-23), as a real clock is after what it receives.
const NOW_S = 1_795_500_000;

function setup(overrides: Partial<IntakeDeps> = {}) {
  const queue = new RecordingQueue();
  const deps: IntakeDeps = {
    sources: loadSources(undefined),
    secrets: staticWebhookSecrets({ shopify: [SHOPIFY_SECRET], pos: [POS_SECRET] }),
    queue,
    now: () => NOW_S * 1000,
    maxBodyBytes: 256 * 1024,
    ...overrides,
  };
  return {
    queue,
    deps,
    send: (request: Partial<IntakeRequest>) =>
      receiveWebhook({ source: 'shopify', method: 'POST', headers: {}, body: '', isBase64Encoded: false, ...request }, deps),
  };
}

const ORDER = fixture('shopify/orders-paid-usd-discount-shipping.json');
/** The fixture order with its line items repeated until the body is over `bytes` (an order of many lines). */
function largeOrder(bytes: number): string {
  const order = parse(ORDER) as { line_items: unknown[] };
  const lines = order.line_items;
  while (Buffer.byteLength(stringify(order) ?? '') <= bytes) order.line_items = [...order.line_items, ...lines];
  return stringify(order) ?? '';
}

const shopify = (body = ORDER, topic = 'orders/paid', secret = SHOPIFY_SECRET) => ({
  source: 'shopify',
  body,
  headers: shopifyHeaders(body, secret, topic),
});

describe('receiveWebhook: accepted deliveries', () => {
  it('puts what it knows of the delivery in the message (id, topic, when it came), for the activity record', async () => {
    const { send, queue } = setup();
    await send(shopify());
    const [event] = queue.events() as { delivery: Record<string, unknown> }[];
    expect(event?.delivery).toMatchObject({ id: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043', topic: 'orders/paid' });
    expect(new Date(String(event?.delivery.receivedAt)).toISOString()).toBe(event?.delivery.receivedAt);
  });

  it('queues a verified Shopify order and answers 202 with the event id', async () => {
    const { send, queue } = setup();
    const response = await send(shopify());
    // eventType is for the delivery metrics; the sender is only sent `answer`.
    expect(response).toEqual({
      statusCode: 202,
      answer: { status: 'accepted', eventId: 'shopify:order:820982911946154508' },
      eventType: 'purchase',
    });
    expect(queue.messages).toHaveLength(1);
    expect(PointsEvent.parse(queue.events()[0])).toMatchObject({ eventId: 'shopify:order:820982911946154508', eligibleAmount: 358 });
  });

  it('still queues a delivery made with another API version, marking and logging the difference', async () => {
    const warnings: unknown[][] = [];
    const logger = { info() {}, warn: (...args: unknown[]) => warnings.push(args), error() {} };
    const { send, queue } = setup({ logger });
    const body = ORDER;
    const response = await send({
      source: 'shopify',
      body,
      headers: shopifyHeaders(body, SHOPIFY_SECRET, 'orders/paid', { 'x-shopify-api-version': '2025-07' }),
    });
    expect(response).toMatchObject({ statusCode: 202, apiVersionMismatch: { expected: '2026-10', received: '2025-07' } });
    expect(queue.messages).toHaveLength(1);
    expect(warnings).toContainEqual([
      'webhook API version differs from the source setting',
      { source: 'shopify', expected: '2026-10', received: '2025-07' },
    ]);
  });

  it('groups by source and customer and deduplicates by source and delivery id', async () => {
    const { send, queue } = setup();
    await send(shopify());
    expect(queue.messages[0]).toMatchObject({
      groupId: 'shopify:shopify:115310627314723954',
      deduplicationId: 'shopify:b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    });
  });

  it('queues a POS receipt signed within the window', async () => {
    const { send, queue } = setup();
    const body = fixture('pos/sale.json');
    const response = await send({ source: 'pos', body, headers: posHeaders(body, POS_SECRET, NOW_S - 10) });
    expect(response.statusCode).toBe(202);
    expect(queue.messages[0]).toMatchObject({
      groupId: 'pos:pos_card:8000123412345678',
      deduplicationId: 'pos:sale:S014-R2-20261122-0042',
    });
  });

  it('reads a base64-encoded body and verifies the decoded bytes', async () => {
    const { send, queue } = setup();
    const request = shopify();
    const response = await send({ ...request, body: Buffer.from(ORDER).toString('base64'), isBase64Encoded: true });
    expect(response.statusCode).toBe(202);
    expect(queue.messages).toHaveLength(1);
  });

  it('accepts a delivery signed with the previous secret during a rotation', async () => {
    const { send } = setup({ secrets: staticWebhookSecrets({ shopify: [SHOPIFY_SECRET, 'shpss_old'] }) });
    expect((await send(shopify(ORDER, 'orders/paid', 'shpss_old'))).statusCode).toBe(202);
  });

  it('picks up a secret rotated since it was cached, by reading the secrets again once', async () => {
    let current = ['shpss_before_rotation'];
    const calls: boolean[] = [];
    const secrets: WebhookSecrets = {
      async get(_source, opts) {
        calls.push(opts?.forceRefresh ?? false);
        const answer = current;
        current = ['shpss_after_rotation'];
        return answer;
      },
    };
    const { send } = setup({ secrets });
    expect((await send(shopify(ORDER, 'orders/paid', 'shpss_after_rotation'))).statusCode).toBe(202);
    expect(calls).toEqual([false, true]);
  });

  it('answers 200 ignored for a topic it does not handle, and queues nothing', async () => {
    const { send, queue } = setup();
    const response = await send(shopify(ORDER, 'orders/updated'));
    expect(response).toEqual({ statusCode: 200, answer: { status: 'ignored', reason: 'topic orders/updated is not handled' } });
    expect(queue.messages).toHaveLength(0);
  });
});

describe('receiveWebhook: refusals have no side effect', () => {
  const cases: [string, (s: ReturnType<typeof setup>) => Promise<{ statusCode: number; answer: unknown }>, number, string][] = [
    ['an unknown source', (s) => s.send({ ...shopify(), source: 'square' }), 404, 'unknown_source'],
    ['a request without a source', (s) => s.send({ ...shopify(), source: undefined }), 404, 'unknown_source'],
    ['a GET', (s) => s.send({ ...shopify(), method: 'GET' }), 405, 'method_not_allowed'],
    [
      'a missing signature',
      (s) => s.send({ source: 'shopify', body: ORDER, headers: { 'x-shopify-topic': 'orders/paid' } }),
      401,
      'missing_signature',
    ],
    ['a wrong signature', (s) => s.send(shopify(ORDER, 'orders/paid', 'guess')), 401, 'invalid_signature'],
    ['a body changed after signing', (s) => s.send({ ...shopify(), body: ORDER.replace('358.20', '958.20') }), 401, 'invalid_signature'],
    [
      'a stale POS timestamp (a replay)',
      (s) => {
        const body = fixture('pos/sale.json');
        return s.send({ source: 'pos', body, headers: posHeaders(body, POS_SECRET, NOW_S - 3600) });
      },
      401,
      'stale_timestamp',
    ],
    ['malformed JSON', (s) => s.send(shopify('{"id": 1,')), 400, 'malformed_json'],
    [
      'malformed JSON with a wrong signature (verified before parsing)',
      (s) => s.send(shopify('{"id": 1,', 'orders/paid', 'guess')),
      401,
      'invalid_signature',
    ],
    [
      'a body marked base64 that is not',
      (s) => s.send({ ...shopify(), body: '%%%not-base64%%%', isBase64Encoded: true }),
      400,
      'malformed_body',
    ],
    ['a payload that does not match the schema', (s) => s.send(shopify('{"id": "abc"}')), 422, 'invalid_payload'],
  ];

  for (const [what, act, status, kind] of cases) {
    it(`answers ${status} ${kind} to ${what} and queues nothing`, async () => {
      const s = setup();
      const response = await act(s);
      expect(response.statusCode).toBe(status);
      expect(response.answer).toMatchObject({ error: { kind } });
      expect(s.queue.messages).toHaveLength(0);
    });
  }

  it('answers 413 to a body over the limit, before checking anything else', async () => {
    const s = setup({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ pad: 'x'.repeat(2000) });
    expect((await s.send({ source: 'pos', body: big, headers: {} })).statusCode).toBe(413);
    expect(
      (await s.send({ source: 'pos', body: Buffer.from(big).toString('base64'), headers: {}, isBase64Encoded: true })).statusCode,
    ).toBe(413);
    expect(s.queue.messages).toHaveLength(0);
  });

  it('measures the limit in bytes, not characters', async () => {
    const s = setup({ maxBodyBytes: 1000 });
    const body = JSON.stringify({ note: 'é'.repeat(600) }); // 600 characters, 1200 bytes
    expect((await s.send({ source: 'pos', body, headers: posHeaders(body, POS_SECRET, NOW_S) })).statusCode).toBe(413);
  });

  it("accepts a Shopify order over the default limit: Shopify's own limit (4 MiB) applies to it", async () => {
    const s = setup({ maxBodyBytes: 1024 });
    const large = largeOrder(300 * 1024);
    const response = await s.send(shopify(large));
    expect(response).toMatchObject({ statusCode: 202, answer: { status: 'accepted' } });
    expect(s.queue.messages).toHaveLength(1);
  });

  it('answers 413 to a Shopify body over 4 MiB', async () => {
    const s = setup();
    const response = await s.send(shopify(JSON.stringify({ pad: 'x'.repeat(4 * 1024 * 1024) })));
    expect(response.statusCode).toBe(413);
    expect(s.queue.messages).toHaveLength(0);
  });

  it('gives the path of the offending field in a 422', async () => {
    const s = setup();
    const body = ORDER.replace('"currency": "USD"', '"currency": "dollars"');
    const response = await s.send(shopify(body));
    expect(response).toMatchObject({ statusCode: 422, answer: { error: { kind: 'invalid_payload', path: 'currency' } } });
  });

  it('never echoes a secret or the body in an answer', async () => {
    const s = setup();
    const body = ORDER.replace('"currency": "USD"', '"currency": "SECRETVALUE"');
    const answers = [
      await s.send(shopify(body)),
      await s.send(shopify(ORDER, 'orders/paid', 'SECRETVALUE')),
      await s.send({ ...shopify(), headers: { 'x-shopify-hmac-sha256': 'SECRETVALUE', 'x-shopify-topic': 'orders/paid' } }),
    ].map((r) => JSON.stringify(r));
    for (const a of answers) {
      expect(a).not.toContain('SECRETVALUE');
      expect(a).not.toContain(SHOPIFY_SECRET);
    }
  });

  it('answers 500 not_configured when a source has no secret', async () => {
    const s = setup({ secrets: staticWebhookSecrets({ pos: [POS_SECRET] }) });
    expect((await s.send(shopify())).answer).toMatchObject({ error: { kind: 'not_configured' } });
    expect(s.queue.messages).toHaveLength(0);
  });

  it('answers 503 when the secrets cannot be read, so the sender retries', async () => {
    const failing: WebhookSecrets = {
      get: async () => {
        throw Object.assign(new Error('Secrets Manager timeout'), { kind: 'unavailable' });
      },
    };
    const s = setup({ secrets: failing });
    expect((await s.send(shopify())).statusCode).toBe(503);
  });

  it('answers 503 when the queue refuses the message, so the sender retries', async () => {
    const s = setup();
    s.queue.failWith = new Error('ServiceUnavailable');
    expect(await s.send(shopify())).toMatchObject({ statusCode: 503, answer: { error: { kind: 'unavailable' } } });
  });
});
