import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, type EmulatorConfig, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { opsCommandOn } from '../../support/local-stack.js';
import { createOpenApiClient, type OpenApiClient, purchaseMarkerOf, staticCredentials } from './customers-support.js';
import { DAY_MS } from '../../../shared/time/index.js';

/** A shop whose membership service names the key `shop_jp` and credits a week back, not the defaults. */
const EXTERNAL_KEY = 'shop_jp';
const RETRO_DAYS = 7;

let stack: LocalStack;
let api: OpenApiClient;

beforeAll(async () => {
  const demo: EmulatorConfig = await loadConfigFile(DEMO_CONFIG_PATH);
  const emulatorConfig = {
    ...demo,
    clients: demo.clients.map((c) => ({ ...c, external_keys: [...c.external_keys, EXTERNAL_KEY] })),
  };
  stack = await startLocalStack({
    emulatorConfig,
    env: { SOURCES_CONFIG: JSON.stringify({ shopify: { externalKey: EXTERNAL_KEY, retroCreditDays: RETRO_DAYS } }) },
  });
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

const command = (...args: string[]) => opsCommandOn(stack, ...args);

async function deliverOrder(orderId: string, customerId: string, purchasedMs: number): Promise<void> {
  const secret = stack.webhookSecrets.shopify[0] ?? '';
  const request = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId, subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
    secret,
    `wh-${orderId}`,
    purchasedMs,
  );
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  expect(res.status).toBe(202);
}

describe("operator commands follow the source's own linking settings (external key, days credited back)", () => {
  it("reprocess credits by the source's external key and within its retroCreditDays unless told otherwise", async () => {
    await deliverOrder('993000000001', '883000000001', Date.now() - (RETRO_DAYS + 1) * DAY_MS);
    await deliverOrder('993000000002', '883000000001', Date.now());
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    const member = await api.registerMember({ external_ids: { [EXTERNAL_KEY]: '883000000001' } });

    expect((await command('reprocess', '--source', 'shopify', '--customer', '883000000001')).text).toContain(
      `their purchases of the last ${RETRO_DAYS} days that found no member`,
    );
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect((await api.listPoints(member.id, { perPage: 1000 })).points.map((p) => p.remarks)).toEqual([
      purchaseMarkerOf('shopify', '993000000002'),
    ]);
    const older = await command('reprocess', '--source', 'shopify', '--customer', '883000000001', '--days', '30');
    expect(older.text).toContain('their purchases of the last 30 days that found no member');
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    const history = await api.listPoints(member.id, { perPage: 1000 });
    expect(history.points.map((p) => p.remarks).sort()).toEqual(
      [purchaseMarkerOf('shopify', '993000000001'), purchaseMarkerOf('shopify', '993000000002')].sort(),
    );
  });

  it("ledger --customer looks the customer up under the source's external key", async () => {
    const shown = await command('ledger', 'shopify', '--customer', '883000000001');
    expect(shown.code).toBe(0);
    expect(shown.text).toContain(`customer shopify 883000000001 (external key ${EXTERNAL_KEY})`);
    expect(shown.text).toMatch(new RegExp(`membership service: member \\S+ holds ${EXTERNAL_KEY}=883000000001`));
  });
});
