/**
 * Shopify signs only the body: its headers are the sender's say-so. Each one intake uses is bounded
 * and checked before it is used (the webhook id becomes the queue's deduplication id, every one is
 * logged and queued); a bad one is a 400 naming the header, never repeating its value.
 */
import { describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { receiveWebhook } from '../../../../shared/intake/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';

const SECRET = 'shpss_headers_current_0123456789abcdef';
const ORDER = fixture('shopify/orders-paid-usd-discount-shipping.json');
const NOW = Date.parse('2026-11-21T00:00:00Z');

async function send(extra: Record<string, string>) {
  const queue = new RecordingQueue();
  const logged: string[] = [];
  const log = (message: string, fields?: Record<string, unknown>) => logged.push(JSON.stringify({ message, ...fields }));
  const response = await receiveWebhook(
    {
      source: 'shopify',
      method: 'POST',
      headers: shopifyHeaders(ORDER, SECRET, 'orders/paid', extra),
      body: ORDER,
      isBase64Encoded: false,
    },
    {
      sources: loadSources(undefined),
      secrets: staticWebhookSecrets({ shopify: [SECRET] }),
      queue,
      now: () => NOW,
      maxBodyBytes: 256 * 1024,
      logger: { info: log, warn: log, error: log },
    },
  );
  return { response, queue, logged: logged.join('\n') };
}

describe('unsigned headers at intake', () => {
  it('refuses a 5,000-character X-Shopify-Webhook-Id with 400 naming the header, queues nothing and logs no part of it', async () => {
    const { response, queue, logged } = await send({ 'x-shopify-webhook-id': 'w'.repeat(5000) });
    expect(response).toMatchObject({
      statusCode: 400,
      answer: { error: { kind: 'invalid_header', path: 'headers.X-Shopify-Webhook-Id' } },
    });
    expect(queue.messages).toHaveLength(0);
    expect(logged).not.toContain('wwwwwwwwww');
    expect(JSON.stringify(response.answer)).not.toContain('wwwwwwwwww');
  });

  it('refuses a webhook id with control characters', async () => {
    const { response } = await send({ 'x-shopify-webhook-id': 'b54557e4\u0001bdd9' });
    expect(response).toMatchObject({
      statusCode: 400,
      answer: { error: { kind: 'invalid_header', path: 'headers.X-Shopify-Webhook-Id' } },
    });
  });

  it('refuses an overlong topic', async () => {
    const { response } = await send({ 'x-shopify-topic': `orders/${'p'.repeat(5000)}` });
    expect(response).toMatchObject({ statusCode: 400, answer: { error: { path: 'headers.X-Shopify-Topic' } } });
  });

  it('refuses a shop domain that is not a host name', async () => {
    const { response } = await send({ 'x-shopify-shop-domain': 'evil shop<script>' });
    expect(response).toMatchObject({ statusCode: 400, answer: { error: { path: 'headers.X-Shopify-Shop-Domain' } } });
  });

  it('accepts the header values Shopify sends, nanosecond trigger times included', async () => {
    const { response } = await send({ 'x-shopify-triggered-at': '2023-03-29T18:00:27.877041743Z', 'x-shopify-api-version': 'unstable' });
    expect(response.statusCode).toBe(202);
  });
});
