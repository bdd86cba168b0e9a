import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depsFromEnv as workerDeps, makeHandler as makeWorker } from '../../../functions/process-events.js';
import { depsFromEnv as intakeDeps, makeHandler as makeIntake } from '../../../functions/receive-webhook.js';
import { createLocalQueue, type LocalQueue } from '../../../local/queue/index.js';
import { asApiGatewayEvent, shopifyOrderWebhook, shopifyRefundCreate, type WebhookRequest } from '../../../kit/webhooks/index.js';
import { createActivityReader } from '../../../shared/activity/index.js';
import { type LocalDynamo, startDynalite } from '../../../kit/dynalite.js';
import { startWriteCounter, type WriteCounter } from '../../../kit/dynamo-writes.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../support/emulator.js';

/**
 * What production pays in DynamoDB writes, counted at the wire (a proxy in front of dynalite): intake
 * and the worker built from the environment the stack gives them, the activity record included
 * (ACTIVITY_TABLE set on both). A happy-path purchase is 2 writes and 2 Open API calls in all, intake
 * writes nothing, and the console still shows the order's delivery, calls and receive.
 */
const SECRET = 'production-writes-shopify-secret';
const CLIENT_ID = 'test-client';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

describe('production writes per event (stack environment, activity record on)', () => {
  let emulator: TestEmulator;
  let dynamo: LocalDynamo;
  let counter: WriteCounter;
  let queue: LocalQueue;
  let intake: ReturnType<typeof makeIntake>;
  const stamp = new Date().toISOString().slice(0, 19).replace('T', ' ');

  beforeAll(async () => {
    emulator = await startTestEmulator({
      now: stamp,
      clients: [
        testClient({ members: [{ id: 'm-1', login_id: 'm1', password: 'pass1234', rank: 'gold', external_ids: { shopify: '7001' } }] }),
      ],
    });
    dynamo = await startDynalite();
    counter = await startWriteCounter(dynamo.endpoint);
    // As infra/config/derived.ts and the stack set them (the Open API login from the environment: Secrets Manager cannot run here).
    const env = {
      LEDGER_TABLE: dynamo.tableName,
      ACTIVITY_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: counter.endpoint,
      AWS_REGION: 'ap-northeast-1',
      OPENAPI_BASE_URL: emulator.url,
      OPENAPI_CLIENT_ID: CLIENT_ID,
      OPENAPI_CLIENT_SECRET: 'test-secret',
      SHOPIFY_WEBHOOK_SECRETS: SECRET,
      POWERTOOLS_METRICS_NAMESPACE: 'test',
    };
    queue = createLocalQueue();
    intake = makeIntake(intakeDeps(env, { queue, logger: quiet, recordDelivery: () => undefined }));
    const worker = makeWorker(workerDeps(env, { logger: quiet, metrics: quietMetrics }));
    queue.start((event: SQSEvent) => worker(event));
  });
  afterAll(async () => {
    await queue.close();
    await counter.close();
    await dynamo.stop();
    await emulator.close();
  });

  const post = async (w: WebhookRequest) => (await intake(asApiGatewayEvent(w))).statusCode;
  const order = (id: string) =>
    shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: id, name: `#${id}`, customerId: '7001', subtotal: '1000', tax: '100', currency: 'JPY' },
      SECRET,
      `w-${id}`,
      Date.now(),
    );
  const calls = async () => {
    const stats = await emulator.stats(CLIENT_ID);
    return Object.entries(stats?.routes ?? {}).reduce((sum, [route, s]) => (route.includes('/token') ? sum : sum + s.total), 0);
  };

  it('accepts a delivery with no DynamoDB write of its own', async () => {
    await queue.pause();
    counter.reset();
    expect(await post(order('9000000000000000001'))).toBe(202);
    expect(counter.total()).toBe(0);
    await queue.resume();
    await queue.waitForIdle();
  });

  it('credits a purchase with 2 DynamoDB writes (a put and an update) and 2 Open API calls in all', async () => {
    counter.reset();
    const before = await calls();
    expect(await post(order('9000000000000000002'))).toBe(202);
    await queue.waitForIdle();
    expect(counter.writes()).toEqual({ PutItem: 1, UpdateItem: 1 });
    expect((await calls()) - before).toBe(2);
  });

  it("still shows the order's delivery, calls and receive to the console", async () => {
    const activity = await createActivityReader(dynamo.documentClient, dynamo.tableName).order('shopify', '9000000000000000002');
    expect(activity.entries.map((e) => e.type)).toEqual(['delivery', 'call', 'receive']);
    expect(activity.entries[0]).toMatchObject({ deliveryId: 'w-9000000000000000002', topic: 'orders/paid', status: 202 });
    expect(activity.entries[1]).toMatchObject({
      operation: 'calculatePoints',
      marker: 'lp1:shopify:order:9000000000000000002',
      result: 'ok',
    });
    expect(activity.entries[2]).toMatchObject({ outcome: 'credited', action: 'ack', receiveCount: 1 });
  });

  it("debits a refund with no write beyond the ledger's own four, its activity carried by them", async () => {
    counter.reset();
    const refund = shopifyRefundCreate(
      { refundId: '9100000000000000001', orderId: '9000000000000000002', subtotal: '500', tax: '50', currency: 'JPY' },
      SECRET,
      'w-refund-1',
      Date.now(),
    );
    expect(await post(refund)).toBe(202);
    await queue.waitForIdle();
    expect(counter.total()).toBe(4);
    const activity = await createActivityReader(dynamo.documentClient, dynamo.tableName).order('shopify', '9000000000000000002');
    const ofRefund = activity.entries.filter((e) => e.refundId === '9100000000000000001').map((e) => e.type);
    expect(ofRefund).toEqual(['delivery', 'call', 'receive']);
  });
});
