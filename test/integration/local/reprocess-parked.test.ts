import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopifyOrderWebhook, shopifyRefundCreate, type WebhookRequest } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { opsCommandOn } from '../../support/local-stack.js';
import { createOpenApiClient, type OpenApiClient, purchaseMarkerOf, staticCredentials } from './customers-support.js';

/**
 * `npm run reprocess -- --outcome upstream_rejected` against `npm start`'s stack: purchases parked by a
 * gateway's 403 (the emulator's status fault) go through the queue again once the cause is fixed, and
 * are credited exactly once however often the command runs.
 */
let stack: LocalStack;
let api: OpenApiClient;
let webhooks = 0;

beforeAll(async () => {
  stack = await startLocalStack({});
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

async function post(request: WebhookRequest): Promise<number> {
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  await res.arrayBuffer();
  return res.status;
}
const order = (orderId: string, customerId: string) =>
  shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId, subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
    stack.webhookSecrets.shopify[0] ?? '',
    `wh-parked-${++webhooks}`,
    Date.now(),
  );

async function emulatorAdmin(method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${stack.urls.emulator}/__emulator${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  await res.arrayBuffer();
}
/** A WAF in front of the service refuses every points calculation. */
const wafRefuses = () =>
  emulatorAdmin('POST', '/faults', {
    method: 'POST',
    path: '/points/calculation$',
    fault: 'status',
    status: 403,
    body: '<html><body>Access denied</body></html>',
    headers: { 'content-type': 'text/html' },
    times: 1000,
  });
const wafFixed = () => emulatorAdmin('DELETE', '/faults');

const reprocess = (...args: string[]) => opsCommandOn(stack, 'reprocess', '--outcome', 'upstream_rejected', ...args);
const lastLine = (text: string) => text.split('\n').at(-1);
const idle = () => stack.queue.waitForIdle({ timeoutMs: 20_000 });

async function pointsFor(memberId: string, orderId: string): Promise<number[]> {
  const history = await api.listPoints(memberId, { perPage: 1000 });
  return history.points.filter((p) => p.remarks === purchaseMarkerOf('shopify', orderId)).map((p) => p.point);
}

describe('npm run reprocess -- --outcome upstream_rejected', () => {
  it('queues the purchases a 403 parked, once the cause is fixed, and each is credited exactly once', async () => {
    const member = await api.registerMember({ external_ids: { shopify: '770000000001' } });
    await wafRefuses();
    expect(await post(order('660000000001', '770000000001'))).toBe(202);
    expect(await post(order('660000000002', '770000000001'))).toBe(202);
    await idle();
    for (const orderId of ['660000000001', '660000000002'])
      expect(await stack.ledger.getOrder({ source: 'shopify', orderId })).toMatchObject({ state: 'done', outcome: 'upstream_rejected' });

    const dry = await reprocess('--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.text).toContain('would queue purchase shopify 660000000001');
    expect(lastLine(dry.text)).toBe('reprocess: found=2 queued=0');
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '660000000001' })).toMatchObject({ state: 'done' });

    await wafFixed();
    // Two runs at once: both may queue the same events; the ledger lets each be credited once.
    const [a, b] = await Promise.all([reprocess(), reprocess()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(lastLine(a.text)).toMatch(/^reprocess: found=\d queued=\d$/);
    await idle();
    expect(await pointsFor(member.id, '660000000001')).toEqual([100]);
    expect(await pointsFor(member.id, '660000000002')).toEqual([100]);
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '660000000001' })).toMatchObject({
      state: 'done',
      outcome: 'credited',
    });

    const again = await reprocess();
    expect(lastLine(again.text)).toBe('reprocess: found=0 queued=0');
    expect((await api.getMember(member.id)).point).toBe(200);
  });

  it('keeps to --source and --since', async () => {
    const member = await api.registerMember({ external_ids: { shopify: '770000000002' } });
    await wafRefuses();
    expect(await post(order('660000000003', '770000000002'))).toBe(202);
    await idle();
    await wafFixed();
    expect(lastLine((await reprocess('--source', 'pos')).text)).toBe('reprocess: found=0 queued=0');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(lastLine((await reprocess('--since', future)).text)).toBe('reprocess: found=0 queued=0');
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(lastLine((await reprocess('--source', 'shopify', '--since', past)).text)).toBe('reprocess: found=1 queued=1');
    await idle();
    expect(await pointsFor(member.id, '660000000003')).toEqual([100]);
  });

  it('queues a refund a 403 parked, and it is debited exactly once after the fix', async () => {
    const member = await api.registerMember({ external_ids: { shopify: '770000000003' } });
    expect(await post(order('660000000004', '770000000003'))).toBe(202);
    await idle();
    expect(await pointsFor(member.id, '660000000004')).toEqual([100]);
    // The WAF now refuses the debit (POST /points).
    await emulatorAdmin('POST', '/faults', { method: 'POST', path: '/points$', fault: 'status', status: 403, body: 'denied', times: 1000 });
    const refund = shopifyRefundCreate(
      { refundId: '330000000004', orderId: '660000000004', subtotal: '4000', tax: '0', currency: 'JPY' },
      stack.webhookSecrets.shopify[0] ?? '',
      `wh-parked-${++webhooks}`,
      Date.now(),
    );
    expect(await post(refund)).toBe(202);
    await idle();
    const ref = { source: 'shopify', orderId: '660000000004', refundId: '330000000004' };
    expect(await stack.ledger.getRefund(ref)).toMatchObject({ state: 'parked', outcome: 'upstream_rejected' });
    await wafFixed();
    const run = await reprocess('--source', 'shopify');
    expect(run.text).toContain('queued refund shopify 660000000004 refund 330000000004');
    expect(lastLine(run.text)).toBe('reprocess: found=1 queued=1');
    await idle();
    expect(await stack.ledger.getRefund(ref)).toMatchObject({ state: 'done', outcome: 'debited' });
    expect((await api.getMember(member.id)).point).toBe(60);
    expect(lastLine((await reprocess()).text)).toBe('reprocess: found=0 queued=0');
  });

  it('refuses another outcome, a bad --since and an unknown source by name, queueing nothing', async () => {
    const other = await opsCommandOn(stack, 'reprocess', '--outcome', 'credited');
    expect(other).toEqual({ code: 2, text: expect.stringContaining('--outcome takes upstream_rejected') });
    expect(await reprocess('--since', 'yesterday')).toEqual({
      code: 2,
      text: expect.stringContaining('--since is an ISO date or time, not yesterday'),
    });
    expect(await reprocess('--source', 'shopfy')).toEqual({
      code: 2,
      text: expect.stringContaining('no source shopfy is configured here'),
    });
  });
});
