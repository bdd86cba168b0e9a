import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJst } from '../../../shared/time/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { opsCommandOn } from '../../support/local-stack.js';
import { createOpenApiClient, type OpenApiClient, purchaseMarkerOf, staticCredentials } from './customers-support.js';

/**
 * `npm run pause` / `npm run resume` against `npm start`'s stack (no --stage): pulling stops for a
 * planned maintenance while intake keeps accepting, the console says so and since when, and the
 * queued events are credited once pulling runs again.
 */
let stack: LocalStack;
let api: OpenApiClient;

beforeAll(async () => {
  stack = await startLocalStack({});
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

const deliver = async (orderId: string, customerId: string) => {
  const r = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId, subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
    stack.webhookSecrets.shopify[0] ?? '',
    `wh-pause-${orderId}`,
    Date.now(),
  );
  const res = await fetch(`${stack.urls.intake}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
  await res.arrayBuffer();
  return res.status;
};
const consoleStatus = async () => {
  const res = await fetch(`${stack.urls.intake}/__local/console/api/status`);
  return (await res.json()) as { pulling: { state: string; planned?: { since: string; until?: string } } };
};
const credited = async (memberId: string, orderId: string) =>
  (await api.listPoints(memberId, { perPage: 1000 })).points
    .filter((p) => p.remarks === purchaseMarkerOf('shopify', orderId))
    .map((p) => p.point);

describe('npm run pause / resume against npm start', () => {
  it('stops pulling while intake accepts, shows the pause in the console, and credits the queued orders once resumed', async () => {
    const member = await api.registerMember({ external_ids: { shopify: '550000000001' } });
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const paused = await opsCommandOn(stack, 'pause', '--until', until);
    expect(paused.code).toBe(0);
    // Printed for a person: its times in Japan time with the offset (shared/time).
    expect(paused.text.split('\n').at(-1)).toMatch(/^pulling: paused since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\) until /);
    expect(
      paused.text
        .split('\n')
        .at(-1)
        ?.endsWith(` until ${formatJst(until)}`),
    ).toBe(true);
    expect(await stack.queue.isPaused()).toBe(true);

    const status = await consoleStatus();
    expect(status.pulling).toMatchObject({ state: 'paused', planned: { until } });
    expect(Date.parse(status.pulling.planned?.since ?? '')).toBeLessThanOrEqual(Date.now());

    for (const id of ['440000000001', '440000000002', '440000000003']) expect(await deliver(id, '550000000001')).toBe(202);
    expect(stack.queue.stats().visible).toBeGreaterThanOrEqual(3);
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '440000000001' })).toBeUndefined();

    const resumed = await opsCommandOn(stack, 'resume');
    expect(resumed).toEqual({ code: 0, text: `resumed: paused since ${formatJst(status.pulling.planned!.since)}\npulling: running` });
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    for (const id of ['440000000001', '440000000002', '440000000003']) expect(await credited(member.id, id)).toEqual([100]);
    expect((await consoleStatus()).pulling).toEqual({ state: 'running' });
  });

  it('refuses an --until in the past or unreadable, and --until on resume, pausing nothing', async () => {
    expect(await opsCommandOn(stack, 'pause', '--until', '2020-01-01T00:00:00Z')).toEqual({
      code: 2,
      text: expect.stringContaining('--until 2020-01-01T00:00:00Z is not in the future'),
    });
    expect(await opsCommandOn(stack, 'pause', '--until', 'tonight')).toEqual({
      code: 2,
      text: expect.stringContaining('--until is an ISO date or time'),
    });
    expect(await opsCommandOn(stack, 'resume', '--until', '2099-01-01T00:00:00Z')).toEqual({
      code: 2,
      text: expect.stringContaining('--until goes with pause'),
    });
    expect(await stack.queue.isPaused()).toBe(false);
  });
});
