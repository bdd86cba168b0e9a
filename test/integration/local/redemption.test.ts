import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import {
  appProxyPath,
  redeemThroughAppProxy,
  shopifyOrderWebhook,
  shopifyRefundCreate,
  type WebhookRequest,
} from '../../../kit/webhooks/index.js';
import { opsCommand } from '../../../ops/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';

/** Redemptions through `npm start`'s stack: the App Proxy routes on its intake, codes used in orders, refunds, the operator's command. */

const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
const BOB = '8f6d2c1e-0002-4000-8000-000000000002';
const ERIN = '8f6d2c1e-0005-4000-8000-000000000005';
let stack: LocalStack;
let api: OpenApiClient;
let webhooks = 0;
let requests = 0;

beforeAll(async () => {
  stack = await startLocalStack({});
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
  for (const id of [ALICE, BOB, ERIN]) await api.grantPoints(id, { point: 1000, title: 'seed' });
});
afterAll(async () => {
  await api.close();
  await stack.close();
});

const secret = () => stack.webhookSecrets.shopify[0] ?? '';
const balance = async (id: string) => (await api.getMember(id)).point;
async function deliver(request: WebhookRequest): Promise<void> {
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  expect(res.status).toBe(202);
  await res.arrayBuffer();
  await stack.queue.waitForIdle({ timeoutMs: 20_000 });
}
const redeem = (customerId: string, points: number) =>
  redeemThroughAppProxy(stack.urls.intake, {
    customerId,
    secret: secret(),
    nowMs: Date.now(),
    points,
    request: `stack-req-${++requests}-x`,
  });
const order = (
  orderId: string,
  customerId: string,
  subtotal: string,
  code: string,
  amount: string,
  lines?: { id: string; quantity: number }[],
) =>
  shopifyOrderWebhook(
    'orders/paid',
    'paid',
    {
      ...(lines ? { lines } : {}),
      orderId,
      name: `#${orderId}`,
      customerId,
      subtotal,
      tax: '0',
      currency: 'JPY',
      taxesIncluded: true,
      discountCodes: [{ code, amount }],
    },
    secret(),
    `wh-red-${++webhooks}`,
    Date.now(),
  );
const refund = (refundId: string, orderId: string, subtotal: string, lines?: { lineItemId: string; quantity: number }[]) =>
  shopifyRefundCreate(
    { refundId, orderId, subtotal, tax: '0', currency: 'JPY', ...(lines ? { lines } : {}) },
    secret(),
    `wh-red-${++webhooks}`,
    Date.now(),
  );

async function command(...args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
  const code = await opsCommand(args, { PORT: new URL(stack.urls.intake).port }, out);
  return { code, text: lines.join('\n') };
}

describe("npm start with a redemption currency that is not the shop's", () => {
  it("refuses to start, saying the shop's currency and the setting to change", async () => {
    const sources = JSON.stringify({ shopify: { redemption: { enabled: true, currency: 'USD' } } });
    await expect(startLocalStack({ env: { SOURCES_CONFIG: sources } })).rejects.toThrow(
      /the shop's currency is JPY but sources\.shopify\.redemption\.currency is USD/,
    );
  });
});

describe("npm start's App Proxy Admin token, derived as deployed", () => {
  /** One GraphQL document to the stand-in with the App Proxy's own token. */
  async function asAppProxy(query: string, variables: Record<string, unknown> = {}) {
    const access = JSON.parse(stack.handlerEnv.LOCAL_APP_PROXY_SHOPIFY_ADMIN ?? '{}') as { origin: string; accessToken: string };
    const res = await fetch(`${access.origin}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': access.accessToken },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] };
  }

  it('holds discount scopes only: it reads codes, and orders are refused ACCESS_DENIED', async () => {
    const scopes = await asAppProxy('{ currentAppInstallation { accessScopes { handle } } }');
    expect(scopes.data).toEqual({
      currentAppInstallation: { accessScopes: [{ handle: 'write_discounts' }, { handle: 'read_discounts' }] },
    });
    const code = await asAppProxy('query ($code: String!) { codeDiscountNodeByCode(code: $code) { id } }', { code: 'PTS-NONE' });
    expect(code).toMatchObject({ data: { codeDiscountNodeByCode: null } });
    const orders = await asAppProxy('{ orders(first: 1, query: "") { nodes { id } } }');
    expect(orders.errors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
  });
});

describe('redemptions under npm start', () => {
  it('answers the points page on the intake as JSON, with the local defaults', async () => {
    const res = await fetch(`${stack.urls.intake}${appProxyPath('points', { customerId: '1001', secret: secret(), nowMs: Date.now() })}`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      redemption: { valuePerPoint: '1', minPoints: 100, step: 1, validSeconds: 2_592_000, currency: 'JPY' },
    });
  });

  it('prints no EMF metric line for the App Proxy’s Open API calls, its handler logs being off (CloudWatch reads them in Lambda only)', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    try {
      const res = await fetch(
        `${stack.urls.intake}${appProxyPath('points', { customerId: '1001', secret: secret(), nowMs: Date.now() })}`,
        {
          headers: { accept: 'application/json' },
        },
      );
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(write.mock.calls.map(([chunk]) => String(chunk)).filter((line) => line.includes('"_aws"'))).toEqual([]);
    } finally {
      write.mockRestore();
    }
  });

  it('answers GET on redeem with 405', async () => {
    const res = await fetch(`${stack.urls.intake}${appProxyPath('redeem', { customerId: '1001', secret: secret(), nowMs: Date.now() })}`);
    await res.arrayBuffer();
    expect(res.status).toBe(405);
  });

  it('marks a redemption used by the order whose discount codes carry it, and the order earns on what was paid', async () => {
    const redeemed = await redeem('1001', 500);
    expect(redeemed.status).toBe(200);
    const code = String(redeemed.body.code);
    await deliver(order('880001', '1001', '9500', code, '500'));
    const [record] = (await stack.redemption?.ledger.list('1001')) ?? [];
    expect(record).toMatchObject({ code, state: 'used', orderId: '880001' });
    // 1000 − 500 redeemed + 1% of the ¥9,500 paid (alice is regular).
    expect(await balance(ALICE)).toBe(595);
  });

  it('gives the redeemed points back once when the order that used the code is refunded in full', async () => {
    const redeemed = await redeem('1002', 300);
    await deliver(order('880002', '1002', '2700', String(redeemed.body.code), '300'));
    const before = await balance(BOB);
    await deliver(refund('990002', '880002', '2700'));
    await deliver(refund('990002', '880002', '2700'));
    const [record] = (await stack.redemption?.ledger.list('1002')) ?? [];
    expect(record).toMatchObject({ state: 'returned', returnReason: 'refunded', returnedPoints: 300 });
    // Bob (gold, 5%) earned 135 on ¥2,700: the refund takes those back and gives the 300 redeemed.
    expect(await balance(BOB)).toBe(before - 135 + 300);
  });

  it('gives nothing back for a partial refund of an order that used a code', async () => {
    const redeemed = await redeem('1005', 200);
    // Two of one line bought, one refunded: a line's quantity is still not refunded.
    await deliver(order('880005', '1005', '5000', String(redeemed.body.code), '200', [{ id: '8800051', quantity: 2 }]));
    await deliver(refund('990005', '880005', '1000', [{ lineItemId: '8800051', quantity: 1 }]));
    const [record] = (await stack.redemption?.ledger.list('1005')) ?? [];
    expect(record?.state).toBe('used');
    // 1000 − 200 + 50 earned − 10 taken back with the refund.
    expect(await balance(ERIN)).toBe(840);
  });

  it('lists a customer’s redemptions with their states through npm run redemptions -- list --customer', async () => {
    const out = await command('redemptions', 'list', '--customer', '1001');
    expect(out.code).toBe(0);
    expect(out.text).toMatch(/1001 .* 500 .* 500 JPY .* PTS-[A-Z0-9]{12} .* used .* 880001/);
    // Created and expiring in Japan time with the offset (shared/time).
    expect(out.text).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\) +1001 .* \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\)$/m,
    );
  });

  it('shows redemptions beside the orders in the operator console', async () => {
    const res = await fetch(`${stack.urls.intake}/__local/console/api/redemptions?customer=1001`);
    const { redemptions } = (await res.json()) as { redemptions: Record<string, unknown>[] };
    expect(res.status).toBe(200);
    expect(redemptions).toEqual([expect.objectContaining({ customer: '1001', points: 500, value: '500', state: 'used', order: '880001' })]);
  });

  it('sweeps now through npm run redemptions -- sweep and prints its summary', async () => {
    const out = await command('redemptions', 'sweep');
    expect(out.code).toBe(0);
    expect(out.text).toMatch(/^redemptions sweep: due=0 returned=0 used=0 failed=0 later=0$/m);
  });
});
