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
import { REGION_PRICES } from '../kit/cost.js';

/**
 * Prices per region: kit/cost.ts (REGION_PRICES: US East and Tokyo, from the AWS pricing pages, last
 * checked 2025-05), shared with the chaos year-end run.
 */
export { costOfCounts, costPer, type CostLine, type PriceRegion, REGION_PRICES, type RegionPrices, type UsageCounts } from '../kit/cost.js';

/** The per-1000-events figure below keeps its US East prices (bench/results.md compares against them). */
export const PRICES = REGION_PRICES['us-east-1'];

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

function productionMemory(): { receiver: number; worker: number } {
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
