import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/index.js';
import { appProxyMessage, handleProxyLink, type ProxyLinkDeps, signAppProxyQuery } from '../../../../shared/customers/index.js';
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

const deps = (overrides: Partial<ProxyLinkDeps> = {}): ProxyLinkDeps => ({
  secrets: staticWebhookSecrets({ shopify: [SECRET] }),
  source: 'shopify',
  externalKey: 'shopify',
  openapi,
  now: () => NOW_MS,
  onLinked: async (l) => {
    linked.push(l);
  },
  ...overrides,
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

type Json = { status: number; body: Record<string, unknown> };
const asJson = (answer: { statusCode: number; body: string }): Json => ({
  status: answer.statusCode,
  body: JSON.parse(answer.body) as Record<string, unknown>,
});

/** The first step: the signed GET, which links nothing and answers the confirmation. */
async function show(rawQuery: string, options: Partial<ProxyLinkDeps> = {}): Promise<Json> {
  return asJson(await handleProxyLink({ method: 'GET', rawQuery, accept: 'application/json' }, deps(options)));
}

/** The second step: the POST of the signed query with its form body. */
async function confirmWith(rawQuery: string, body: string | undefined, options: Partial<ProxyLinkDeps> = {}): Promise<Json> {
  const request = { method: 'POST', rawQuery, accept: 'application/json', ...(body === undefined ? {} : { body }) };
  return asJson(await handleProxyLink(request, deps(options)));
}

const confirmOf = (shown: Json) => String(shown.body.confirm);

/** Both steps, as the customer's browser makes them: a refused GET is the answer. */
async function link(rawQuery: string, options: Partial<ProxyLinkDeps> = {}): Promise<Json> {
  const shown = await show(rawQuery, options);
  if (shown.status !== 200) return shown;
  return confirmWith(rawQuery, `confirm=${encodeURIComponent(confirmOf(shown))}`, options);
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
    const confirm = confirmOf(await show(query));
    const first = await handleProxyLink(
      { method: 'POST', rawQuery: query, accept: 'application/json', body: `confirm=${confirm}` },
      failing,
    );
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

  it('answers pages Shopify can render when JSON is not asked for: a confirmation form, then the result', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    const shown = await handleProxyLink({ method: 'GET', rawQuery: query, accept: 'text/html' }, deps());
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-type']).toBe('application/liquid');
    // Which membership, masked; a form that POSTs back through the same App Proxy URL.
    const shownText = shown.body.replace(/<[^>]*>/g, ' ');
    expect(shownText).toContain('membership 8f6d…0003');
    expect(shownText).not.toContain(CAROL);
    const action = /<form method="post" action="([^"]+)">/.exec(shown.body)?.[1]?.replaceAll('&#38;', '&');
    expect(action).toBe(`/apps/points/link?token=${encodeURIComponent(token)}&member=${CAROL}`);
    const confirm = /name="confirm" value="([^"]+)"/.exec(shown.body)?.[1] ?? '';
    expect(await holderOf('7001')).toBeUndefined();

    const done = await handleProxyLink({ method: 'POST', rawQuery: query, accept: 'text/html', body: `confirm=${confirm}` }, deps());
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('会員連携が完了しました');
    expect(await holderOf('7001')).toBe(CAROL);
  });
  it('sends anti-framing and nosniff headers on the confirmation page, its JSON and a refusal', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    const answers = [
      await handleProxyLink({ method: 'GET', rawQuery: query, accept: 'text/html' }, deps()),
      await handleProxyLink({ method: 'GET', rawQuery: query, accept: 'application/json' }, deps()),
      await handleProxyLink({ method: 'POST', rawQuery: query, accept: 'text/html', body: 'confirm=forged' }, deps()),
    ];
    for (const answer of answers) {
      expect(answer.headers).toMatchObject({
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      });
    }
  });
});

describe('the link is confirmed by a second step (a link opened from another site links nothing)', () => {
  it('answers the signed GET with a confirmation value and links nothing', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const shown = await show(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
    expect(shown).toEqual({ status: 200, body: { status: 'confirm', confirm: expect.any(String) } });
    expect(confirmOf(shown).length).toBeGreaterThanOrEqual(16);
    expect(await holderOf('7001')).toBeUndefined();
    expect(linked).toEqual([]);
    expect((await emulator.stats('test-client'))?.routes[UPDATE_ROUTE]?.total ?? 0).toBe(0);
  });

  it('refuses a POST without the value, links nothing, and the customer’s own confirmation and token still link', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    const own = confirmOf(await show(query));
    for (const body of [undefined, '', 'confirm=', 'other=1']) {
      expect(await confirmWith(query, body)).toMatchObject({ status: 400, body: { error: { kind: 'invalid_request' } } });
    }
    expect(await holderOf('7001')).toBeUndefined();
    expect(await confirmWith(query, `confirm=${own}`)).toEqual({ status: 200, body: { status: 'linked', member: CAROL, changed: true } });
  });

  it('refuses a made-up value with 403 and links nothing, keeping the token and the own confirmation', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    const own = confirmOf(await show(query));
    const madeUp = `${own.split('.')[0]}.${'A'.repeat(43)}`;
    for (const value of [madeUp, 'x'.repeat(40), `${own}x`]) {
      expect(await confirmWith(query, `confirm=${value}`)).toMatchObject({
        status: 403,
        body: { error: { kind: 'invalid_confirmation' } },
      });
    }
    expect(await holderOf('7001')).toBeUndefined();
    expect((await confirmWith(query, `confirm=${own}`)).status).toBe(200);
  });

  it('refuses the value of another request (the attacker’s own, for another customer) and links nothing', async () => {
    // The attacker (shop customer 7002) opens the link for their member; the victim (7001) is made to POST it.
    const token = await emulator.handoverToken('test-client', CAROL);
    const attackers = confirmOf(await show(proxyQuery({ logged_in_customer_id: '7002', member: CAROL, token })));
    const victims = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    expect(await confirmWith(victims, `confirm=${attackers}`)).toMatchObject({
      status: 403,
      body: { error: { kind: 'invalid_confirmation' } },
    });
    expect(await holderOf('7001')).toBeUndefined();
    // Neither the token nor the attacker's confirmation was used up by the refusal.
    expect((await confirmWith(proxyQuery({ logged_in_customer_id: '7002', member: CAROL, token }), `confirm=${attackers}`)).status).toBe(
      200,
    );
    expect(await holderOf('7002')).toBe(CAROL);
  });

  it('refuses a value made for another member or token', async () => {
    const carols = await emulator.handoverToken('test-client', CAROL);
    const other = await emulator.handoverToken('test-client', CAROL);
    const forOtherToken = confirmOf(await show(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token: other })));
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token: carols });
    expect((await confirmWith(query, `confirm=${forOtherToken}`)).status).toBe(403);
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('refuses a confirmation older than 10 minutes (the POST signed afresh, as Shopify signs each request)', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const own = confirmOf(await show(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token })));
    const later = NOW_MS + 601_000;
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }, { timestamp: later / 1000 });
    expect(await confirmWith(query, `confirm=${own}`, { now: () => later })).toMatchObject({
      status: 403,
      body: { error: { kind: 'invalid_confirmation' } },
    });
    expect(await holderOf('7001')).toBeUndefined();
  });

  it('links on a POST signed afresh (a new timestamp) with the confirmation of a few minutes before', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const own = confirmOf(await show(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token })));
    const later = NOW_MS + 120_000;
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }, { timestamp: later / 1000 });
    expect((await confirmWith(query, `confirm=${own}`, { now: () => later })).status).toBe(200);
  });
});

describe('only the parameters the link takes are accepted after the signature', () => {
  it('refuses a re-split of a genuine signature that names another customer, and links nothing', async () => {
    // The attacker (7002) opens a storefront link with an extra parameter holding the victim's id; Shopify
    // adds the attacker's own logged_in_customer_id and signs it all.
    const token = await emulator.handoverToken('test-client', CAROL);
    const signedAs = new URLSearchParams({
      a: 'AAAlogged_in_customer_id=7005m=x',
      logged_in_customer_id: '7002',
      member: CAROL,
      path_prefix: '/apps/points',
      shop: 'demo-shop.myshopify.com',
      timestamp: String(NOW_MS / 1000),
      token,
    });
    const signature = signAppProxyQuery(signedAs, SECRET);
    // The same bytes split otherwise: a=AAA, logged_in_customer_id=7005 (the victim), m=xlogged_in_customer_id=7002.
    const resplit = new URLSearchParams({
      a: 'AAA',
      logged_in_customer_id: '7005',
      m: 'xlogged_in_customer_id=7002',
      member: CAROL,
      path_prefix: '/apps/points',
      shop: 'demo-shop.myshopify.com',
      timestamp: String(NOW_MS / 1000),
      token,
      signature,
    });
    expect(appProxyMessage(resplit)).toBe(appProxyMessage(signedAs));
    const answer = await link(resplit.toString());
    expect(answer).toMatchObject({ status: 400, body: { error: { kind: 'invalid_request' } } });
    expect(await holderOf('7005')).toBeUndefined();
    expect(await holderOf('7002')).toBeUndefined();
    // The token was not used up.
    expect((await link(proxyQuery({ logged_in_customer_id: '7002', member: CAROL, token }))).status).toBe(200);
  });

  it('refuses a genuinely signed request carrying a parameter the link does not take', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await show(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token, utm_source: 'mail' }));
    expect(answer).toMatchObject({ status: 400, body: { error: { kind: 'invalid_request' } } });
  });

  it('refuses a genuinely signed request whose shop or path_prefix is missing', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    for (const drop of ['shop', 'path_prefix']) {
      const query = new URLSearchParams(proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token }));
      query.delete(drop);
      query.delete('signature');
      query.set('signature', signAppProxyQuery(query, SECRET));
      expect((await show(query.toString())).status).toBe(400);
    }
  });

  it('answers 400, not 503, for a logged_in_customer_id that is not a customer id (`..`), sending nothing upstream', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const answer = await link(proxyQuery({ logged_in_customer_id: '..', member: CAROL, token }));
    expect(answer).toMatchObject({ status: 400, body: { error: { kind: 'invalid_request' } } });
  });

  it('refuses a shop other than the source’s configured shops, and accepts its own', async () => {
    const token = await emulator.handoverToken('test-client', CAROL);
    const own = { shopDomains: ['demo-shop.myshopify.com'] };
    const other = { shopDomains: ['another-shop.myshopify.com'] };
    const query = proxyQuery({ logged_in_customer_id: '7001', member: CAROL, token });
    expect(await show(query, other)).toMatchObject({ status: 400, body: { error: { kind: 'invalid_request' } } });
    expect((await link(query, own)).status).toBe(200);
  });
});
