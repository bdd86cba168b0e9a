/**
 * Cost per 1000 events from measured figures (docs/deploy.md section 7 explains each line). List
 * prices, US East (N. Virginia), on-demand, ARM, no free tier. Durations come from this bench: the
 * worker's time per purchase in the latency model (its Open API and DynamoDB round trips included),
 * the receiver's handler time plus one SQS SendMessage round trip (`sqsSendMs`, a model figure: no
 * SQS here). Memory is what the production stage configures (billing is by configured memory); the
 * measured resident memory after init is printed next to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INFRA_DIR } from '../infra/paths.js';

/** One region's list prices (USD): on-demand, ARM Lambda, HTTP API, first pricing tier, no free tier. */
export interface RegionPrices {
  /** API Gateway HTTP API, per million requests (first 300 M a month). */
  apiGatewayPerMillion: number;
  lambdaRequestsPerMillion: number;
  lambdaArmPerGbSecond: number;
  /** SQS FIFO, per million requests (each 64 KB chunk of a request counts as one). */
  sqsFifoPerMillion: number;
  /** DynamoDB on-demand, per million write request units. */
  dynamoWritePerMillion: number;
  /** DynamoDB on-demand, per million read request units. */
  dynamoReadPerMillion: number;
  /** CloudWatch Logs ingestion (standard class), per GB. */
  logsPerGb: number;
}

/**
 * List prices by region, as published on the AWS pricing pages (aws.amazon.com/<service>/pricing) and
 * last checked against them in 2025-05 (DynamoDB on-demand after its 2024-11-01 price cut). They were
 * written here from those pages, not fetched by the bench: check them before quoting a figure to a
 * customer. Tokyo (ap-northeast-1) is where production runs (infra/stages/production.json).
 */
export const REGION_PRICES = {
  'us-east-1': {
    apiGatewayPerMillion: 1.0,
    lambdaRequestsPerMillion: 0.2,
    lambdaArmPerGbSecond: 0.0000133334,
    sqsFifoPerMillion: 0.5,
    dynamoWritePerMillion: 0.625,
    dynamoReadPerMillion: 0.125,
    logsPerGb: 0.5,
  },
  'ap-northeast-1': {
    apiGatewayPerMillion: 1.29,
    lambdaRequestsPerMillion: 0.2,
    lambdaArmPerGbSecond: 0.0000133334,
    sqsFifoPerMillion: 0.5,
    dynamoWritePerMillion: 0.715,
    dynamoReadPerMillion: 0.1425,
    logsPerGb: 0.76,
  },
} as const satisfies Record<string, RegionPrices>;

export type PriceRegion = keyof typeof REGION_PRICES;

/** The per-1000-events figure below keeps its US East prices (bench/results.md compares against them). */
export const PRICES = REGION_PRICES['us-east-1'];

/** What a run counted, for `costOfCounts`: every billed request and GB-second, not a per-event model. */
export interface UsageCounts {
  apiGatewayRequests: number;
  lambdaRequests: number;
  lambdaGbSeconds: number;
  sqsRequests: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  logBytes: number;
}

export type CostLine = 'apiGateway' | 'lambdaRequests' | 'lambdaCompute' | 'sqs' | 'dynamoWrites' | 'dynamoReads' | 'logs';

/** USD for the counted usage at one region's prices, by line, and the total. */
export function costOfCounts(counts: UsageCounts, prices: RegionPrices): { lines: Record<CostLine, number>; total: number } {
  const lines: Record<CostLine, number> = {
    apiGateway: (counts.apiGatewayRequests / 1e6) * prices.apiGatewayPerMillion,
    lambdaRequests: (counts.lambdaRequests / 1e6) * prices.lambdaRequestsPerMillion,
    lambdaCompute: counts.lambdaGbSeconds * prices.lambdaArmPerGbSecond,
    sqs: (counts.sqsRequests / 1e6) * prices.sqsFifoPerMillion,
    dynamoWrites: (counts.dynamoWriteUnits / 1e6) * prices.dynamoWritePerMillion,
    dynamoReads: (counts.dynamoReadUnits / 1e6) * prices.dynamoReadPerMillion,
    // Billed per GB of 2^30 bytes.
    logs: (counts.logBytes / 2 ** 30) * prices.logsPerGb,
  };
  return { lines, total: Object.values(lines).reduce((a, b) => a + b, 0) };
}

/** The same counts scaled to `per` receipts (a million, say), line by line. */
export function costPer(receipts: number, per: number, counts: UsageCounts, prices: RegionPrices): ReturnType<typeof costOfCounts> {
  if (!(receipts > 0)) throw new RangeError(`cannot price per receipt a run of ${receipts} receipts`);
  const scale = per / receipts;
  const scaled = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v * scale])) as unknown as UsageCounts;
  return costOfCounts(scaled, prices);
}

export interface CostInputs {
  /** Worker billed time per event (ms): a batch of records is processed one after another. */
  workerMsPerEvent: number;
  /** Receiver handler time per webhook (ms), before the SQS round trip. */
  receiverHandlerMs: number;
  sqsSendMs?: number;
  /** DynamoDB writes per purchase (measured: 2). */
  dynamoWritesPerEvent: number;
}

export interface CostFigures {
  receiverMemoryMiB: number;
  workerMemoryMiB: number;
  receiverMsPerEvent: number;
  workerMsPerEvent: number;
  /** USD per 1000 events, by line. */
  lines: Record<'apiGateway' | 'lambdaRequests' | 'lambdaCompute' | 'sqs' | 'dynamodb' | 'logs', number>;
  usdPer1000Events: number;
}

export function productionMemory(): { receiver: number; worker: number } {
  const stage = JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'production.json'), 'utf8')) as {
    receiver?: { memoryMiB?: number };
    worker?: { memoryMiB?: number };
  };
  return { receiver: stage.receiver?.memoryMiB ?? 256, worker: stage.worker?.memoryMiB ?? 512 };
}

export function costPer1000Events(inputs: CostInputs): CostFigures {
  const memory = productionMemory();
  const receiverMs = inputs.receiverHandlerMs + (inputs.sqsSendMs ?? 15);
  // Lambda bills each invocation's duration rounded up to the millisecond.
  const gbSeconds =
    1000 *
    ((memory.receiver / 1024) * (Math.ceil(receiverMs) / 1000) + (memory.worker / 1024) * (Math.ceil(inputs.workerMsPerEvent) / 1000));
  const lines = {
    apiGateway: (1000 / 1e6) * PRICES.apiGatewayPerMillion,
    // 1000 receiver invocations + at worst one worker invocation per event (batches of one).
    lambdaRequests: (2000 / 1e6) * PRICES.lambdaRequestsPerMillion,
    lambdaCompute: gbSeconds * PRICES.lambdaArmPerGbSecond,
    // send + receive + delete, at worst one each per event.
    sqs: (3000 / 1e6) * PRICES.sqsFifoPerMillion,
    // Items stay under 1 KB: one write unit per write.
    dynamodb: ((1000 * inputs.dynamoWritesPerEvent) / 1e6) * PRICES.dynamoWritePerMillion,
    // ~2 KB of logs per event.
    logs: ((1000 * 2) / 2 ** 20) * PRICES.logsPerGb,
  };
  const total = Object.values(lines).reduce((a, b) => a + b, 0);
  const r = (n: number) => Math.round(n * 1e6) / 1e6;
  return {
    receiverMemoryMiB: memory.receiver,
    workerMemoryMiB: memory.worker,
    receiverMsPerEvent: Math.round(receiverMs * 10) / 10,
    workerMsPerEvent: Math.round(inputs.workerMsPerEvent * 10) / 10,
    lines: Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, r(v)])) as CostFigures['lines'],
    usdPer1000Events: r(total),
  };
}
