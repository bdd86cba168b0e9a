import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appProxyLinkPath,
  linkThroughAppProxy,
  shopifyPrivacyRequest,
  shopifyCustomerCreated,
  shopifyOrderWebhook,
  type WebhookRequest,
} from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { opsCommandOn } from '../../support/local-stack.js';
import { createOpenApiClient, type OpenApiClient, purchaseMarkerOf, staticCredentials } from './customers-support.js';

let stack: LocalStack;
let api: OpenApiClient;
let webhooks = 0;

beforeAll(async () => {
  // Records kept 700 days (not the default 400): operator commands must process with the stack's settings.
  stack = await startLocalStack({ env: { SHOPIFY_ENROLMENT: 'register', LEDGER_TTL_DAYS: '700' } });
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

const secret = () => stack.webhookSecrets.shopify[0] ?? '';
const order = (orderId: string, customerId: string | null, subtotal = '10000') =>
  shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: `#${orderId}`, customerId, subtotal, tax: '0', currency: 'JPY', taxesIncluded: true },
    secret(),
    `wh-${++webhooks}`,
    Date.now(),
  );

/** `npm run <command> -- …` against this stack. */
const opsCommand = (...args: string[]) => opsCommandOn(stack, ...args);
const ledger = (...args: string[]) => opsCommand('ledger', ...args);

const reprocess = (...args: string[]) => opsCommand('reprocess', ...args);

async function memberOf(customerId: string) {
  try {
    return await api.getMemberByExternalId('shopify', customerId);
  } catch {
    return undefined;
  }
}

async function handoverToken(memberId: string): Promise<string> {
  const res = await fetch(`${stack.urls.emulator}/__emulator/clients/${stack.openApi.clientId}/handover-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ member_id: memberId, ttl_seconds: 600 }),
  });
  return ((await res.json()) as { token: string }).token;
}

/** Both steps, as the customer's browser through the App Proxy: the confirmation (GET), then the confirmed POST. */
async function link(input: { customerId: string; member: string; token: string; secret?: string; nowMs?: number }) {
  const res = await linkThroughAppProxy(stack.urls.intake, { secret: secret(), nowMs: Date.now(), ...input });
  return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
}

async function pointsFor(memberId: string, orderId: string): Promise<number[]> {
  const history = await api.listPoints(memberId, { perPage: 1000 });
  return history.points.filter((p) => p.remarks === purchaseMarkerOf('shopify', orderId)).map((p) => p.point);
}

describe('npm start: customers enrolled, linked and credited for what they bought before', () => {
  it('three deliveries of one customers/create (two at once) register one member, and the next order earns', async () => {
    const created = shopifyCustomerCreated('880000000001', secret(), 'wh-create-1', Date.now());
    const again = { ...created, headers: { ...created.headers, 'x-shopify-webhook-id': 'wh-create-2' } };
    const third = { ...created, headers: { ...created.headers, 'x-shopify-webhook-id': 'wh-create-3' } };
    expect(await Promise.all([post(created), post(again)])).toEqual([202, 202]);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await post(third)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    const member = await memberOf('880000000001');
    expect(member).toBeDefined();
    const all = await api.listMembers({ perPage: 1000 });
    const holders = [];
    for (const m of all.members) if ((await api.getMember(m.id)).external_ids?.shopify === '880000000001') holders.push(m.id);
    expect(holders).toHaveLength(1);

    expect(await post(order('990000000001', '880000000001'))).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await pointsFor(member?.id ?? '', '990000000001')).toEqual([100]);
  });

  it('shows an enrolment with npm run ledger -- shopify --customer: its outcome, its member, nothing waiting', async () => {
    const member = await memberOf('880000000001');
    const shown = await ledger('shopify', '--customer', '880000000001');
    expect(shown.code).toBe(0);
    expect(shown.text).toContain('outcome: enrolled');
    expect(shown.text).toMatch(/ttl: \d+ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d JST \(\+09:00\)\)/); // when the record goes, in Japan time
    expect(shown.text).toContain(`membership service: member ${member?.id} holds shopify=880000000001`);
    expect(shown.text).toContain('orders waiting for this customer (customer_not_found): none');
    const unknown = await ledger('shopify', '--customer', '880000000999');
    expect(unknown.code).toBe(1);
    expect(unknown.text).toContain('no member holds shopify=880000000999 (not linked, not enrolled)');
  });

  it('refuses forged, stale, anonymous and bad-token link requests, linking nothing', async () => {
    const member = await api.registerMember({});
    const token = await handoverToken(member.id);
    expect((await link({ customerId: '880000000002', member: member.id, token, secret: 'forged-secret-of-the-attacker' })).status).toBe(
      401,
    );
    expect((await link({ customerId: '880000000002', member: member.id, token, nowMs: Date.now() - 10 * 60_000 })).status).toBe(403);
    expect((await link({ customerId: '', member: member.id, token })).status).toBe(403);
    expect((await link({ customerId: '880000000002', member: member.id, token: 'not-a-token' })).status).toBe(400);
    expect(await memberOf('880000000002')).toBeUndefined();
  });

  it('a signed shop/redact naming another shop leaves this shop’s customers: npm run ledger prints what it printed before', async () => {
    const before = await ledger('shopify', '--customer', '880000000001');
    expect(before.text).toContain('outcome: enrolled');
    const other = shopifyPrivacyRequest(
      { topic: 'shop/redact', shopDomain: 'other-dev-store.myshopify.com' },
      secret(),
      'wh-other-shop',
      Date.now(),
    );
    expect(await post(other)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect((await ledger('shopify', '--customer', '880000000001')).text).toBe(before.text);
  });

  it('a customers/create replayed after customers/redact brings nothing back: npm run ledger prints what it printed after the redaction', async () => {
    const created = shopifyCustomerCreated('880000000006', secret(), 'wh-create-6', Date.now());
    expect(await post(created)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect((await ledger('shopify', '--customer', '880000000006')).text).toContain('outcome: enrolled');
    const redact = shopifyPrivacyRequest(
      { topic: 'customers/redact', customerId: '880000000006', orderIds: [] },
      secret(),
      'wh-redact-6',
      Date.now(),
    );
    expect(await post(redact)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    const redacted = await ledger('shopify', '--customer', '880000000006');
    expect(redacted.text).toContain('enrolment record: none');
    // The captured delivery, re-sent under another webhook id (the headers are not signed).
    const replay = { ...created, headers: { ...created.headers, 'x-shopify-webhook-id': 'wh-create-6-replayed' } };
    expect(await post(replay)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect((await ledger('shopify', '--customer', '880000000006')).text).toBe(redacted.text);
  });

  it('a link only opened (the GET, as from another site’s page) links nothing; a POST without its confirmation is refused', async () => {
    const member = await api.registerMember({});
    const token = await handoverToken(member.id);
    const path = appProxyLinkPath({ customerId: '880000000004', member: member.id, token, secret: secret(), nowMs: Date.now() });
    const shown = await fetch(`${stack.urls.intake}${path}`, { headers: { accept: 'application/json' } });
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ status: 'confirm' });
    const page = await fetch(`${stack.urls.intake}${path}`);
    expect(await page.text()).toContain('<form method="post"');
    const forged = await fetch(`${stack.urls.intake}${path}`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirm=1999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(forged.status).toBe(403);
    await forged.arrayBuffer();
    expect(await memberOf('880000000004')).toBeUndefined();
    // The token was not used up: the customer's own two steps link.
    expect((await link({ customerId: '880000000004', member: member.id, token })).status).toBe(200);
  });

  it('a genuine link credits the order placed before it, once; a repeated link and a redelivered order add nothing', async () => {
    const before = order('990000000003', '880000000003');
    expect(await post(before)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '990000000003' })).toMatchObject({ outcome: 'customer_not_found' });
    expect((await ledger('shopify', '--customer', '880000000003')).text).toMatch(
      /customer_not_found\):\n {4}990000000003 {2}purchased \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\) {2}customer_not_found/,
    );

    const member = await api.registerMember({});
    const token = await handoverToken(member.id);
    expect(await link({ customerId: '880000000003', member: member.id, token })).toEqual({
      status: 200,
      body: { status: 'linked', member: member.id, changed: true },
    });
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await pointsFor(member.id, '990000000003')).toEqual([100]);
    const linked = await ledger('shopify', '--customer', '880000000003');
    expect(linked.text).toContain(`member ${member.id} holds shopify=880000000003`);
    expect(linked.text).toContain('enrolment record: none');
    expect(linked.text).toContain('(customer_not_found): none');

    expect((await link({ customerId: '880000000003', member: member.id, token })).body).toMatchObject({ changed: false });
    const redelivered = { ...before, headers: { ...before.headers, 'x-shopify-webhook-id': 'wh-redelivered' } };
    expect(await post(redelivered)).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await pointsFor(member.id, '990000000003')).toEqual([100]);
    expect((await api.getMember(member.id)).point).toBe(100);
  });

  it('npm run reprocess -- --customer has the worker credit the earlier orders of a customer linked some other way, once', async () => {
    expect(await post(order('990000000005', '880000000005'))).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    // Linked outside the bridge (the membership service's own screens): no link event, the order still waits.
    const member = await api.registerMember({ external_ids: { shopify: '880000000005' } });
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '990000000005' })).toMatchObject({ outcome: 'customer_not_found' });

    const first = await reprocess('--source', 'shopify', '--customer', '880000000005');
    expect(first).toEqual({
      code: 0,
      text:
        'customer shopify 880000000005: queued for the worker, which credits once each of their purchases of the last 30 days ' +
        'that found no member (npm run ledger -- shopify --customer 880000000005 lists those still waiting)',
    });
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await pointsFor(member.id, '990000000005')).toEqual([100]);
    const credited = await stack.ledger.getOrder({ source: 'shopify', orderId: '990000000005' });
    const keptDays = ((credited?.ttl ?? 0) * 1000 - Date.now()) / 86_400_000;
    expect(keptDays).toBeGreaterThan(699); // the stack's LEDGER_TTL_DAYS, which this command's environment does not name
    expect((await reprocess('--source', 'shopify', '--customer', '880000000005')).code).toBe(0);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect((await api.getMember(member.id)).point).toBe(100);
  });

  it('npm run reprocess refuses a source the stack does not have, crediting nothing', async () => {
    expect(await reprocess('--source', 'shopfy', '--customer', '880000000005')).toEqual({
      code: 2,
      text: expect.stringContaining('no source shopfy is configured here (configured: shopify, pos, square, smaregi)'),
    });
  });

  it('npm run reprocess refuses a missing --customer or a bad --days by name', async () => {
    expect(await reprocess('--source', 'shopify')).toEqual({
      code: 2,
      text: expect.stringContaining('reprocess takes --source <source> --customer <id>'),
    });
    expect(await reprocess('--source', 'shopify', '--customer', '880000000005', '--days', '0')).toEqual({
      code: 2,
      text: expect.stringContaining('--days is a whole number of days, 1 to 365'),
    });
  });

  it('a guest order stays skipped whoever links', async () => {
    expect(await post(order('990000000004', null))).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 20_000 });
    expect(await stack.ledger.getOrder({ source: 'shopify', orderId: '990000000004' })).toMatchObject({
      outcome: 'skipped',
      reason: 'no_customer',
    });
  });
});
