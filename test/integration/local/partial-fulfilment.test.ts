import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ShopifyOrderTopic, shopifyOrderWebhook, type WebhookRequest } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';

/**
 * Partial fulfilments through `npm start`'s stack (SHOPIFY_EARN_AFTER=fulfilled): signed Shopify webhooks
 * into the intake, the queue, the worker, the emulator. Alice earns 1%: ¥10,380 in two lines of ¥5,190
 * earns 103 on the whole; two per-share calculations would give 51 + 51 = 102.
 */
const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
let stack: LocalStack;
let api: OpenApiClient;
let webhooks = 0;

beforeAll(async () => {
  stack = await startLocalStack({ env: { SHOPIFY_EARN_AFTER: 'fulfilled' } });
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

const balance = async () => (await api.getMember(ALICE)).point;
async function deliver(request: WebhookRequest): Promise<number> {
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  await res.arrayBuffer();
  await stack.queue.waitForIdle({ timeoutMs: 20_000 });
  return res.status;
}
const orderWebhook = (topic: ShopifyOrderTopic, orderId: string, shipped?: { id: string; quantity: number }[]) =>
  shopifyOrderWebhook(
    topic,
    'paid',
    {
      orderId,
      name: `#${orderId}`,
      customerId: '1001',
      subtotal: '10380',
      tax: '0',
      currency: 'JPY',
      taxesIncluded: true,
      lines: [
        { id: `${orderId}1`, quantity: 1, price: '5190' },
        { id: `${orderId}2`, quantity: 1, price: '5190' },
      ],
      ...(shipped ? { shipped } : {}),
    },
    stack.webhookSecrets.shopify[0] ?? '',
    `wh-ship-${++webhooks}`,
    Date.now(),
  );

describe('npm start: an order shipped in two parcels', () => {
  it('earns its first parcel’s share once, and ends at one calculation on the whole order', async () => {
    const before = await balance();
    const orderId = '7301';
    const first = [{ id: `${orderId}1`, quantity: 1 }];
    expect(await deliver(orderWebhook('orders/paid', orderId))).toBe(202);
    expect(await balance()).toBe(before);
    expect(await deliver(orderWebhook('orders/partially_fulfilled', orderId, first))).toBe(202);
    expect(await balance()).toBe(before + 51);
    // Shopify's retry of the same partial fulfilment (a new webhook id): nothing more.
    expect(await deliver(orderWebhook('orders/partially_fulfilled', orderId, first))).toBe(202);
    expect(await balance()).toBe(before + 51);
    expect(await deliver(orderWebhook('orders/fulfilled', orderId))).toBe(202);
    expect(await balance()).toBe(before + 103);
  });
});
