import { describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { ScanCommand } from '../../../shared/dynamodb/index.js';
import { deliverShopifyOrder, withDemoStack } from '../../support/local-stack.js';

/**
 * `npm start` runs its workers as the stack runs containers: WORKER_CONCURRENCY of them, each with its
 * own token and its own slices of the one budget in the local DynamoDB. Batches of one message each, the
 * calculations held by the emulator's `delay` fault, so every worker has a batch at the same time.
 */
const CALCULATION = 'POST /api/ext/users/{id}/points/calculation';
let stack: LocalStack;
let handle: LocalStackHandle;

withDemoStack({ env: { WORKER_CONCURRENCY: '3' }, queue: { batchSize: 1 } }, (made) => {
  ({ stack, handle } = made);
});

async function emulator(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${stack.urls.emulator}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.status === 204 ? undefined : res.json();
}

/** What the local DynamoDB holds of the budget's counters: calls leased on `route`, all minutes. */
async function leased(route: string): Promise<number> {
  const page = await handle.documentClient.send(
    new ScanCommand({
      TableName: handle.tableName,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': `budget#${route}#` },
      ConsistentRead: true,
    }),
  );
  return (page.Items ?? []).reduce((sum, item) => sum + Number(item.used ?? 0), 0);
}

describe('npm start with WORKER_CONCURRENCY=3', () => {
  it('runs three workers at once, each logging in with its own token and leasing its own slice of the one budget', async () => {
    await emulator('POST', '/faults', { method: 'POST', path: '/points/calculation$', fault: 'delay', times: 3, delay_ms: 1500 });
    const orders = ['1001', '1002', '1003'].map((customerId, i) => ({
      orderId: `52000000000000000${i + 1}`,
      name: `#20${i + 1}`,
      customerId,
      subtotal: '1000',
      tax: '100',
      currency: 'JPY',
    }));
    for (const [i, order] of orders.entries()) expect((await deliverShopifyOrder(stack, order, `workers-${i}`)).status).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    const stats = (await emulator('GET', '/stats')) as {
      clients: Record<string, { token_requests: number; routes: Record<string, { total: number }> }>;
    };
    const [client] = Object.values(stats.clients);
    expect(client?.routes[CALCULATION]?.total).toBe(3);
    expect(client?.token_requests).toBe(3);
    // A first slice is 20 calls: three workers, three slices of the calculation endpoint's minute.
    expect(await leased(CALCULATION)).toBe(60);
  });
});
