import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from '../../../../../stand-ins/shopify-admin/index.js';
import { createLedger, type Ledger } from '../../../../../shared/ledger/index.js';
import { createTransport, type Transport } from '../../../../../shared/http-client/index.js';
import { reconcileShopify } from '../../../../../shared/reconcile/index.js';
import {
  type AdminCredentials,
  createAdminAccessToken,
  createShopifyAdminClient,
  ShopifyAdminError,
} from '../../../../../shared/sources/shopify/index.js';
import { loadSources } from '../../../../../shared/sources/index.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../../../kit/dynalite.js';
import { RecordingQueue } from '../../../../support/recording-queue.js';

/**
 * Reconciliation with a Dev Dashboard app's credentials: tokens from the Admin stand-in's
 * client-credentials grant, which expire on the stand-in's clock (the same clock the token source
 * reads), so a run can be made on either side of a renewal.
 */
const SHOP = 'token-shop.myshopify.com';
const TTL_SECONDS = 3600;
const GRANT: AdminCredentials = { kind: 'client_credentials', clientId: 'dev-app', clientSecret: 'dev-app-secret-value' };

describe('reconcile with an expiring client-credentials token', () => {
  const clock = manualClock(Date.parse('2026-11-20T00:00:00Z'));
  let shop: ShopifyAdminStandIn;
  let dynamo: LocalDynamo;
  let ledger: Ledger;
  let orders = 0;

  beforeAll(async () => {
    shop = await startShopifyAdminStandIn({
      accessToken: 'shpat_fixed_legacy_token',
      clientCredentials: { clientId: 'dev-app', clientSecret: 'dev-app-secret-value', tokenTtlSeconds: TTL_SECONDS },
      now: clock,
    });
    dynamo = await startDynalite();
    ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
  });
  afterAll(async () => {
    await shop?.close();
    await dynamo?.stop();
  });
  beforeEach(() => {
    shop.setBucket({ currentlyAvailable: 2000 });
  });

  /** A paid order Shopify holds but never delivered, updated now. */
  const putOrder = async () => {
    orders += 1;
    const res = await fetch(`${shop.url}/__shopify/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"id": 63000000000000000${String(orders).padStart(2, '0')}, "name": "#T${orders}", "currency": "JPY", "financial_status": "paid", "created_at": "${new Date(clock()).toISOString()}", "customer": {"id": 1001}, "subtotal_price": "1000", "total_tax": "0", "total_price": "1000"}`,
    });
    expect(res.status).toBe(201);
  };
  const reconcileWith = async (token: ReturnType<typeof createAdminAccessToken>) => {
    const client = createShopifyAdminClient({
      shopDomain: SHOP,
      origin: shop.url,
      accessToken: () => token.get(),
      accessTokenRejected: (t) => token.rejected(t),
    });
    const queue = new RecordingQueue();
    try {
      const result = await reconcileShopify(
        { client, ledger, source: loadSources(undefined).get('shopify')!, shopDomain: SHOP, queue, now: () => new Date(clock()) },
        { since: new Date(clock() - 500), until: new Date(clock() + 500), dryRun: false },
      );
      return { result, queued: queue.messages.length };
    } finally {
      await client.close();
    }
  };
  const tokenSource = (credentials: AdminCredentials = GRANT) =>
    createAdminAccessToken({ shopDomain: SHOP, origin: shop.url, credentials: async () => credentials, now: clock });

  it('renews the token before it expires: the run after the expiry is answered, with one grant more', async () => {
    const token = tokenSource();
    const grantsBefore = shop.tokens!.grants();
    await putOrder();
    expect((await reconcileWith(token)).queued).toBe(1);
    expect(shop.tokens!.grants()).toBe(grantsBefore + 1);

    clock.advance((TTL_SECONDS + 60) * 1000);
    await putOrder();
    const afterExpiry = await reconcileWith(token);
    expect(afterExpiry.result).toMatchObject({ scanned: 1, missing: 1, enqueued: 1, problems: 0 });
    expect(shop.tokens!.grants()).toBe(grantsBefore + 2);
  });

  it('keeps using a granted token while it is fresh: a second run asks for no new one', async () => {
    const token = tokenSource();
    await reconcileWith(token);
    const grants = shop.tokens!.grants();
    clock.advance(60_000);
    await reconcileWith(token);
    expect(shop.tokens!.grants()).toBe(grants);
  });

  it('renews at once when Shopify refuses a token it issued (401), and the run still completes', async () => {
    const token = tokenSource();
    await reconcileWith(token);
    const grants = shop.tokens!.grants();
    shop.tokens!.revokeAll();
    clock.advance(1000);
    await putOrder();
    expect((await reconcileWith(token)).result).toMatchObject({ missing: 1, enqueued: 1, problems: 0 });
    expect(shop.tokens!.grants()).toBe(grants + 1);
  });

  it('still works with a fixed shpat_ token', async () => {
    clock.advance(1000);
    await putOrder();
    const fixed = tokenSource({ kind: 'token', accessToken: 'shpat_fixed_legacy_token' });
    expect((await reconcileWith(fixed)).result).toMatchObject({ missing: 1, enqueued: 1 });
  });

  it('asks for the grant through the HTTP transport it is given (shared/http-client)', async () => {
    const real = createTransport();
    const sent: string[] = [];
    const transport: Transport = {
      send: (req) => {
        sent.push(`${req.method} ${req.origin}${req.path}`);
        return real.send(req);
      },
      close: () => real.close(),
    };
    try {
      const token = createAdminAccessToken({ shopDomain: SHOP, origin: shop.url, credentials: async () => GRANT, now: clock, transport });
      expect(await token.get()).not.toBe('');
      expect(sent).toEqual([`POST ${shop.url}/admin/oauth/access_token`]);
    } finally {
      await transport.close();
    }
  });

  it('gets a granted token without the global fetch', async () => {
    const globalFetch = globalThis.fetch;
    globalThis.fetch = () => Promise.reject(new Error('global fetch used'));
    try {
      expect(await tokenSource().get()).not.toBe('');
    } finally {
      globalThis.fetch = globalFetch;
    }
  });

  it('says the grant was refused, without the secret, when the client secret is wrong', async () => {
    const wrong = tokenSource({ kind: 'client_credentials', clientId: 'dev-app', clientSecret: 'not-the-secret-value' });
    const error = await reconcileWith(wrong).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyAdminError);
    expect(error).toMatchObject({ kind: 'unauthorized', status: 400 });
    expect(String((error as Error).message)).not.toContain('not-the-secret-value');
  });
});
