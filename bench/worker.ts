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
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { Pool } from 'undici';
import { startEmulator } from '../emulator/index.js';
import { makeHandler, type ProcessEventsHandler } from '../functions/process-events.js';
import { ProcessingSettings } from '../shared/config/processing-settings.js';
import { createLedger } from '../shared/ledger/index.js';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../shared/openapi/index.js';
import type { PointsApi, PurchaseEvent, RefundEvent } from '../shared/points/index.js';
import { startDynalite, type LocalDynamo } from '../test/support/dynalite.js';

export interface WorkerBenchOptions {
  quick?: boolean;
  log?: (line: string) => void;
}

export interface EventCost {
  openApiCalls: number;
  dynamoWrites: number;
  dynamoReads: number;
  samples: number;
}

/** Where one purchase's time goes when events run one at a time (ms per event). */
export interface TimeSplit {
  totalMs: number;
  dynamoMs: number;
  openApiMs: number;
  restMs: number;
}

export interface WorkerBenchFigures {
  /** Events the handler did not acknowledge at first and that were delivered again, by outcome. */
  retries: Record<string, number>;
  cost: { purchase: EventCost; firstRefund: EventCost; laterRefund: EventCost };
  /** One purchase at a time: through the worker, and the floor's bare calls. */
  split: { worker: TimeSplit; floor: TimeSplit };
  throughput: {
    events: number;
    concurrency: number;
    rounds: number;
    workerEventsPerSecond: number;
    floorEventsPerSecond: number;
    /** worker / floor. */
    ratio: number;
  };
  /**
   * The latency model: the Open API answers after AWS-like latency (the emulator's delay fault, one per
   * call, `openApiMs` +/- `jitterMs`) and every DynamoDB request pays a network round trip (`dynamoMs`,
   * a delay in the SDK client both sides use). Worker and floor side by side, `concurrency` at once
   * (each like one Lambda container working a record at a time).
   */
  awsLatency: {
    openApiMs: number;
    jitterMs: number;
    dynamoMs: number;
    events: number;
    concurrency: number;
    rounds: number;
    workerEventsPerSecond: number;
    floorEventsPerSecond: number;
    /** worker / floor. */
    ratio: number;
    /** One purchase, start to end (p50), in the model. */
    workerEventMsP50: number;
    floorEventMsP50: number;
  };
  rate: {
    backlog: number;
    budgetPerMinute: number;
    clockScale: number;
    concurrency: number;
    /** Per route: requests and the emulator's largest count in one clock minute. */
    routes: Record<string, { total: number; maxPerMinute: number }>;
    /** Calls per complete clock minute on the busiest route (lookup and calculation are equal). */
    minuteCounts: number[];
    /** Mean of the complete minutes, and as a share of the budget. */
    sustainedPerMinute: number;
    share: number;
    /** Time from an event's start to its end, on the scaled clock (limiter waits included). */
    eventSecondsP50: number;
    eventSecondsMax: number;
    realSeconds: number;
  };
}

const CLIENT = { id: 'bench-worker', secret: 'bench-worker-secret' };
const RATE_CLIENT = { id: 'bench-rate', secret: 'bench-rate-secret' };
const RATE_BUDGET = 2000;
/** The handler's log lines are not printed; the last problem of each event is kept to explain a retry. */
const problems = new Map<string, string>();
const remember = (message: string, extra?: Record<string, unknown>) => {
  const id = typeof extra?.eventId === 'string' ? extra.eventId : '?';
  problems.set(id, `${message} ${JSON.stringify(extra ?? {})}`.slice(0, 300));
};
const quiet = { info: () => undefined, warn: remember, error: remember };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

function members(prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    login_id: `${prefix}-${i}`,
    password: 'bench-pass',
    rank: i % 4 === 0 ? 'gold' : 'regular',
    external_ids: { shopify: `${prefix}${100_000 + i}` },
  }));
}

function benchConfig(memberCount: number, rateMembers: number, now: string): unknown {
  const client = (c: { id: string; secret: string }, list: unknown[]) => ({
    client_id: c.id,
    client_secrets: [c.secret],
    ranks: { regular: 0.01, gold: 0.05 },
    external_keys: ['shopify', 'pos_card'],
    members: list,
  });
  return {
    now,
    clients: [client(CLIENT, members('w', memberCount)), client(RATE_CLIENT, members('r', rateMembers))],
  };
}

let orderSeq = 0;
function purchase(externalId: string, amount = 1000 + (orderSeq % 500)): PurchaseEvent {
  const orderId = `b${++orderSeq}`;
  return {
    type: 'purchase',
    eventId: `shopify:order:${orderId}`,
    source: 'shopify',
    orderId,
    customer: { externalKey: 'shopify', externalId },
    currency: 'USD',
    occurredAt: '2026-01-15T10:00:00+00:00',
    pointTitle: `Purchase #${orderId}`,
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'orders/paid' },
    eligibleAmount: amount,
    expiryDays: null,
  };
}

function refund(of: PurchaseEvent, refundId: string, amount: number): RefundEvent {
  return {
    type: 'refund',
    eventId: `shopify:refund:${of.orderId}:${refundId}`,
    source: of.source,
    orderId: of.orderId,
    refundId,
    customer: of.customer,
    currency: of.currency,
    occurredAt: of.occurredAt,
    pointTitle: `Refund #${of.orderId}`,
    test: false,
    delivery: { id: `d-${of.orderId}-${refundId}`, topic: 'refunds/create' },
    refundAmount: amount,
    refundsRemainder: false,
  };
}

/** An SQS FIFO record as the event source mapping delivers it (what the handler really parses). */
function sqsEvent(event: PurchaseEvent | RefundEvent): SQSEvent {
  const record: SQSRecord = {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: JSON.stringify(event),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDABENCH',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      SequenceNumber: String(orderSeq).padStart(20, '0'),
      MessageGroupId: `${event.source}:${event.customer?.externalKey}:${event.customer?.externalId}`,
      MessageDeduplicationId: `${event.source}:${event.delivery.id}`,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench.fifo',
    awsRegion: 'us-east-1',
  };
  return { Records: [record] };
}

/** Retries of events the handler did not acknowledge (the queue would redeliver them), by reason. */
const retries = new Map<string, number>();

/** One event as the queue delivers it, redelivered (up to 5 times) when the handler reports it failed. */
async function invoke(handler: ProcessEventsHandler, event: PurchaseEvent | RefundEvent): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await handler(sqsEvent(event));
    if (response.batchItemFailures.length === 0) return;
    const reason = problems.get(event.eventId) ?? 'no log line';
    if (attempt >= 5) throw new Error(`bench: event ${event.eventId} failed ${attempt} times: ${reason}`);
    const kind = /"outcome":"([^"]+)"/.exec(reason)?.[1] ?? reason.slice(0, 60);
    retries.set(kind, (retries.get(kind) ?? 0) + 1);
  }
}

/** Works through `items`, `concurrency` at a time; returns the seconds it took. After a failure no new
 * item starts, and the ones running are waited for before the failure is thrown (nothing runs on
 * against an emulator or a dynalite being closed). */
async function runConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  let failure: unknown;
  const started = performance.now();
  await Promise.allSettled(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length && failure === undefined) {
        try {
          await work(items[next++] as T);
        } catch (error) {
          failure ??= error;
        }
      }
    }),
  );
  if (failure !== undefined) throw failure;
  return (performance.now() - started) / 1000;
}

/** Counts DynamoDB requests by kind, and their time, at the client, the way the ledger really sends them. */
function countDynamo(dynamo: LocalDynamo) {
  /** `roundTripMs` > 0: every request waits that long first, as a network round trip to DynamoDB would. */
  const counts = { writes: 0, reads: 0, ms: 0, roundTripMs: 0 };
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? '');
      if (/^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(name)) counts.writes += 1;
      else if (/^(Get|Query|Scan|BatchGet|TransactGet)/.test(name)) counts.reads += 1;
      const started = performance.now();
      try {
        if (counts.roundTripMs > 0) await new Promise((resolve) => setTimeout(resolve, counts.roundTripMs));
        return await next(args);
      } finally {
        counts.ms += performance.now() - started;
      }
    },
    { step: 'initialize', name: 'benchCountRequests' },
  );
  return counts;
}

async function emulatorStats(url: string, clientId: string): Promise<{ routes: Record<string, { total: number; max_per_minute: number }>; token_requests: number }> {
  const response = await fetch(`${url}/__emulator/stats`);
  const body = (await response.json()) as { clients: Record<string, { routes: Record<string, { total: number; max_per_minute: number }>; token_requests: number }> };
  return body.clients[clientId] ?? { routes: {}, token_requests: 0 };
}

const totalCalls = (s: Awaited<ReturnType<typeof emulatorStats>>) =>
  Object.values(s.routes).reduce((sum, r) => sum + r.total, 0);

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** `Y-m-d H:i:s` of an epoch ms, in UTC (the emulator's clock format). */
function emulatorTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

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
      getMember: (...a) => timed(client.getMember(...a)),
      listPoints: (...a) => timed(client.listPoints(...a)),
      grantPoints: (...a) => timed(client.grantPoints(...a)),
      calculatePoints: (...a) => timed(client.calculatePoints(...a)),
    };
    const handler = makeHandler({ ledger, openapi, settings, clock: Date.now, logger: quiet, metrics: quietMetrics });

    // The floor: only the bare work of a purchase (2 raw requests, 2 plain writes).
    const token = await fetchToken(emulator.url, CLIENT);
    const pool = new Pool(emulator.url, { connections: 64, pipelining: 1 });
    const floorEvent = async (event: PurchaseEvent): Promise<void> => {
      const auth = { authorization: `Bearer ${token}`, 'user-agent': 'bench-floor' };
      const started = performance.now();
      const lookup = await pool.request({ method: 'GET', path: `/api/ext/users/external_id/shopify/${event.customer?.externalId}`, headers: auth });
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
        new UpdateCommand({ TableName: dynamo.tableName, Key: { pk }, UpdateExpression: 'SET #s = :d', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':d': 'done' } }),
      );
    };
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
    const measure = async (events: Array<PurchaseEvent | RefundEvent>): Promise<EventCost> => {
      const before = { calls: totalCalls(await emulatorStats(emulator.url, CLIENT.id)), ...counts };
      for (const event of events) await invoke(handler, event);
      const after = await emulatorStats(emulator.url, CLIENT.id);
      return {
        openApiCalls: round((totalCalls(after) - before.calls) / events.length),
        dynamoWrites: round((counts.writes - before.writes) / events.length),
        dynamoReads: round((counts.reads - before.reads) / events.length),
        samples: events.length,
      };
    };
    const purchases = Array.from({ length: sizes.cost }, (_, i) => purchase(member(i + 20)));
    const purchaseCost = await measure(purchases);
    const splits = {
      worker: await split(Array.from({ length: sizes.cost }, (_, i) => purchase(member(i))), (e) => invoke(handler, e)),
      floor: await split(Array.from({ length: sizes.cost }, (_, i) => purchase(member(i))), floorEvent),
    };
    // 30 % each, so every refund has points to debit (a refund whose share rounds to 0 makes no call).
    const firstRefund = await measure(purchases.map((p) => refund(p, 'r1', Math.floor(p.eligibleAmount * 0.3))));
    const laterRefund = await measure(purchases.map((p) => refund(p, 'r2', Math.floor(p.eligibleAmount * 0.3))));
    log(`worker: cost per purchase ${purchaseCost.openApiCalls} calls, ${purchaseCost.dynamoWrites} writes, ${purchaseCost.dynamoReads} reads`);

    // --- throughput against the bare floor ----------------------------------------------------
    // Short chunks in ABBA order (floor, worker, worker, floor, ...), times summed per side: on a shared
    // machine the load changes within seconds, and adjacent chunks see the same load.
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
    log(`worker: ${workerEventsPerSecond} events/s through the worker, floor ${floorEventsPerSecond} events/s`);

    // --- the latency model: time spent where AWS spends it ---------------------------------------
    const model = { openApiMs: 40, jitterMs: 10, dynamoMs: 5, events: quick ? 120 : 400, concurrency: 4, rounds: quick ? 2 : 3 };
    const random = seeded(18);
    /** One delay fault per Open API call the next `events` purchases make (2 each), in call order. */
    const delayCalls = async (events: number) => {
      for (let i = 0; i < events; i += 1) {
        for (const [method, path] of [['GET', '^/api/ext/users/external_id/'], ['POST', '^/api/ext/users/[^/]+/points/calculation$']]) {
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
    log(`worker: latency model ${awsLatency.workerEventsPerSecond} events/s, floor ${awsLatency.floorEventsPerSecond} events/s`);
    await pool.close();

    // --- the rate budget under a backlog ----------------------------------------------------------
    const rate = await rateRun({
      emulatorUrl: emulator.url,
      start,
      backlog: sizes.backlog,
      members: sizes.members,
      // The limiter should bind, not the worker:       // A minute's 2000 calls must fit in one scaled minute: 2000 / T real seconds < 60 / K, so K < 0.03 T;
      // 70 % of that leaves room for slower moments.
      clockScale: round(Math.max(1, Math.min(20, (0.7 * workerEventsPerSecond * 60) / RATE_BUDGET)), 2),
      handlerFor: (openapi) => makeHandler({ ledger, openapi, settings, clock: Date.now, logger: quiet, metrics: quietMetrics }),
      clients,
    });
    log(`worker: rate run ${sizes.backlog} purchases at x${rate.clockScale} in ${rate.realSeconds} s`);

    return {
      retries: Object.fromEntries(retries),
      cost: { purchase: purchaseCost, firstRefund, laterRefund },
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

interface RateRunOptions {
  emulatorUrl: string;
  /** Scaled clock start (1 s after a minute boundary). */
  start: number;
  backlog: number;
  members: number;
  clockScale: number;
  handlerFor: (openapi: PointsApi) => ProcessEventsHandler;
  clients: OpenApiClient[];
}

async function rateRun(o: RateRunOptions): Promise<WorkerBenchFigures['rate']> {
  const realStart = Date.now();
  const scaledNow = () => o.start + (Date.now() - realStart) * o.clockScale;
  const scaledSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms / o.clockScale));
  const client = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: o.emulatorUrl, clientId: RATE_CLIENT.id, clientSecret: RATE_CLIENT.secret }),
    ratePerMinute: RATE_BUDGET,
    now: scaledNow,
    sleep: scaledSleep,
  });
  o.clients.push(client);
  // Calls per scaled minute, taken when each call returns (its request was sent just before).
  const minuteOf = (ms: number) => Math.floor((ms - (o.start - 1000)) / 60_000);
  const calculations = new Map<number, number>();
  const counted: PointsApi = {
    getMemberByExternalId: (...a) => client.getMemberByExternalId(...a),
    getMember: (...a) => client.getMember(...a),
    listPoints: (...a) => client.listPoints(...a),
    grantPoints: (...a) => client.grantPoints(...a),
    calculatePoints: async (...a) => {
      const result = await client.calculatePoints(...a);
      const minute = minuteOf(scaledNow());
      calculations.set(minute, (calculations.get(minute) ?? 0) + 1);
      return result;
    },
  };
  const handler = o.handlerFor(counted);

  const setClock = () =>
    fetch(`${o.emulatorUrl}/__emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ now: emulatorTime(scaledNow()) }),
    }).then((r) => r.body?.cancel());
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await setClock();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const rateMembers = Array.from({ length: o.members }, (_, i) => `r${100_000 + i}`);
  const backlog = Array.from({ length: o.backlog }, (_, i) => purchase(rateMembers[i % rateMembers.length] as string));
  const durations: number[] = [];
  // Wider than the other runs: events wait in the limiter, so more of them are in flight at once.
  const concurrency = 32;
  const realSeconds = await runConcurrently(backlog, concurrency, async (event) => {
    const t0 = scaledNow();
    await invoke(handler, event);
    durations.push((scaledNow() - t0) / 1000);
  });
  ticking = false;
  await ticker;

  const stats = await emulatorStats(o.emulatorUrl, RATE_CLIENT.id);
  const routes = Object.fromEntries(Object.entries(stats.routes).map(([route, s]) => [route, { total: s.total, maxPerMinute: s.max_per_minute }]));
  const minutes = [...calculations.entries()].sort(([a], [b]) => a - b);
  const minuteCounts = minutes.map(([, n]) => n);
  // The last minute is cut short by the end of the backlog; the others are complete.
  const complete = minuteCounts.slice(0, -1);
  const sustainedPerMinute = complete.length > 0 ? round(complete.reduce((a, b) => a + b, 0) / complete.length, 0) : (minuteCounts[0] ?? 0);
  durations.sort((a, b) => a - b);
  return {
    backlog: o.backlog,
    budgetPerMinute: RATE_BUDGET,
    clockScale: o.clockScale,
    concurrency,
    routes,
    minuteCounts,
    sustainedPerMinute,
    share: round(sustainedPerMinute / RATE_BUDGET, 3),
    eventSecondsP50: round(durations[Math.floor(durations.length / 2)] ?? 0, 1),
    eventSecondsMax: round(durations[durations.length - 1] ?? 0, 1),
    realSeconds: round(realSeconds, 1),
  };
}

async function emulatorAdmin(url: string, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${url}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`emulator ${method} ${path}: ${response.status}`);
}

/** A small deterministic PRNG (mulberry32): the same jitter on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function fetchToken(url: string, client: { id: string; secret: string }): Promise<string> {
  const response = await fetch(`${url}/api/ext/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'bench-floor' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }),
  });
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const figures = await runWorkerBench({ quick: values.quick, log: (line) => console.log(line) });
  console.log(JSON.stringify(figures));
}
