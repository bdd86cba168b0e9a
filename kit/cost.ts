/**
 * What AWS charges for the stack's usage, by region: the price lists and the arithmetic from counted
 * usage to dollars. Used by the bench (bench/cost.ts) and by the chaos year-end run (its cost per
 * million receipts), so both price the same way.
 */

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
 * customer. Tokyo (ap-northeast-1) is where production runs (infra/stages/production.json); the stack
 * uses ARM (arm64) Lambda and an HTTP API (infra/constructs/bundled-function.ts, webhook-api.ts).
 *
 * Provenance of the Tokyo figures, looked for again on 2026-12-02 (issue 54, item 5) in the stored copies
 * of the price pages: AWS's pages render each region's table by script from a price endpoint, and the
 * stored text holds only the US East examples, so **no Tokyo price below could be verified against an
 * AWS page**. What was found, line by line:
 * - apiGatewayPerMillion 1.29: https://aws.amazon.com/api-gateway/pricing/ (no region table in the
 *   stored text); AWS's whitepaper https://docs.aws.amazon.com/whitepapers/latest/best-practices-api-gateway-private-apis-integration/cost-optimization.html
 *   gives HTTP APIs $1.00 per million in us-east-1 only. Tokyo: not verified.
 * - lambdaRequestsPerMillion 0.2, lambdaArmPerGbSecond 0.0000133334: https://aws.amazon.com/lambda/pricing/
 *   (no region table in the stored text; $0.20 per million and Arm $0.0000133334 per GB-s are the US
 *   figures); artillery's region price list (https://app.unpkg.com/artillery@2.0.28/files/lib/platform/aws-lambda/prices.js)
 *   overrides the base price for af-south-1, ap-east-1, eu-south-1, me-south-1, me-central-1, not for
 *   ap-northeast-1, which agrees with Tokyo at the base price. Tokyo: not verified on an AWS page.
 * - sqsFifoPerMillion 0.5: https://aws.amazon.com/about-aws/whats-new/2016/11/amazon-sqs-introduces-fifo-queues-with-exactly-once-processing-and-lower-prices-for-standard-queues/
 *   ($0.50 per million FIFO requests at launch, US regions). Tokyo: not verified.
 * - dynamoWritePerMillion 0.715, dynamoReadPerMillion 0.1425: https://aws.amazon.com/jp/dynamodb/pricing/
 *   and https://aws.amazon.com/dynamodb/pricing/ (no region table in the stored text). Tokyo: not verified.
 * - logsPerGb 0.76: https://awsi.click/en/articles/cloudwatch-logs-cost-structure-surprise/ (a third
 *   party, not AWS: "$0.76 per GB in ap-northeast-1" for ingestion). Not verified on an AWS page.
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
