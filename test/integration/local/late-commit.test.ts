import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { purchaseMarker } from '../../../shared/points/index.js';

/**
 * Issue 50's "done when": `npm start` (its defaults, the in-doubt horizon of 120 s included) against an emulator
 * that commits late. Each order's points calculation is answered at once (a reset, a held connection, a gateway's
 * HTML 502) and executed seconds later; the worker must hold the order until the horizon, find the entry in the
 * history and record it, never sending the calculation a second time. Signed Shopify webhooks into the intake,
 * the queue, the worker, the emulator: the wiring `npm start` runs.
 */
const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
const CALCULATION = 'POST /api/ext/users/{id}/points/calculation';
let stack: LocalStack;
let api: OpenApiClient;

beforeAll(async () => {
  stack = await startLocalStack();
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

async function emulator(method: 'POST' | 'GET', path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${stack.urls.emulator}/__emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.ok).toBe(true);
  return res.json();
}

const calculations = async (): Promise<number> => {
  const stats = (await emulator('GET', '/stats')) as { clients: Record<string, { routes: Record<string, { total: number }> }> };
  return stats.clients[stack.openApi.clientId]?.routes[CALCULATION]?.total ?? 0;
};

async function paidOrder(orderId: string): Promise<void> {
  const request = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId: '1001', subtotal: '5000', tax: '0', currency: 'JPY', taxesIncluded: true },
    stack.webhookSecrets.shopify[0] ?? '',
    `wh-late-${orderId}`,
    Date.now(),
  );
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  await res.arrayBuffer();
  expect(res.status).toBe(202);
}

async function entriesOf(orderId: string): Promise<number[]> {
  const history = await api.listPoints(ALICE, { perPage: 1000 });
  return history.points.filter((p) => p.remarks === purchaseMarker('shopify', orderId)).map((p) => p.point);
}

describe('npm start against an emulator that commits late', () => {
  it('shows one history entry per order, each calculation sent once, for a reset, a held answer and an HTML 502', async () => {
    const answers = [
      { answer: 'reset' },
      { answer: 'hold' },
      { answer: 'status', status: 502, body: '<html><body>502 Bad Gateway</body></html>', headers: { 'content-type': 'text/html' } },
    ];
    const orders = ['7501', '7502', '7503'];
    const sentBefore = await calculations();
    for (const [i, answer] of answers.entries()) {
      await emulator('POST', '/faults', {
        method: 'POST',
        path: '^/api/ext/users/[^/]+/points/calculation$',
        fault: 'late_commit',
        commit_after_ms: 3000,
        times: 1,
        ...answer,
      });
      await paidOrder(orders[i] ?? '');
      // The next fault is armed only once this order's calculation has met this one.
      await expect.poll(calculations, { timeout: 30_000, interval: 100 }).toBe(sentBefore + i + 1);
    }
    // Each order is held until the in-doubt horizon (npm start's default, 120 s) and then found in the history.
    await stack.queue.waitForIdle({ timeoutMs: 240_000 });

    for (const orderId of orders) {
      expect(await entriesOf(orderId)).toEqual([50]);
      expect(await stack.ledger.getOrder({ source: 'shopify', orderId })).toMatchObject({
        state: 'done',
        outcome: 'credited',
        pointsCredited: 50,
      });
    }
    expect(await calculations()).toBe(sentBefore + orders.length);
  }, 300_000);
});
