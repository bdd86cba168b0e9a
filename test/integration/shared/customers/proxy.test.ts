import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/index.js';
import { handleProxyLink, type ProxyLinkDeps, signAppProxyQuery } from '../../../../shared/customers/index.js';
import { clearTokenCache, createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../../support/emulator.js';

const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
const CAROL = '8f6d2c1e-0003-4000-8000-000000000003';
const config = {
  now: '2026-01-15 10:00:00',
  clients: [
    testClient({
      members: [
        { id: ALICE, login_id: 'alice', password: 'pass1234', external_ids: { shopify: '1001' } },
        { id: CAROL, login_id: 'carol', password: 'pass1234' },
      ],
    }),
  ],
};
const SECRET = 'shopify-app-secret-for-tests';
const NOW_MS = Date.parse('2026-01-15T01:00:00Z');
const UPDATE_ROUTE = 'PUT /api/ext/users/{id}';

let emulator: TestEmulator;
let openapi: OpenApiClient;
let linked: { customerId: string; memberId: string }[];

beforeAll(async () => {
  emulator = await startTestEmulator(config);
  openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
  });
});
afterAll(async () => {
  await openapi.close();
  await emulator.close();
});
beforeEach(async () => {
  clearTokenCache();
  await emulator.reset();
  linked = [];
});

const deps = (): ProxyLinkDeps => ({
  secrets: staticWebhookSecrets({ shopify: [SECRET] }),
  source: 'shopify',
  externalKey: 'shopify',
  openapi,
  now: () => NOW_MS,
  onLinked: async (l) => {
    linked.push(l);
  },
});

/** The query Shopify forwards, signed as Shopify signs it (`secret`: the app's, unless forging). */
function proxyQuery(params: Record<string, string>, options: { secret?: string; timestamp?: number } = {}): string {
  const query = new URLSearchParams({
    shop: 'demo-shop.myshopify.com',
    path_prefix: '/apps/points',
    timestamp: String(options.timestamp ?? NOW_MS / 1000),
    ...params,
  });
  query.set('signature', signAppProxyQuery(query, options.secret ?? SECRET));
  return query.toString();
}

async function link(rawQuery: string) {
  const answer = await handleProxyLink({ rawQuery, accept: 'application/json' }, deps());
  return { status: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> };
}

async function holderOf(customerId: string): Promise<string | undefined> {
  try {
    return (await openapi.getMemberByExternalId('shopify', customerId)).id;
  } catch {
    return undefined;
  }
}

describe('linking a shop customer through the App Proxy', () => {
  it('links the logged-in customer to the member whose handover token it carries', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(answer).toEqual({ status: 200, body: { status: 'linked', member: CAROL, changed: true } });
    expect(await holderOf('7001')).toBe(CAROL);
    expect(linked).toEqual([{ source: 'shopify', customerId: '7001', memberId: CAROL }]);
  });

  it('refuses a forged request (wrong secret) with 401 and links nothing', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }, { secret: 'guess' }));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { kind: 'invalid_signature' } });
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('refuses a request with no signature with 401', async () => {
    const answer = await link('logged_in_customer_id=7001&member=x&token=y&timestamp=1768438800');
    expect(answer).toMatchObject({ status: 401, body: { error: { kind: 'missing_signature' } } });
  });

  it('refuses a genuine request older than 5 minutes and links nothing', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }, { timestamp: NOW_MS / 1000 - 301 }));
    expect(answer).toMatchObject({ status: 403, body: { error: { kind: 'stale_timestamp' } } });
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('refuses a visitor who is not logged in to the shop, keeping the token usable', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const anonymous = await link(proxyQuery({ logged_in_customer_id: '', member: CAROL, token }));
    expect(anonymous).toMatchObject({ status: 403, body: { error: { kind: 'not_logged_in' } } });
    // The token was not spent on the refusal: the customer logs in and presses the button again.
    expect((await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }))).status).toBe(200);
  });

  it('refuses a token that is not the member’s and links nothing', async () => {
    const aliceToken = await emulator.handoverToken('test-client', ALICE);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token: aliceToken }));
    expect(answer).toMatchObject({ status: 400, body: { error: { kind: 'invalid_token' } } });
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('refuses a used token', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    await openapi.checkHandoverToken(token, CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(answer).toMatchObject({ status: 400, body: { error: { kind: 'invalid_token' } } });
  });

  it('refuses an expired token with 410', async () => {
    const token = await emulator.handoverToken('test-client', CAROL, 60);
    await emulator.advanceClock(61);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(answer).toMatchObject({ status: 410, body: { error: { kind: 'expired_token' } } });
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('refuses with 409 a shop customer already linked to another member', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '1001', member: CAROL, token }));
    expect(answer).toMatchObject({ status: 409, body: { error: { kind: 'already_linked' } } });
    expect(await holderOf('1001')).toBe(ALICE);
  });

  it('refuses with 409 a member already linked to another shop customer', async () => {
    const token = await emulator.handoverToken('test-client', ALICE);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: ALICE, token }));
    expect(answer).toMatchObject({ status: 409, body: { error: { kind: 'already_linked' } } });
    expect(await holderOf('1001')).toBe(ALICE);
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('answers a repeated link as linked without changing anything, asking for the same crediting again', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    const again = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(again).toEqual({ status: 200, body: { status: 'linked', member: CAROL, changed: false } });
    expect((await emulator.stats('test-client'))?.routes[UPDATE_ROUTE]?.total).toBe(1);
    // The same link twice: one event id, so the queue keeps one, and crediting is exactly once anyway.
    expect(linked).toEqual([
      { source: 'shopify', customerId: '7001', memberId: CAROL },
      { source: 'shopify', customerId: '7001', memberId: CAROL },
    ]);
  });

  it('says to press again when the crediting of earlier purchases cannot be queued, and pressing again queues it', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    const failing: ProxyLinkDeps = {
      ...deps(),
      onLinked: async () => {
        throw new Error('queue unreachable');
      },
    };
    const first = await handleProxyLink({ rawQuery: query, accept: 'application/json' }, failing);
    expect(first.statusCode).toBe(503);
    expect(JSON.parse(first.body)).toEqual({
      error: {
        kind: 'unavailable',
        message: 'your shop account is linked, but crediting your earlier purchases could not be started: press the link button again',
      },
    });
    expect(await holderOf('7001')).toBe(CAROL);
    // The token is used up, but a linked customer is answered before it is checked: the same page works.
    expect(await link(query)).toEqual({ status: 200, body: { status: 'linked', member: CAROL, changed: false } });
    expect(linked).toEqual([{ source: 'shopify', customerId: '7001', memberId: CAROL }]);
  });

  it('links when the update went through but its answer was lost', async () => {
    await emulator.addFault({ method: 'PUT', path: '^/api/ext/users/[^/]+$', fault: 'reset_after_commit', times: 1 });
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(answer).toMatchObject({ status: 200, body: { status: 'linked', changed: true } });
    expect(await holderOf('7001')).toBe(CAROL);
  });

  it('answers a page Shopify can render when JSON is not asked for', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await handleProxyLink(
      { rawQuery: proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }), accept: 'text/html' },
      deps(),
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body).toContain('会員連携が完了しました');
  });
});
