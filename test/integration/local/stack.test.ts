import { poisonDeferralSeconds } from '../../../shared/config/index.js';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorConfig } from '../../../stand-ins/openapi/index.js';
import { ledgerReport } from '../../../ops/index.js';
import { runDemo } from '../../../demo/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import {
  createManualClock,
  examplePosScript,
  exampleShopifyCurl,
  type LocalStack,
  type LocalStackHandle,
  startLocalStack,
} from '../../../local/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { STAND_IN_KEYS } from '../../../stand-ins/registry.js';
import { withDemoStack } from '../../support/local-stack.js';

const run = promisify(execFile);

describe('the local stack (npm start) end to end', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let api: OpenApiClient;
  let demoConfig: EmulatorConfig;

  withDemoStack({}, (made) => {
    ({ stack, handle, demoConfig } = made);
    // A separate client, as a user checking the balances would have.
    api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
  });
  afterAll(async () => {
    await api?.close();
  });

  const balance = async (key: string, id: string) => (await api.getMemberByExternalId(key, id)).point;

  it('answers the health check with 200 once everything is up', async () => {
    const res = await fetch(`${stack.urls.intake}/healthz`);
    expect(res.status).toBe(200);
  });

  it("starts every sender's stand-in of the registry under its key, each listening at the URL the stack gives", async () => {
    const started = await Promise.all(
      STAND_IN_KEYS.map(async (key) => {
        const res = await fetch(`${stack.urls[key]}/__not-a-route`);
        // Each refuses a route it does not have in its own way (404, 401): it listens.
        return [key, stack.urls[key] === stack.standIns[key].url, res.status >= 400 && res.status < 500] as const;
      }),
    );
    expect(started).toEqual([
      ['shopifyAdmin', true, true],
      ['squareOrders', true, true],
      ['smaregi', true, true],
    ]);
  });

  it('runs the demo scenario with every outcome as expected and the balances back where they started', async () => {
    const before = { alice: await balance('shopify', '1001'), bob: await balance('pos_card', 'PC-0002') };
    const printed: string[] = [];
    const result = await runDemo(
      {
        ...handle,
        emulatorConfig: demoConfig,
        secrets: { shopify: stack.webhookSecrets.shopify[0]!, pos: stack.webhookSecrets.pos[0]! },
      },
      (line) => printed.push(line),
    );
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(await balance('shopify', '1001')).toBe(before.alice);
    expect(await balance('pos_card', 'PC-0002')).toBe(before.bob);
  });

  it('reports every event that does not do what the demo expects, so its exit code is not 0', async () => {
    const result = await runDemo(
      {
        ...handle,
        emulatorConfig: demoConfig,
        // Signed with secrets the stack does not know: every webhook is refused.
        secrets: { shopify: 'not-the-secret', pos: 'not-the-secret' },
      },
      () => {},
    );
    expect(result.ok).toBe(false);
    expect(result.failures).toContainEqual(expect.stringContaining('Shopify orders/paid #D'));
    expect(result.failures.some((f) => f.includes('HTTP 401, expected 202'))).toBe(true);
  });

  it('leaves the demo purchase and its two refunds in the point history exactly once each', async () => {
    const alice = await api.getMemberByExternalId('shopify', '1001');
    const history = await api.listPoints(alice.id, { perPage: 1000 });
    const demo = history.points.filter((p) => (p.remarks ?? '').startsWith('lp1:shopify:') && (p.remarks ?? '').includes(':7000'));
    // 12000 at the regular rate 0.01: +120, then 3000 and 9000 refunded: -30 and -90.
    expect(demo.map((p) => p.point).sort((a, b) => a - b)).toEqual([-90, -30, 120]);
  });

  it('credits a tax-inclusive Japanese order on its amount without tax and takes back exactly half per line refunded', async () => {
    // hanako (gold, 5 %): two ¥5,500 items with ¥500 consumption tax each, prices including tax, default settings.
    const hanako = await api.getMemberByExternalId('shopify', '1007');
    const history = await api.listPoints(hanako.id, { perPage: 1000 });
    const order = history.points.filter((p) => (p.remarks ?? '').startsWith('lp1:shopify:') && (p.remarks ?? '').includes(':70009'));
    expect(order.map((p) => p.point).sort((a, b) => a - b)).toEqual([-250, -250, 500]);
  });

  it('accepts the Shopify curl printed at start and credits the customer', async () => {
    const before = await balance('shopify', '1001');
    const { stdout } = await run('sh', ['-c', exampleShopifyCurl(stack.urls.intake, '1001', stack.webhookSecrets.shopify[0]!)]);
    expect(stdout).toMatch(/^HTTP\/1\.1 202/);
    await stack.queue.waitForIdle({ timeoutMs: 10_000 });
    expect(await balance('shopify', '1001')).toBe(before + 120);
    expect((await stack.ledger.getOrder({ source: 'shopify', orderId: '5100000000000000001' }))?.outcome).toBe('credited');
  });

  it('accepts the POS script printed at start, signed at paste time', async () => {
    const before = await balance('pos_card', 'PC-0003');
    const script = examplePosScript(stack.urls.intake, 'PC-0003', { literal: stack.webhookSecrets.pos[0]! });
    const { stdout } = await run('sh', ['-c', script]);
    expect(stdout).toMatch(/^HTTP\/1\.1 202/);
    await stack.queue.waitForIdle({ timeoutMs: 10_000 });
    // carol is regular (0.01): 5400 earns 54.
    expect(await balance('pos_card', 'PC-0003')).toBe(before + 54);
  });

  it('reports an order with its ledger record next to the point-history entries upstream', async () => {
    const paid = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '5100000000000000007', name: '#1007', customerId: '1005', subtotal: '3000', tax: '300', currency: 'JPY' },
      stack.webhookSecrets.shopify[0]!,
      'report-1',
      Date.now(),
    );
    await fetch(`${stack.urls.intake}${paid.path}`, { method: 'POST', headers: paid.headers, body: paid.body });
    await stack.queue.waitForIdle({ timeoutMs: 10_000 });
    const report = await ledgerReport(stack.ledger, api, 'shopify', '5100000000000000007');
    expect(report.found).toBe(true);
    expect(report.lines).toContain('    outcome: credited');
    // erin is regular (0.01): 3000 earns 30, found upstream by the order's marker.
    expect(report.lines.some((l) => /\+30\s+Purchase #1007\s+lp1:shopify:order:5100000000000000007/.test(l))).toBe(true);
  });

  it('reports an order it has no record of as not found', async () => {
    const report = await ledgerReport(stack.ledger, api, 'shopify', '404');
    expect(report).toEqual({ found: false, lines: ['no ledger record for shopify order 404'] });
  });

  it('hands intake the exact bytes of a body that is not UTF-8, so its signature still verifies', async () => {
    const body = Buffer.concat([Buffer.from('{"id":1,"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await fetch(`${stack.urls.intake}/webhooks/shopify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': 'orders/paid',
        'x-shopify-hmac-sha256': createHmac('sha256', stack.webhookSecrets.shopify[0]!).update(body).digest('base64'),
      },
      body,
    });
    // Past the signature check (401 otherwise), and unreadable as what it is: not UTF-8. Authentic
    // Shopify deliveries we cannot read are quarantined and answered 200, never refused.
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'quarantined', reason: 'body is not valid UTF-8' });
  });

  it('answers a forged Shopify signature 401 and queues nothing', async () => {
    const sent = stack.queue.stats().sent;
    const forged = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '5100000000000000099', name: '#99', customerId: '1001', subtotal: '100', tax: '0', currency: 'JPY' },
      'wrong-secret',
      'forged-1',
      Date.now(),
    );
    const res = await fetch(`${stack.urls.intake}${forged.path}`, { method: 'POST', headers: forged.headers, body: forged.body });
    expect(res.status).toBe(401);
    expect(stack.queue.stats().sent).toBe(sent);
  });
});

describe('the local stack when an event keeps failing', () => {
  const clock = createManualClock(Date.now());
  let stack: LocalStack;
  let api: OpenApiClient;

  beforeAll(async () => {
    stack = await startLocalStack({ queue: { clock, visibilityTimeoutMs: 5_000, maxReceiveCount: 2 } });
    api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
  });
  afterAll(async () => {
    await api?.close();
    await stack?.close();
  });

  async function emulatorClient(patch: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${stack.urls.emulator}/__emulator/clients/${stack.openApi.clientId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(patch),
    });
    expect(res.status).toBe(200);
  }

  it('dead-letters it after the receive limit and credits it once redriven through the admin route', async () => {
    const before = (await api.getMemberByExternalId('shopify', '1002')).point;
    await emulatorClient({ contracted: false });
    const paid = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '5200000000000000001', name: '#5201', customerId: '1002', subtotal: '2000', tax: '200', currency: 'JPY' },
      stack.webhookSecrets.shopify[0]!,
      'dlq-1',
      Date.now(),
    );
    expect((await fetch(`${stack.urls.intake}${paid.path}`, { method: 'POST', headers: paid.headers, body: paid.body })).status).toBe(202);
    // Poison is retried after the poison backoff (5 s, then 10 s), not waited for: the third receive dead-letters it.
    await stack.queue.settled();
    clock.advance(poisonDeferralSeconds(1) * 1000);
    await stack.queue.settled();
    clock.advance(poisonDeferralSeconds(2) * 1000);
    await stack.queue.settled();

    const dlq = (await (await fetch(`${stack.urls.intake}/__local/dlq`)).json()) as { messages: { event: { orderId: string } }[] };
    expect(dlq.messages.map((m) => m.event.orderId)).toEqual(['5200000000000000001']);
    await emulatorClient({ contracted: true });
    expect((await api.getMemberByExternalId('shopify', '1002')).point).toBe(before);

    const redrive = await fetch(`${stack.urls.intake}/__local/redrive`, { method: 'POST' });
    expect(await redrive.json()).toEqual({ moved: 1 });
    await stack.queue.waitForIdle();
    // bob is gold (0.05): 2000 earns 100.
    expect((await api.getMemberByExternalId('shopify', '1002')).point).toBe(before + 100);
    expect(stack.queue.deadLetters()).toEqual([]);
  });
});

describe('closing the local stack', () => {
  it('frees every port it listened on', async () => {
    const stack = await startLocalStack();
    const ports = [stack.urls.intake, stack.urls.emulator, stack.urls.dynamodb].map((u) => Number(new URL(u).port));
    await stack.close();
    for (const port of ports) {
      await new Promise<void>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});

describe('worker overrides of the local stack', () => {
  it('builds them from the started emulator and dynalite, and the worker uses them', async () => {
    const seen: { emulator?: string; steps: string[] } = { steps: [] };
    const stack = await startLocalStack({
      processOverrides: (started) => {
        seen.emulator = started.urls.emulator;
        return { checkpoint: (step) => void seen.steps.push(step) };
      },
    });
    try {
      const paid = shopifyOrderWebhook(
        'orders/paid',
        'paid',
        { orderId: '5300000000000000001', name: '#5301', customerId: '1003', subtotal: '1000', tax: '100', currency: 'JPY' },
        stack.webhookSecrets.shopify[0]!,
        'override-1',
        Date.now(),
      );
      await fetch(`${stack.urls.intake}${paid.path}`, { method: 'POST', headers: paid.headers, body: paid.body });
      await stack.queue.waitForIdle({ timeoutMs: 10_000 });
      expect(seen.emulator).toBe(stack.urls.emulator);
      expect(seen.steps).toContain('purchase:granted');
    } finally {
      await stack.close();
    }
  });
});
