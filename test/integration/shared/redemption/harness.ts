import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from '../../../../stand-ins/shopify-admin/index.js';
import { signAppProxyQuery } from '../../../../shared/customers/index.js';
import { staticWebhookSecrets } from '../../../../shared/config/index.js';
import {
  createLedgerTable,
  createRedemptionLedger,
  FUNCTION_LEDGER_KEYS,
  guardLeadingKeys,
  type RedemptionLedger,
} from '../../../../shared/ledger/index.js';
import { clearTokenCache, createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { issueRedeemRequest, type RedemptionProxyDeps } from '../../../../shared/redemption/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient } from '../../../../shared/sources/shopify/index.js';
import { RedemptionSettings } from '../../../../shared/sources/index.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../../kit/dynalite.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../../support/emulator.js';

/** A redemption against the real emulator, dynalite and the Admin API stand-in over HTTP. */

export const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
export const BOB = '8f6d2c1e-0002-4000-8000-000000000002';
export const CAROL = '8f6d2c1e-0003-4000-8000-000000000003';
/** The customer of Shopify's published order (test/fixtures/shopify/ruby-api-2024-07-order-test8.json). */
export const DAVE = '8f6d2c1e-0004-4000-8000-000000000004';
export const SECRET = 'shopify-app-secret-for-redemption-tests';
const TOKEN = 'redemption-admin-token';

const config = {
  now: '2026-01-15 10:00:00',
  clients: [
    testClient({
      point_expiry_days: 365,
      members: [
        { id: ALICE, login_id: 'alice', password: 'pass1234', external_ids: { shopify: '1001' } },
        { id: BOB, login_id: 'bob', password: 'pass1234', external_ids: { shopify: '1002' } },
        { id: CAROL, login_id: 'carol', password: 'pass1234' },
        { id: DAVE, login_id: 'dave', password: 'pass1234', external_ids: { shopify: '207119551' } },
      ],
    }),
  ],
};

/**
 * The ledger as the App Proxy's and the sweep's IAM grants let them reach it (dynamodb:LeadingKeys):
 * a key outside their prefixes fails here as it would in production.
 */
const REDEMPTION_KEYS = [...new Set([...FUNCTION_LEDGER_KEYS.shopifyAppProxy, ...FUNCTION_LEDGER_KEYS.sweepRedemptions])];

export interface Harness {
  emulator: TestEmulator;
  dynamo: LocalDynamo;
  shop: ShopifyAdminStandIn;
  openapi: OpenApiClient;
  admin: ShopifyAdminClient;
  ledger: RedemptionLedger;
  /** This test's table (the ledger above's). */
  tableName: string;
  clock: ReturnType<typeof manualClock>;
  /** `earnsLater`: a source earning after payment, whose App Proxy may also read orders (its grant then). */
  deps(
    settings?: Partial<RedemptionSettings>,
    options?: { earnsLater?: boolean; pendingElsewhere?: RedemptionProxyDeps['pendingElsewhere'] },
  ): RedemptionProxyDeps;
  /** The query Shopify forwards, signed as Shopify signs it. */
  signed(customerId: string, extra?: Record<string, string>): string;
  /**
   * The redeem form as the points page issues it to `customerId`: `request=<id>` in `body` becomes the
   * value issued for that id (the record and its markers keep the id).
   */
  form(customerId: string, body: string): string;
  balance(memberId: string): Promise<number>;
  /** History entries whose remarks start with `prefix`. */
  entries(memberId: string, prefix: string): Promise<{ point: number; remarks: string | null }[]>;
}

export function withRedemptionHarness(ready: (h: Harness) => void): void {
  const parts: Partial<Harness> = {};
  let current: Harness | undefined;
  beforeAll(async () => {
    const clock = manualClock();
    const emulator = await startTestEmulator(config);
    const dynamo = await startDynalite();
    const shop = await startShopifyAdminStandIn({ accessToken: TOKEN, now: clock });
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    const admin = createShopifyAdminClient({ shopDomain: 'demo-shop.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
    const ledger = createRedemptionLedger({
      client: guardLeadingKeys(dynamo.documentClient, REDEMPTION_KEYS),
      tableName: dynamo.tableName,
      clock,
      leaseSeconds: 30,
    });
    const h: Harness = {
      emulator,
      dynamo,
      shop,
      openapi,
      admin,
      ledger,
      tableName: dynamo.tableName,
      clock,
      deps: (settings = {}, options = {}) => ({
        source: 'shopify',
        externalKey: 'shopify',
        settings: RedemptionSettings.parse({ enabled: true, ...settings }),
        ...(options.pendingElsewhere ? { pendingElsewhere: options.pendingElsewhere } : {}),
        ...(options.earnsLater || options.pendingElsewhere
          ? {
              earnsLater: options.earnsLater === true,
              ledger: createRedemptionLedger({
                client: guardLeadingKeys(dynamo.documentClient, [...REDEMPTION_KEYS, ...FUNCTION_LEDGER_KEYS.shopifyAppProxyProvisional]),
                tableName: h.tableName,
                clock,
                leaseSeconds: 30,
              }),
            }
          : { ledger: h.ledger }),
        openapi,
        shopify: admin,
        now: clock,
        sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 20))),
        secrets: staticWebhookSecrets({ shopify: [SECRET] }),
      }),
      signed(customerId, extra = {}) {
        const query = new URLSearchParams({
          shop: 'demo-shop.myshopify.com',
          path_prefix: '/apps/points',
          timestamp: String(Math.floor(clock() / 1000)),
          logged_in_customer_id: customerId,
          ...extra,
        });
        query.set('signature', signAppProxyQuery(query, SECRET));
        return query.toString();
      },
      form: (customerId, body) =>
        body.replace(
          /request=([A-Za-z0-9_-]+)/,
          (_, id: string) => `request=${issueRedeemRequest(SECRET, { shop: 'demo-shop.myshopify.com', customerId }, clock(), id)}`,
        ),
      balance: async (memberId) => (await openapi.getMember(memberId)).point,
      async entries(memberId, prefix) {
        const page = await openapi.listPoints(memberId, { perPage: 1000 });
        return page.points.filter((p) => (p.remarks ?? '').startsWith(prefix)).map((p) => ({ point: p.point, remarks: p.remarks ?? null }));
      },
    };
    Object.assign(parts, h);
    current = h;
    ready(h);
  });
  let tables = 0;
  beforeEach(async () => {
    // A table of its own per test: each test's redemptions only (the sweep reads them all).
    const { dynamo, clock } = parts;
    if (dynamo && clock) {
      const tableName = `redemptions-${++tables}`;
      await createLedgerTable(dynamo.client, tableName);
      parts.ledger = createRedemptionLedger({
        client: guardLeadingKeys(dynamo.documentClient, REDEMPTION_KEYS),
        tableName,
        clock,
        leaseSeconds: 30,
      });
      if (current) {
        current.ledger = parts.ledger;
        current.tableName = tableName;
      }
    }
    clearTokenCache();
    await parts.emulator?.reset();
    await parts.emulator?.clearFaults();
    // 1000 points each, expiring in a year (the emulator's default expiry).
    for (const id of [ALICE, BOB]) await parts.openapi?.grantPoints(id, { point: 1000, title: 'seed' });
  });
  afterAll(async () => {
    await parts.openapi?.close();
    await parts.admin?.close();
    await parts.shop?.close();
    await parts.dynamo?.stop();
    await parts.emulator?.close();
  });
}

export type Answer = { status: number; body: Record<string, unknown> };
export const asJson = (a: { statusCode: number; body: string }): Answer => ({
  status: a.statusCode,
  body: JSON.parse(a.body) as Record<string, unknown>,
});
