import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCommand } from '../../../ops/index.js';
import { shopifyOrderWebhook, shopifyPrivacyRequest, type WebhookRequest } from '../../../kit/webhooks/index.js';
import { handleOf, type LocalStack, startLocalStack } from '../../../local/index.js';
import { createPrivacyRequests } from '../../../shared/privacy/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from './customers-support.js';

/**
 * Shopify's privacy requests through `npm start` with its defaults: signed like every Shopify delivery,
 * answered at once, acted on by the worker, and shown by `npm run privacy` and `npm run ledger`.
 */
let stack: LocalStack;
let api: OpenApiClient;
const MEMBER_CUSTOMER = '770000000001';
const WAITING_CUSTOMER = '770000000002';
const CREDITED_ORDER = '990000000101';
const WAITING_ORDER = '990000000102';

const secret = () => stack.webhookSecrets.shopify[0] ?? '';
async function post(request: WebhookRequest, body = request.body): Promise<{ status: number; answer: Record<string, unknown> }> {
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body });
  return { status: res.status, answer: (await res.json()) as Record<string, unknown> };
}
async function cli(...args: string[]) {
  const lines: string[] = [];
  const code = await cliCommand(
    args,
    { PORT: new URL(stack.urls.intake).port },
    { print: (l) => lines.push(l), printError: (l) => lines.push(l) },
  );
  return { code, lines, text: lines.join('\n') };
}
const settle = () => stack.queue.waitForIdle({ timeoutMs: 20_000 });
const order = (orderId: string, customerId: string) =>
  shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId, subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
    secret(),
    `wh-order-${orderId}`,
    Date.now(),
  );

beforeAll(async () => {
  stack = await startLocalStack();
  api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
  await api.registerMember({ external_ids: { shopify: MEMBER_CUSTOMER } });
  expect((await post(order(CREDITED_ORDER, MEMBER_CUSTOMER))).status).toBe(202);
  expect((await post(order(WAITING_ORDER, WAITING_CUSTOMER))).status).toBe(202);
  await settle();
});
afterAll(async () => {
  await api?.close();
  await stack?.close();
});

describe("npm start: Shopify's privacy requests", () => {
  it('answers a forged customers/redact 401 and changes nothing', async () => {
    const request = shopifyPrivacyRequest(
      { topic: 'customers/redact', customerId: MEMBER_CUSTOMER, orderIds: [CREDITED_ORDER] },
      secret(),
      'wh-p-0',
      Date.now(),
    );
    expect((await post(request, request.body.replace('954889', '954880'))).status).toBe(401);
    await settle();
    expect((await stack.ledger.getOrder({ source: 'shopify', orderId: CREDITED_ORDER }))?.externalId).toBe(MEMBER_CUSTOMER);
    expect((await cli('privacy', 'list')).lines.at(-1)).toBe('privacy: requests=0');
  });

  it('reports what is held for a customer on customers/data_request, shown by npm run privacy -- show', async () => {
    const request = shopifyPrivacyRequest(
      { topic: 'customers/data_request', customerId: MEMBER_CUSTOMER, orderIds: [CREDITED_ORDER], requestId: '9999' },
      secret(),
      'wh-p-1',
      Date.now(),
    );
    expect(await post(request)).toMatchObject({
      status: 202,
      answer: { status: 'accepted', eventId: 'shopify:privacy:report_customer:wh-p-1' },
    });
    await settle();
    const shown = await cli('privacy', 'show', 'shopify:privacy:report_customer:wh-p-1');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.text)).toMatchObject({
      topic: 'customers/data_request',
      requestId: '9999',
      outcome: 'reported',
      report: { customerId: MEMBER_CUSTOMER, orders: [{ orderId: CREDITED_ORDER, outcome: 'credited', points: 100 }] },
    });
    expect(shown.text).not.toContain('customer@example.com');
  });

  it('removes the shop customer id on customers/redact: npm run ledger shows the order, its points and no customer id', async () => {
    const request = shopifyPrivacyRequest(
      { topic: 'customers/redact', customerId: MEMBER_CUSTOMER, orderIds: [CREDITED_ORDER] },
      secret(),
      'wh-p-2',
      Date.now(),
    );
    expect((await post(request)).status).toBe(202);
    await settle();
    const ledger = await cli('ledger', 'shopify', CREDITED_ORDER);
    expect(ledger.code).toBe(0);
    expect(ledger.text).toContain('outcome: credited');
    expect(ledger.text).toContain('redactedAt:');
    expect(ledger.text).not.toContain(MEMBER_CUSTOMER);
    // The member's history still shows the order's points: the books stay.
    expect(ledger.text).toMatch(/\+100/);
  });

  it('removes every shop customer id of the shop on shop/redact, the waiting order included, and lists all three requests', async () => {
    expect((await post(shopifyPrivacyRequest({ topic: 'shop/redact' }, secret(), 'wh-p-3', Date.now()))).status).toBe(202);
    await settle();
    const waiting = await stack.ledger.getOrder({ source: 'shopify', orderId: WAITING_ORDER });
    expect(waiting).toMatchObject({ outcome: 'customer_not_found' });
    expect(waiting?.externalId).toBeUndefined();
    expect(waiting?.purchaseEvent).toBeUndefined();
    const listed = await cli('privacy', 'list');
    expect(listed.lines.at(-1)).toBe('privacy: requests=3');
    expect(listed.text).toMatch(/shopify:privacy:redact_shop:wh-p-3 {2}shop\/redact {2}demo-shop\.myshopify\.com {2}redacted /);
  });

  it('prints a stored shop domain holding terminal escapes (ESC, BEL) without them: npm run privacy -- list', async () => {
    const { documentClient: client } = handleOf(stack);
    const requests = createPrivacyRequests({ client, tableName: stack.tableName, clock: Date.now });
    // As a request stored before shop_domain was checked as a host name.
    const shopDomain = 'evil\u001b]0;owned\u0007\u001b[2J.myshopify.com';
    const figures = { orders: 0, refunds: 0, customers: 0, quarantined: 0 };
    const record = { id: 'shopify:privacy:redact_shop:wh-esc', source: 'shopify', action: 'redact_shop' as const, topic: 'shop/redact' };
    await requests.save({ ...record, shopDomain, orderIds: [], finishedAt: new Date().toISOString(), outcome: 'redacted', figures }, 1);
    const listed = await cli('privacy', 'list');
    expect(listed.text).toContain('shopify:privacy:redact_shop:wh-esc  shop/redact  evil]0;owned[2J.myshopify.com  redacted');
    expect([...listed.text].filter((c) => c !== '\n' && c !== '\t' && (c < ' ' || c === '\u007f'))).toEqual([]);
  });
});
