/**
 * The worker's figures, all measured against the emulator and dynalite in this process:
 *
 * - cost: Open API calls and DynamoDB requests per purchase and per refund in steady state (token
 *   cached, pools warm), counted at the emulator (its stats) and at the DynamoDB client (middleware);
 * - throughput: events per second through the real handler (process-events makeHandler, SQS-shaped
 *   batches of one record) against a floor that does only the bare work of an event in the same
 *   process (2 raw undici requests + 2 DynamoDB writes), at the same concurrency, in alternating chunks;
 * - rate: a backlog of purchases with the rate budget at 2000/minute per endpoint: the emulator's
 *   max_per_minute per route and the sustained rate as a share of 2000. The client's limiter and the
 *   emulator's clock run on one scaled clock (K times real time) so minutes pass in seconds; the
 *   emulator's clock is set from it every 20 ms and starts 1 s after a minute boundary (see results.md).
 *
 *   npx tsx bench/worker.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Pool } from 'undici';
import { startEmulator } from '../stand-ins/openapi/index.js';
import type { makeHandler } from '../functions/process-events.js';
import { ProcessingSettings } from '../shared/config/index.js';
import { createLedger } from '../shared/ledger/index.js';
import { productionWorker } from './production.js';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../shared/openapi/index.js';
import type { PointsApi } from '../shared/points/index.js';
import type { PurchaseEvent, RefundEvent } from '../shared/events/index.js';
import { startDynalite } from '../kit/dynalite.js';
import { benchConfig, CLIENT, purchase, RATE_BUDGET, refund } from './worker/events.js';
import type { EventCost, TimeSplit, WorkerBenchFigures, WorkerBenchOptions } from './worker/figures.js';
import {
  countDynamo,
  emulatorAdmin,
  emulatorStats,
  emulatorTime,
  fetchToken,
  invoke,
  problems,
  quiet,
  quietMetrics,
  retries,
  round,
  runConcurrently,
  seeded,
  totalCalls,
} from './worker/harness.js';
import { rateRun } from './worker/rate.js';

/** One purchase in this many is retried in the retry share of the cost figures. */
const RETRY_EVERY = 5;

export type { EventCost, TimeSplit, WorkerBenchFigures, WorkerBenchOptions } from './worker/figures.js';

export async function runWorkerBench(options: WorkerBenchOptions = {}): Promise<WorkerBenchFigures> {
  const log = options.log ?? (() => undefined);
  const quick = options.quick ?? false;
  retries.clear();
  problems.clear();
  const sizes = quick
    ? { cost: 40, throughput: 200, rounds: 2, backlog: 2100, members: 200 }
    : { cost: 200, throughput: 1000, rounds: 2, backlog: 6000, members: 500 };
  const concurrency = 8;
  // The rate run starts 1 s after a minute boundary, so the limiter's windows line up with clock minutes.
  const start = Date.UTC(2026, 0, 15, 10, 0, 1);
  const emulator = await startEmulator({ port: 0, config: benchConfig(sizes.members, sizes.members, emulatorTime(start)) });
  const dynamo = await startDynalite('bench-worker-ledger');
  const counts = countDynamo(dynamo);
  const settings = ProcessingSettings.parse({});
  const ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
  const clients: OpenApiClient[] = [];
  const memberIds = Array.from({ length: sizes.members }, (_, i) => `w${100_000 + i}`);
  const member = (i: number) => memberIds[i % memberIds.length] as string;

  try {
    // --- cost per event, steady state -------------------------------------------------------
    const rig = await setUpRig({ emulator, dynamo, counts, ledger, settings, clients, member });
    const { purchaseCost, retriedPurchase, firstRefund, laterRefund, splits } = await measureCost(rig, sizes.cost);
    log(
      `worker: cost per purchase ${purchaseCost.openApiCalls} calls, ${purchaseCost.dynamoWrites} writes, ${purchaseCost.dynamoReads} reads; ` +
        `with ${retriedPurchase.retryShare * 100} % retried ${retriedPurchase.openApiCalls} calls`,
    );

    // --- throughput against the bare floor ----------------------------------------------------
    const { chunks, chunk, workerEventsPerSecond, floorEventsPerSecond } = await measureThroughput(rig, sizes, concurrency);
    log(`worker: ${workerEventsPerSecond} events/s through the worker, floor ${floorEventsPerSecond} events/s`);

    // --- the latency model: time spent where AWS spends it ---------------------------------------
    const awsLatency = await measureLatencyModel(rig, quick);
    log(`worker: latency model ${awsLatency.workerEventsPerSecond} events/s, floor ${awsLatency.floorEventsPerSecond} events/s`);
    await rig.pool.close();

    // --- the rate budget under a backlog ----------------------------------------------------------
    const rate = await rateRun({
      emulatorUrl: emulator.url,
      start,
      backlog: sizes.backlog,
      members: sizes.members,
      // The limiter should bind, not the worker:       // A minute's 2000 calls must fit in one scaled minute: 2000 / T real seconds < 60 / K, so K < 0.03 T;
      // 70 % of that leaves room for slower moments.
      clockScale: round(Math.max(1, Math.min(20, (0.7 * workerEventsPerSecond * 60) / RATE_BUDGET)), 2),
      handlerFor: (openapi) =>
        productionWorker(dynamo.tableName, {
          documentClient: dynamo.documentClient,
          openapi,
          settings,
          logger: quiet,
          metrics: quietMetrics,
        }),
      clients,
    });
    log(`worker: rate run ${sizes.backlog} purchases at x${rate.clockScale} in ${rate.realSeconds} s`);

    return {
      retries: Object.fromEntries(retries),
      cost: { purchase: purchaseCost, retriedPurchase, firstRefund, laterRefund },
      split: splits,
      throughput: {
        events: chunks * chunk,
        concurrency,
        rounds: sizes.rounds,
        workerEventsPerSecond,
        floorEventsPerSecond,
        ratio: round(workerEventsPerSecond / floorEventsPerSecond),
      },
      awsLatency,
      rate,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await dynamo.stop();
    await emulator.close();
  }
}

interface RigParts {
  emulator: Awaited<ReturnType<typeof startEmulator>>;
  dynamo: Awaited<ReturnType<typeof startDynalite>>;
  counts: ReturnType<typeof countDynamo>;
  ledger: ReturnType<typeof createLedger>;
  settings: ReturnType<typeof ProcessingSettings.parse>;
  clients: OpenApiClient[];
  member: (i: number) => string;
}

/** The worker under measure (its Open API calls timed) and the floor: only the bare work of a purchase. */
interface Rig extends RigParts {
  handler: ReturnType<typeof makeHandler>;
  /**
   * The same worker on its own clock, for the retry share: `holdNext()` makes the next attempt pause
   * after its lookup past its lease's send window (a container slowed down, a long wait for the
   * budget), so its calculation is refused unsent and the order released; the redelivery finishes it.
   */
  retrying: { handler: ReturnType<typeof makeHandler>; holdNext(): void };
  /** Time spent in Open API calls, summed. */
  api: { ms: number };
  pool: Pool;
  floorEvent: (event: PurchaseEvent) => Promise<void>;
}

async function setUpRig(parts: RigParts): Promise<Rig> {
  const { emulator, dynamo, settings, clients } = parts;
  // The limiter is measured in the rate run; here it must not add waits.
  const client = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: CLIENT.id, clientSecret: CLIENT.secret }),
    ratePerMinute: 1_000_000,
  });
  clients.push(client);
  const api = { ms: 0 };
  const timed = <T>(call: Promise<T>): Promise<T> => {
    const started = performance.now();
    return call.finally(() => {
      api.ms += performance.now() - started;
    });
  };
  const openapi: PointsApi = {
    getMemberByExternalId: (...a) => timed(client.getMemberByExternalId(...a)),
    getMemberByUniqueId: (...a) => timed(client.getMemberByUniqueId(...a)),
    getMember: (...a) => timed(client.getMember(...a)),
    listPoints: (...a) => timed(client.listPoints(...a)),
    grantPoints: (...a) => timed(client.grantPoints(...a)),
    calculatePoints: (...a) => timed(client.calculatePoints(...a)),
  };
  // The worker as the production stack builds it (its environment, the activity record on), with the
  // bench's DynamoDB client (counted, and delayed in the latency model) and its timed Open API client.
  const handler = productionWorker(dynamo.tableName, {
    documentClient: dynamo.documentClient,
    openapi,
    settings,
    logger: quiet,
    metrics: quietMetrics,
  });

  const skew = { ms: 0, hold: false };
  const retrying = {
    handler: productionWorker(dynamo.tableName, {
      documentClient: dynamo.documentClient,
      openapi,
      settings,
      logger: quiet,
      metrics: quietMetrics,
      clock: () => Date.now() + skew.ms,
      checkpoint: (step) => {
        if (step !== 'purchase:customer' || !skew.hold) return;
        skew.hold = false;
        skew.ms += settings.leaseSeconds * 1000;
      },
    }),
    holdNext: () => {
      skew.hold = true;
    },
  };

  // The floor: only the bare work of a purchase (2 raw requests, 2 plain writes).
  const token = await fetchToken(emulator.url, CLIENT);
  const pool = new Pool(emulator.url, { connections: 64, pipelining: 1 });
  const floorEvent = async (event: PurchaseEvent): Promise<void> => {
    const auth = { authorization: `Bearer ${token}`, 'user-agent': 'bench-floor' };
    const started = performance.now();
    const lookup = await pool.request({
      method: 'GET',
      path: `/api/ext/users/external_id/shopify/${event.customer?.externalId}`,
      headers: auth,
    });
    const { member: found } = (await lookup.body.json()) as { member: { id: string } };
    const grant = await pool.request({
      method: 'POST',
      path: `/api/ext/users/${found.id}/points/calculation`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: event.eligibleAmount, title: event.pointTitle, remarks: `floor:${event.orderId}` }),
    });
    await grant.body.text();
    api.ms += performance.now() - started;
    const pk = `floor#${event.orderId}`;
    await dynamo.documentClient.send(
      new PutCommand({ TableName: dynamo.tableName, Item: { pk, state: 'pending' }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    await dynamo.documentClient.send(
      new UpdateCommand({
        TableName: dynamo.tableName,
        Key: { pk },
        UpdateExpression: 'SET #s = :d',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: { ':d': 'done' },
      }),
    );
  };

  return { ...parts, handler, retrying, api, pool, floorEvent };
}

async function measureCost(rig: Rig, size: number) {
  const { emulator, counts, api, handler, retrying, member, floorEvent } = rig;
  const split = async (events: PurchaseEvent[], run: (event: PurchaseEvent) => Promise<void>): Promise<TimeSplit> => {
    const before = { dynamo: counts.ms, api: api.ms, at: performance.now() };
    for (const event of events) await run(event);
    const per = (ms: number) => round(ms / events.length);
    const totalMs = performance.now() - before.at;
    const dynamoMs = counts.ms - before.dynamo;
    const openApiMs = api.ms - before.api;
    return { totalMs: per(totalMs), dynamoMs: per(dynamoMs), openApiMs: per(openApiMs), restMs: per(totalMs - dynamoMs - openApiMs) };
  };
  for (let i = 0; i < 20; i += 1) await invoke(handler, purchase(member(i)));
  const measure = async (
    events: Array<PurchaseEvent | RefundEvent>,
    run = (e: PurchaseEvent | RefundEvent) => invoke(handler, e),
  ): Promise<EventCost> => {
    const before = { calls: totalCalls(await emulatorStats(emulator.url, CLIENT.id)), ...counts };
    for (const event of events) await run(event);
    const after = await emulatorStats(emulator.url, CLIENT.id);
    return {
      openApiCalls: round((totalCalls(after) - before.calls) / events.length),
      dynamoWrites: round((counts.writes - before.writes) / events.length),
      dynamoReads: round((counts.reads - before.reads) / events.length),
      samples: events.length,
    };
  };
  const purchases = Array.from({ length: size }, (_, i) => purchase(member(i + 20)));
  const purchaseCost = await measure(purchases);
  // The retry share: one purchase in RETRY_EVERY has its first attempt released after its lookup and is
  // delivered again; the member that lookup found is kept on the order (no second lookup), and the retry
  // reads its credit's entry from the history (the kept balance is stale): 3 calls for that purchase.
  let nth = 0;
  const retriedPurchase = await measure(
    Array.from({ length: size }, (_, i) => purchase(member(i + 40))),
    (event) => {
      if (nth++ % RETRY_EVERY === 0) retrying.holdNext();
      return invoke(retrying.handler, event);
    },
  );
  const splits = {
    worker: await split(
      Array.from({ length: size }, (_, i) => purchase(member(i))),
      (e) => invoke(handler, e),
    ),
    floor: await split(
      Array.from({ length: size }, (_, i) => purchase(member(i))),
      floorEvent,
    ),
  };
  // 30 % each, so every refund has points to debit (a refund whose share rounds to 0 makes no call).
  const firstRefund = await measure(purchases.map((p) => refund(p, 'r1', Math.floor(p.eligibleAmount * 0.3))));
  const laterRefund = await measure(purchases.map((p) => refund(p, 'r2', Math.floor(p.eligibleAmount * 0.3))));

  return { purchaseCost, retriedPurchase: { ...retriedPurchase, retryShare: round(1 / RETRY_EVERY) }, firstRefund, laterRefund, splits };
}

/**
 * Short chunks in ABBA order (floor, worker, worker, floor, ...), times summed per side: on a shared
 * machine the load changes within seconds, and adjacent chunks see the same load.
 */
async function measureThroughput(rig: Rig, sizes: { throughput: number; rounds: number }, concurrency: number) {
  const { handler, member, floorEvent } = rig;
  const chunk = 50;
  const seconds = { floor: 0, worker: 0 };
  const chunks = Math.max(2, Math.round((sizes.throughput * sizes.rounds) / chunk));
  for (let c = 0; c < chunks; c += 1) {
    const order = c % 2 === 0 ? (['floor', 'worker'] as const) : (['worker', 'floor'] as const);
    for (const side of order) {
      const events = Array.from({ length: chunk }, (_, i) => purchase(member(c * chunk + i)));
      seconds[side] += await runConcurrently(events, concurrency, side === 'floor' ? floorEvent : (e) => invoke(handler, e));
    }
  }
  const workerEventsPerSecond = round((chunks * chunk) / seconds.worker, 1);
  const floorEventsPerSecond = round((chunks * chunk) / seconds.floor, 1);

  return { chunks, chunk, workerEventsPerSecond, floorEventsPerSecond };
}

/** Open API calls delayed as AWS would see them, DynamoDB requests given a round trip. */
async function measureLatencyModel(rig: Rig, quick: boolean) {
  const { emulator, counts, handler, member, floorEvent } = rig;
  const model = { openApiMs: 40, jitterMs: 10, dynamoMs: 5, events: quick ? 120 : 400, concurrency: 4, rounds: quick ? 2 : 3 };
  const random = seeded(18);
  /** One delay fault per Open API call the next `events` purchases make (2 each), in call order. */
  const delayCalls = async (events: number) => {
    for (let i = 0; i < events; i += 1) {
      for (const [method, path] of [
        ['GET', '^/api/ext/users/external_id/'],
        ['POST', '^/api/ext/users/[^/]+/points/calculation$'],
      ]) {
        const delay = Math.round(model.openApiMs + (random() * 2 - 1) * model.jitterMs);
        await emulatorAdmin(emulator.url, 'POST', '/faults', { method, path, fault: 'delay', delay_ms: delay, times: 1 });
      }
    }
  };
  const modelTimes = { floor: [] as number[], worker: [] as number[] };
  const modelSeconds = { floor: 0, worker: 0 };
  const modelChunk = 40;
  const modelChunks = Math.max(2, Math.round((model.events * model.rounds) / modelChunk));
  counts.roundTripMs = model.dynamoMs;
  try {
    for (let c = 0; c < modelChunks; c += 1) {
      const order = c % 2 === 0 ? (['floor', 'worker'] as const) : (['worker', 'floor'] as const);
      for (const side of order) {
        await delayCalls(modelChunk);
        const events = Array.from({ length: modelChunk }, (_, i) => purchase(member(c * modelChunk + i)));
        modelSeconds[side] += await runConcurrently(events, model.concurrency, async (event) => {
          const t0 = performance.now();
          await (side === 'floor' ? floorEvent(event) : invoke(handler, event));
          modelTimes[side].push(performance.now() - t0);
        });
      }
    }
  } finally {
    counts.roundTripMs = 0;
    await emulatorAdmin(emulator.url, 'DELETE', '/faults');
  }
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const mw = { rate: (modelChunks * modelChunk) / modelSeconds.worker, p50: p50(modelTimes.worker) };
  const mf = { rate: (modelChunks * modelChunk) / modelSeconds.floor, p50: p50(modelTimes.floor) };
  const awsLatency = {
    ...model,
    events: modelChunks * modelChunk,
    workerEventsPerSecond: round(mw.rate, 1),
    floorEventsPerSecond: round(mf.rate, 1),
    ratio: round(mw.rate / mf.rate),
    workerEventMsP50: round(mw.p50, 1),
    floorEventMsP50: round(mf.p50, 1),
  };
  return awsLatency;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const figures = await runWorkerBench({ quick: values.quick, log: (line) => console.log(line) });
  console.log(JSON.stringify(figures));
}
