import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJst } from '../../../shared/time/index.js';
import { reconcileCommand } from '../../../ops/reconcile-command.js';
import { shopifyOrderWebhook, shopifyRefundCreate, type WebhookRequest } from '../../../kit/webhooks/index.js';
import { handleOf, type LocalStack, type LocalStackHandle, startLocalStack } from '../../../local/index.js';
import { purchaseMarker, refundMarker } from '../../../shared/points/index.js';

/**
 * `npm run reconcile` against a real local stack (emulator over HTTP, dynalite, the in-process queue
 * and worker, the Shopify Admin API stand-in), run in-process as the CLI runs it.
 */

describe('npm run reconcile against the local stack', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let env: NodeJS.ProcessEnv;
  let serial = 0;

  beforeAll(async () => {
    // A short backoff cap: a refund deferred while it waits for its purchase comes back within seconds, so
    // waitForIdle (which waits for every message, deferred ones too) does not wait out a long backoff.
    stack = await startLocalStack({ env: { RETRY_BACKOFF_CAP_SECONDS: '2', CIRCUIT_OPEN_SECONDS: '2', RETRY_HORIZON_SECONDS: '1200' } });
    // The shop of a Plus plan (1000 points/s): runs here read ever more orders, and waiting for a Standard
    // bucket (100/s) to refill is what the throttling test below is about, not these.
    stack.standIns.shopifyAdmin.setBucket({ maximumAvailable: 2000, restoreRate: 1000, currentlyAvailable: 2000 });
    handle = handleOf(stack);
    env = { PORT: String(new URL(stack.urls.intake).port) };
  });
  afterAll(async () => {
    await handle?.close();
    await stack?.close();
  });

  const nextOrderId = () => `61000000000000${String(++serial).padStart(5, '0')}`;
  const since = () => new Date(Date.now() - 3_600_000).toISOString();

  async function reconcile(...extra: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await reconcileCommand(['--source', 'shopify', '--since', since(), ...extra], env, {
      print: (l) => out.push(l),
      printError: (l) => err.push(l),
    });
    return { code, out, err };
  }

  /** Puts a webhook's body into the shop without delivering it: a webhook Shopify never sent. */
  async function lose(request: WebhookRequest): Promise<void> {
    const topic = request.headers['x-shopify-topic'];
    const res = await fetch(`${stack.urls.shopifyAdmin}/__shopify/${topic === 'refunds/create' ? 'refunds' : 'orders'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request.body,
    });
    expect(res.status).toBe(201);
  }

  async function deliver(request: WebhookRequest): Promise<void> {
    const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
    expect(res.status).toBe(202);
  }

  const order = (orderId: string, customerId: string, subtotal = '12000') =>
    shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId, name: `#${orderId.slice(-4)}`, customerId, subtotal, tax: '0', currency: 'JPY' },
      stack.webhookSecrets.shopify[0]!,
      `wh-${orderId}`,
      Date.now(),
    );

  async function historyWith(customerExternalId: string, marker: string): Promise<number[]> {
    const member = await handle.openapi.getMemberByExternalId('shopify', customerExternalId);
    const page = await handle.openapi.listPoints(member.id, { page: 1, perPage: 1000 });
    return page.points.filter((p) => p.remarks === marker).map((p) => p.point);
  }

  it('sends no webhook for an order put into the shop', async () => {
    const orderId = nextOrderId();
    await lose(order(orderId, '1001'));
    await handle.waitForIdle();
    expect(await handle.ledger.getOrder({ source: 'shopify', orderId })).toBeUndefined();
    await reconcile(); // leaves the stack reconciled for the next tests
    await handle.waitForIdle();
  });

  it('credits an order whose webhook never came, exactly once however often it runs', async () => {
    const orderId = nextOrderId();
    await lose(order(orderId, '1001'));
    const first = await reconcile();
    expect(first.code).toBe(0);
    expect(first.out.at(-1)).toMatch(/^reconcile: scanned=\d+ missing=1 enqueued=1$/);
    await handle.waitForIdle();
    const second = await reconcile();
    expect(second.out.at(-1)).toMatch(/^reconcile: scanned=\d+ missing=0 enqueued=0$/);
    await handle.waitForIdle();
    expect((await handle.ledger.getOrder({ source: 'shopify', orderId }))?.outcome).toBe('credited');
    expect(await historyWith('1001', purchaseMarker('shopify', orderId))).toEqual([120]);
  });

  it('credits once when reconcile and the late webhook deliver the same order together', async () => {
    const orderId = nextOrderId();
    const request = order(orderId, '1002');
    await lose(request);
    const [result] = await Promise.all([reconcile(), deliver(request)]);
    expect(result.code).toBe(0);
    await handle.waitForIdle();
    expect(await historyWith('1002', purchaseMarker('shopify', orderId))).toHaveLength(1);
  });

  it('debits a refund whose webhook never came', async () => {
    const orderId = nextOrderId();
    await deliver(order(orderId, '1003', '10000'));
    await handle.waitForIdle();
    const refund = shopifyRefundCreate(
      { refundId: `77${serial}`, orderId, subtotal: '2500', tax: '0', currency: 'JPY' },
      stack.webhookSecrets.shopify[0]!,
      `wh-r-${orderId}`,
      Date.now(),
    );
    await lose(refund);
    const result = await reconcile();
    expect(result.out).toContain(
      `enqueued refund shopify:refund:${orderId}:77${serial} (#${orderId.slice(-4)}, ${formatJst(JSON.parse(refund.body).created_at)})`,
    );
    await handle.waitForIdle();
    expect((await handle.ledger.getRefund({ source: 'shopify', orderId, refundId: `77${serial}` }))?.outcome).toBe('debited');
    const credited = await historyWith('1003', purchaseMarker('shopify', orderId));
    const debited = await historyWith('1003', refundMarker('shopify', orderId, `77${serial}`));
    expect(debited).toEqual([-(credited[0]! / 4)]);
  });

  it('credits an order whose refund webhook came but whose paid webhook never did, then debits the refund', async () => {
    const orderId = nextOrderId();
    const refundId = `78${serial}`;
    const refund = shopifyRefundCreate(
      { refundId, orderId, subtotal: '3000', tax: '0', currency: 'JPY' },
      stack.webhookSecrets.shopify[0]!,
      `wh-r-${orderId}`,
      Date.now(),
    );
    await deliver(refund); // the refund waits in the ledger for its purchase (a stub order record)
    await lose(order(orderId, '1005'));
    const result = await reconcile();
    expect(result.out).toContainEqual(expect.stringMatching(new RegExp(`^enqueued purchase shopify:order:${orderId} `)));
    await handle.waitForIdle();
    expect((await handle.ledger.getOrder({ source: 'shopify', orderId }))?.outcome).toBe('credited');
    expect((await handle.ledger.getRefund({ source: 'shopify', orderId, refundId }))?.outcome).toBe('debited');
    expect(await historyWith('1005', purchaseMarker('shopify', orderId))).toEqual([120]);
    expect(await historyWith('1005', refundMarker('shopify', orderId, refundId))).toEqual([-30]);
  });

  it('lists what is missing on a dry run and queues nothing', async () => {
    const orderId = nextOrderId();
    await lose(order(orderId, '1004'));
    const result = await reconcile('--dry-run');
    expect(result.out).toContainEqual(expect.stringMatching(new RegExp(`^missing purchase shopify:order:${orderId} `)));
    expect(result.out.at(-1)).toMatch(/^reconcile: scanned=\d+ missing=\d+ enqueued=0$/);
    await handle.waitForIdle();
    expect(await handle.ledger.getOrder({ source: 'shopify', orderId })).toBeUndefined();
    await reconcile(); // leaves the stack reconciled for the next tests
    await handle.waitForIdle();
  });

  it('completes when Shopify throttles it, after backing off', async () => {
    const orderId = nextOrderId();
    await lose(order(orderId, '1005'));
    const throttledBefore = stack.standIns.shopifyAdmin.stats().throttled;
    stack.standIns.shopifyAdmin.setBucket({ maximumAvailable: 1000, restoreRate: 2000, currentlyAvailable: 0 });
    const result = await reconcile();
    expect(result.code).toBe(0);
    expect(result.out.at(-1)).toMatch(/^reconcile: scanned=\d+ missing=1 enqueued=1$/);
    expect(stack.standIns.shopifyAdmin.stats().throttled).toBeGreaterThan(throttledBefore);
    await handle.waitForIdle();
    expect((await handle.ledger.getOrder({ source: 'shopify', orderId }))?.outcome).toBe('credited');
  });

  it('names an order it cannot map on stderr, exits 1, and still reconciles the others', async () => {
    const bad = nextOrderId();
    const good = nextOrderId();
    await lose(order(bad, '1001', '99999999999')); // over the events' largest amount
    await lose(order(good, '1001'));
    const result = await reconcile();
    expect(result.code).toBe(1);
    expect(result.err).toContainEqual(expect.stringContaining(`could not reconcile shopify:order:${bad}: orders/paid: `));
    expect(result.out.at(-1)).toMatch(/^reconcile: scanned=\d+ missing=1 enqueued=1$/);
    await handle.waitForIdle();
    expect((await handle.ledger.getOrder({ source: 'shopify', orderId: good }))?.outcome).toBe('credited');
    expect(await handle.ledger.getOrder({ source: 'shopify', orderId: bad })).toBeUndefined();
  });

  it('refuses a run without --since, naming it, and changes nothing', async () => {
    const err: string[] = [];
    const code = await reconcileCommand(['--source', 'shopify'], env, { print: () => {}, printError: (l) => err.push(l) });
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('--since');
  });

  it('refuses a window that ends before it starts', async () => {
    const err: string[] = [];
    const code = await reconcileCommand(
      ['--source', 'shopify', '--since', '2026-11-02T00:00:00Z', '--until', '2026-11-01T00:00:00Z'],
      env,
      {
        print: () => {},
        printError: (l) => err.push(l),
      },
    );
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('since must be before until');
  });

  it('refuses to reconcile a source that is not Shopify', async () => {
    const err: string[] = [];
    const code = await reconcileCommand(['--source', 'pos', '--since', since()], env, { print: () => {}, printError: (l) => err.push(l) });
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('only Shopify sources');
  });
});
