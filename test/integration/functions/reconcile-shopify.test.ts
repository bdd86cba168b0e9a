import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { depsFromEnv, makeHandler } from '../../../functions/reconcile-shopify.js';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../stand-ins/shopify-admin/index.js';
import type { SecretReader } from '../../../shared/config/secret-reader.js';
import { createShopifyAdminClient } from '../../../shared/sources/shopify/index.js';
import { startDynalite, type LocalDynamo } from '../../../kit/dynalite.js';
import { RecordingQueue } from '../../support/recording-queue.js';

/**
 * The scheduled function as deployed, built from its environment, against the Admin API stand-in
 * over HTTP and the ledger in dynalite. Boundaries that cannot run here: SQS (RecordingQueue),
 * Secrets Manager (a reader answering the token secret's JSON), CloudWatch (a recording metrics sink).
 */

const TOKEN = 'shpat_test_token';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:loyalty-bridge/test/shopify-admin/shopify-AbCdEf';

describe('reconcile-shopify handler', () => {
  let dynamo: LocalDynamo;
  let shop: ShopifyAdminStandIn;
  let queue: RecordingQueue;
  const metrics: { name: string; value: number; dimensions: Record<string, string> }[] = [];
  const logs: { level: string; message: string; extra: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => dynamo?.stop());
  beforeEach(async () => {
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN });
    queue = new RecordingQueue();
    metrics.length = 0;
    logs.length = 0;
  });
  afterEach(async () => shop?.close());

  function handler(secretValue = JSON.stringify({ access_token: TOKEN }), settleMinutes = 0) {
    let dimensions: Record<string, string> = {};
    const secrets: SecretReader = { read: async (id) => (id === SECRET_ARN ? secretValue : Promise.reject(new Error('no such secret'))) };
    const deps = depsFromEnv(
      {
        LEDGER_TABLE: dynamo.tableName,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111111111111/events.fifo',
        RECONCILE_SOURCES: JSON.stringify({
          shopify: { shopDomain: 'test-shop.myshopify.com', accessTokenSecretArn: SECRET_ARN, lookbackHours: 3, settleMinutes },
        }),
      },
      {
        secrets,
        queue,
        metrics: {
          addDimension: (name, value) => {
            dimensions = { ...dimensions, [name]: value };
          },
          addMetric: (name, _unit, value) => metrics.push({ name, value, dimensions }),
          publishStoredMetrics: () => {
            dimensions = {};
          },
        },
        logger: {
          info: (message, extra = {}) => logs.push({ level: 'info', message, extra }),
          warn: (message, extra = {}) => logs.push({ level: 'warn', message, extra }),
          error: (message, extra = {}) => logs.push({ level: 'error', message, extra }),
        },
      },
    );
    // The deployed client reaches https://<shop>; here the same client reaches the stand-in.
    const reachStandIn: typeof deps.adminClient = (source, s) => {
      const deployed = deps.adminClient(source, s);
      void deployed.close();
      return createShopifyAdminClient({
        shopDomain: s.shopDomain,
        origin: shop.url,
        accessToken: async () => JSON.parse(secretValue).access_token,
      });
    };
    return makeHandler({ ...deps, adminClient: reachStandIn });
  }

  const put = (body: string) =>
    fetch(`${shop.url}/__shopify/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('queues the order whose webhook never came and counts it in ReconcileMissing for its source', async () => {
    await put(
      `{"id": 4400000000000000001, "name": "#1", "currency": "JPY", "financial_status": "paid", "created_at": "2026-11-23T00:00:00Z", "customer": {"id": 1001}, "subtotal_price": "5000", "total_tax": "500", "total_price": "5500"}`,
    );
    const result = await handler()({ source: 'shopify' });
    expect(result).toMatchObject({ missing: 1, enqueued: 1 });
    expect(queue.events()).toEqual([
      expect.objectContaining({ type: 'purchase', eventId: 'shopify:order:4400000000000000001', eligibleAmount: 5000 }),
    ]);
    expect(metrics).toEqual([{ name: 'ReconcileMissing', value: 1, dimensions: { source: 'shopify' } }]);
    expect(logs.at(-1)?.message).toBe('reconcile: scanned=1 missing=1 enqueued=1');
  });

  it('gives a missed order that used a code its line items, as its webhook carries them (its code then comes back on a refund of every line)', async () => {
    // Placed before now, its code long gone: stored as Shopify already holds it.
    const res = await fetch(`${shop.url}/__shopify/historical-orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"id": 4400000000000000003, "name": "#3", "currency": "JPY", "financial_status": "paid", "created_at": "2026-11-23T00:00:00Z", "customer": {"id": 1001}, "discount_codes": [{"code": "PTS-RECONCILED"}], "line_items": [{"id": 5500000000000000001, "quantity": 2}, {"id": 5500000000000000002, "quantity": 1}], "subtotal_price": "5000", "total_tax": "500", "total_price": "5500"}`,
    });
    expect(res.status).toBe(201);
    await handler()({ source: 'shopify' });
    expect(queue.events()).toEqual([
      expect.objectContaining({
        eventId: 'shopify:order:4400000000000000003',
        discountCodes: ['PTS-RECONCILED'],
        orderLines: [
          { id: '5500000000000000001', quantity: 2 },
          { id: '5500000000000000002', quantity: 1 },
        ],
      }),
    ]);
  });

  it('reports an order dated more than a day ahead of the clock as a problem and queues nothing', async () => {
    await put(
      `{"id": 4400000000000000009, "name": "#9", "currency": "JPY", "financial_status": "paid", "created_at": "2026-11-23T00:00:00Z", "processed_at": "2099-01-01T00:00:00Z", "customer": {"id": 1001}, "subtotal_price": "5000", "total_tax": "500", "total_price": "5500"}`,
    );
    const result = await handler()({ source: 'shopify' });
    expect(result).toMatchObject({ missing: 0, enqueued: 0, problems: 1 });
    expect(queue.messages).toEqual([]);
  });

  it('leaves out the last settle minutes, whose webhooks may still be in the queue', async () => {
    await put(
      `{"id": 4400000000000000002, "name": "#2", "currency": "JPY", "financial_status": "paid", "created_at": "2026-11-23T00:00:00Z", "customer": {"id": 1001}, "subtotal_price": "5000", "total_tax": "500", "total_price": "5500"}`,
    );
    const result = await handler(undefined, 5)({ source: 'shopify' });
    expect(result).toMatchObject({ scanned: 0, missing: 0 });
    expect(queue.messages).toEqual([]);
  });

  it('reports zero missing when Shopify has nothing the ledger lacks', async () => {
    const result = await handler()({ source: 'shopify' });
    expect(result).toMatchObject({ scanned: 0, missing: 0, enqueued: 0 });
    expect(metrics).toEqual([{ name: 'ReconcileMissing', value: 0, dimensions: { source: 'shopify' } }]);
  });

  it('refuses a schedule input naming a source it does not reconcile, reading nothing', async () => {
    await expect(handler()({ source: 'pos' })).rejects.toThrow('no reconciled Shopify source pos');
    expect(shop.stats().queries).toBe(0);
    expect(queue.messages).toEqual([]);
  });

  it('fails with the secret named, not its value, when the token secret is still empty', async () => {
    const deps = depsFromEnv(
      {
        LEDGER_TABLE: dynamo.tableName,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111111111111/events.fifo',
        RECONCILE_SOURCES: JSON.stringify({
          shopify: { shopDomain: 'test-shop.myshopify.com', accessTokenSecretArn: SECRET_ARN, lookbackHours: 3, settleMinutes: 0 },
        }),
      },
      {
        secrets: { read: async () => JSON.stringify({ access_token: '' }) },
        queue,
        metrics: { addDimension() {}, addMetric() {}, publishStoredMetrics() {} },
        logger: { info() {}, warn() {}, error() {} },
      },
    );
    await expect(makeHandler(deps)({ source: 'shopify' })).rejects.toMatchObject({
      kind: 'invalid_admin_secret',
      message: `secret ${SECRET_ARN} must hold {"client_id": "<Dev Dashboard client id>", "client_secret": "<its secret>"} or {"access_token": "<Admin API access token>"}`,
    });
    expect(queue.messages).toEqual([]);
  });
});
