import { performance } from 'node:perf_hooks';
import type { SQSEvent } from 'aws-lambda';
import { startEmulator } from '../stand-ins/openapi/index.js';
import { depsFromEnv as workerDeps, makeHandler as makeWorker, type ProcessEventsOverrides } from '../functions/process-events.js';
import { depsFromEnv as intakeDeps, makeHandler as makeIntake } from '../functions/receive-webhook.js';
import { receiverEnvironment, stageSources, workerEnvironment } from '../infra/config/derived.js';
import { loadStageConfig } from '../infra/config/load.js';
import { INFRA_DIR } from '../infra/paths.js';
import { createLocalQueue, type LocalQueue, startLocalStack } from '../local/index.js';
import { asApiGatewayEvent, shopifyOrderWebhook, shopifyRefundCreate, type WebhookRequest } from '../kit/webhooks/index.js';
import { ENV } from '../shared/config/index.js';
import type { EventQueue } from '../shared/queue/index.js';
import { startDynalite } from '../kit/dynalite.js';
import { startWriteCounter } from '../kit/dynamo-writes.js';
import { deliverSmaregi } from '../kit/smaregi.js';

/**
 * What production pays per event, with the wiring the stack deploys: intake and the worker built by
 * their own `depsFromEnv` from the environment the production stage gives them
 * (infra/config/derived.ts, plus ACTIVITY_TABLE on the worker, as infra/stacks/integration-stack.ts
 * adds it). Only what cannot run here is swapped: SQS (the local queue), Secrets Manager (the webhook
 * secret and the Open API login from the environment). DynamoDB requests go through a counting proxy
 * in front of dynalite, which asks each write for its consumed capacity (AWS's write units: 1 KB each,
 * the larger of the item before and after). Upstream calls are the emulator's own counts, token
 * requests apart. Also the Smaregi fan-out: one delivery naming 1,000 transactions, answered by
 * `npm start`'s stack (worker running) and by the intake handler with a modelled SQS round trip per
 * SendMessageBatch call.
 */

const SECRET = 'bench-production-shopify-secret';
const CLIENT = { id: 'bench-production', secret: 'bench-production-secret' };
const MEMBER_EXTERNAL_ID = '7001';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
/** A SendMessageBatch round trip in the region (SQS p50 is in the tens of ms): the AWS model of the fan-out. */
export const SQS_BATCH_ROUND_TRIP_MS = 25;

/** The worker's environment as the production stack sets it, pointed at `tableName`. */
export function productionWorkerEnv(tableName: string): Record<string, string> {
  const stage = loadStageConfig(INFRA_DIR, 'production');
  return {
    ...workerEnvironment(stage, { tableName, openApiSecretArn: 'arn:aws:secretsmanager:ap-northeast-1:000000000000:secret:bench' }),
    [ENV.ACTIVITY_TABLE]: tableName,
  };
}

/** The worker as production builds it (its DynamoDB client and Open API client may be the bench's own, to count and time them). */
export function productionWorker(tableName: string, overrides: ProcessEventsOverrides) {
  return makeWorker(workerDeps(productionWorkerEnv(tableName), { logger: quiet, metrics: quietMetrics, ...overrides }));
}

export interface ProductionFigures {
  worker: {
    purchases: number;
    refunds: number;
    dynamoWritesPerPurchase: number;
    /**
     * Requests to the upstream budget's counters (shared/upstream) per purchase, apart from the ledger's
     * writes: one lease per 20-50 calls of each endpoint. Over every purchase of the run (2n+1, the
     * warm-up's included), so a cold container's first, smaller slices and its token's lease count too:
     * a window of n purchases alone may hold no lease at all.
     */
    limiterRequestsPerPurchase: number;
    upstreamCallsPerPurchase: number;
    writeUnitsPerPurchase: number;
    dynamoWritesPerRefund: number;
    upstreamCallsPerRefund: number;
    writeUnitsPerRefund: number;
    /** Writes by operation over the purchases. */
    purchaseOperations: Record<string, number>;
  };
  intake: { deliveries: number; dynamoWritesPerDelivery: number };
  smaregiFanOut: {
    ids: number;
    /** `npm start`'s stack (startLocalStack), worker running: POST to the 2xx. */
    localMs: number;
    localStatus: number;
    /** The intake handler alone with SQS modelled: each SendMessageBatch call waits SQS_BATCH_ROUND_TRIP_MS. */
    awsModelMs: number;
    batchCalls: number;
    sqsBatchRoundTripMs: number;
  };
}

export async function runProductionBench(options: { purchases?: number } = {}): Promise<ProductionFigures> {
  const purchases = options.purchases ?? 20;
  const [cost, smaregiFanOut] = [await measureCost(purchases), await measureFanOut()];
  return { ...cost, smaregiFanOut };
}

async function measureCost(n: number): Promise<Omit<ProductionFigures, 'smaregiFanOut'>> {
  const emulator = await startBenchEmulator();
  const dynamo = await startDynalite('bench-production-ledger');
  const counter = await startWriteCounter(dynamo.endpoint);
  let queue: LocalQueue | undefined;
  try {
    const wire = { [ENV.DYNAMODB_ENDPOINT]: counter.endpoint, AWS_REGION: 'ap-northeast-1' };
    const login = { [ENV.OPENAPI_BASE_URL]: emulator.url, [ENV.OPENAPI_CLIENT_ID]: CLIENT.id, [ENV.OPENAPI_CLIENT_SECRET]: CLIENT.secret };
    // The worker: the stack's environment, its login from the environment (Secrets Manager cannot run here).
    const { [ENV.OPENAPI_SECRET_ARN]: _arn, ...workerEnv } = productionWorkerEnv(dynamo.tableName);
    const worker = makeWorker(workerDeps({ ...workerEnv, ...wire, ...login }, { logger: quiet, metrics: quietMetrics }));
    queue = createLocalQueue();
    queue.start((event: SQSEvent) => worker(event));
    const intake = productionIntake(queue, wire);
    const calls = () => emulatorCalls(emulator.url);
    const shop = productionShop();
    const order = (i: number) => benchOrder(shop, i);
    // Warm-up: the token, the pools, the SDK.
    await intake(order(0));
    await queue.waitForIdle();

    // Intake alone: the worker paused, so only intake's requests reach DynamoDB.
    await queue.pause();
    let limiterRequests = counter.limiterRequests();
    counter.reset();
    for (let i = 1; i <= n; i += 1) await intake(order(i));
    const intakeWrites = counter.total();
    await queue.resume();
    await queue.waitForIdle();
    limiterRequests += counter.limiterRequests();

    // Purchases, one at a time, each through intake, the queue and the worker.
    counter.reset();
    let before = await calls();
    for (let i = n + 1; i <= 2 * n; i += 1) {
      await intake(order(i));
      await queue.waitForIdle();
    }
    const purchaseWrites = counter.total();
    limiterRequests += counter.limiterRequests();
    const purchaseUnits = counter.writeUnits();
    const purchaseOperations = counter.writes();
    const purchaseCalls = (await calls()) - before;

    // A partial refund of each of those orders.
    counter.reset();
    before = await calls();
    for (let i = n + 1; i <= 2 * n; i += 1) {
      const refund = shopifyRefundCreate(
        {
          refundId: String(9_100_000_000_000_000_000n + BigInt(i)),
          orderId: String(9_000_000_000_000_000_000n + BigInt(i)),
          subtotal: '300',
          tax: '30',
          currency: 'JPY',
        },
        SECRET,
        `bench-r-${i}`,
        Date.now(),
        { shopDomain: shop },
      );
      await intake(refund);
      await queue.waitForIdle();
    }
    const per = (x: number) => Math.round((x / n) * 100) / 100;
    return {
      worker: {
        purchases: n,
        refunds: n,
        dynamoWritesPerPurchase: per(purchaseWrites),
        limiterRequestsPerPurchase: Math.round((limiterRequests / (2 * n + 1)) * 100) / 100,
        upstreamCallsPerPurchase: per(purchaseCalls),
        writeUnitsPerPurchase: per(purchaseUnits),
        dynamoWritesPerRefund: per(counter.total()),
        upstreamCallsPerRefund: per((await calls()) - before),
        writeUnitsPerRefund: per(counter.writeUnits()),
        purchaseOperations,
      },
      intake: { deliveries: n, dynamoWritesPerDelivery: per(intakeWrites) },
    };
  } finally {
    await queue?.close();
    await counter.close();
    await dynamo.stop();
    await emulator.close();
  }
}

/** The membership emulator the bench runs against: one client, one gold member linked to the bench's Shopify customer. */
function startBenchEmulator(): ReturnType<typeof startEmulator> {
  return startEmulator({
    port: 0,
    config: {
      now: new Date().toISOString().slice(0, 19).replace('T', ' '),
      clients: [
        {
          client_id: CLIENT.id,
          client_secrets: [CLIENT.secret],
          ranks: { regular: 0.01, gold: 0.05 },
          external_keys: ['shopify'],
          members: [{ login_id: 'm', password: 'bench-pass', rank: 'gold', external_ids: { shopify: MEMBER_EXTERNAL_ID } }],
        },
      ],
    },
  });
}

/** All Open API calls the emulator has answered the bench's client so far (every route). */
async function emulatorCalls(url: string): Promise<number> {
  const stats = (await (await fetch(`${url}/__emulator/stats`)).json()) as {
    clients: Record<string, { routes: Record<string, { total: number }> }>;
  };
  return Object.values(stats.clients[CLIENT.id]?.routes ?? {}).reduce((sum, r) => sum + r.total, 0);
}

/** The bench's i-th paid order delivery (signed, for the production shop). */
function benchOrder(shop: string, i: number): ReturnType<typeof shopifyOrderWebhook> {
  return shopifyOrderWebhook(
    'orders/paid',
    'paid',
    {
      orderId: String(9_000_000_000_000_000_000n + BigInt(i)),
      name: `#P${i}`,
      customerId: MEMBER_EXTERNAL_ID,
      subtotal: '1000',
      tax: '100',
      currency: 'JPY',
    },
    SECRET,
    `bench-p-${i}`,
    Date.now(),
    { shopDomain: shop },
  );
}

/** The shop the production stage's Shopify source takes deliveries of (its `shopDomains`): the bench's deliveries name it. */
export function productionShop(): string {
  const shop = stageSources(loadStageConfig(INFRA_DIR, 'production')).get('shopify')?.customerLinking?.().shopDomains[0];
  if (shop === undefined) throw new Error('bench: the production stage names no shop for its shopify source');
  return shop;
}

/** receive-webhook's environment as the production stack sets it, without the secrets' ARNs (Secrets Manager cannot run here). */
export function productionIntakeEnv(): Record<string, string> {
  const stage = loadStageConfig(INFRA_DIR, 'production');
  const { [ENV.WEBHOOK_SECRET_ARNS]: _arns, ...env } = receiverEnvironment(stage, {
    queueUrl: 'https://sqs.ap-northeast-1.amazonaws.com/000000000000/bench.fifo',
    webhookSecretArnsJson: '{}',
  });
  return env;
}

/** receive-webhook as the production stack builds it (its secret from the environment). */
function productionIntake(queue: EventQueue, extraEnv: Record<string, string>) {
  const handler = makeIntake(
    intakeDeps(
      { ...productionIntakeEnv(), ...extraEnv, SHOPIFY_WEBHOOK_SECRETS: SECRET },
      { queue, logger: quiet, recordDelivery: () => undefined },
    ),
  );
  return async (w: WebhookRequest): Promise<number> => {
    const { statusCode } = await handler(asApiGatewayEvent(w));
    if (statusCode !== 202) throw new Error(`bench: intake answered ${statusCode}`);
    return statusCode ?? 0;
  };
}

async function measureFanOut(): Promise<ProductionFigures['smaregiFanOut']> {
  const ids = Array.from({ length: 1000 }, (_, i) => String(600_000 + i));
  // Under `npm start`: the local stack, its worker running (the transactions are unknown to the stand-in: each ends
  // `transaction_gone`, so the worker competes for the CPU as it would).
  const stack = await startLocalStack();
  let local: { ms: number; status: number };
  try {
    const t0 = performance.now();
    const answer = await deliverSmaregi(stack, ids);
    local = { ms: performance.now() - t0, status: answer.status };
    await stack.queue.pause();
  } finally {
    await stack.close();
  }
  // In AWS: the handler alone, each SendMessageBatch call taking a modelled round trip.
  let batchCalls = 0;
  const inner = createLocalQueue();
  const modelled: EventQueue = {
    send: (m) => inner.send(m),
    async sendBatch(messages) {
      batchCalls += 1;
      await new Promise((resolve) => setTimeout(resolve, SQS_BATCH_ROUND_TRIP_MS));
      return (await inner.sendBatch?.(messages)) ?? [];
    },
  };
  const env = {
    SMAREGI_WEBHOOK_SECRETS: 'bench-smaregi-webhook-token-0123456789abcdef',
    SOURCES_CONFIG: JSON.stringify({ smaregi: { contractId: 'bench' } }),
  };
  const handler = makeIntake(intakeDeps(env, { queue: modelled, logger: quiet, recordDelivery: () => undefined }));
  const body = JSON.stringify({ contractId: 'bench', event: 'pos:transactions', action: 'created', transactionHeadIds: ids });
  const headers = {
    'content-type': 'application/json',
    'smaregi-event': 'pos:transactions',
    'smaregi-contract-id': 'bench',
    'smaregi-event-id': 'bench-fan-out',
    'x-smaregi-webhook-token': env.SMAREGI_WEBHOOK_SECRETS,
  };
  const t0 = performance.now();
  const answer = await handler(asApiGatewayEvent({ path: '/webhooks/smaregi', headers, body }));
  const awsModelMs = performance.now() - t0;
  await inner.close();
  if (answer.statusCode !== 202) throw new Error(`bench: the modelled fan-out answered ${answer.statusCode}: ${answer.body}`);
  const round = (x: number) => Math.round(x);
  return {
    ids: ids.length,
    localMs: round(local.ms),
    localStatus: local.status,
    awsModelMs: round(awsModelMs),
    batchCalls,
    sqsBatchRoundTripMs: SQS_BATCH_ROUND_TRIP_MS,
  };
}
