import { describe, expect, it } from 'vitest';
import { costOfCounts, costPer, REGION_PRICES } from '../../../kit/cost.js';

describe('cost of counted usage at a region’s prices', () => {
  const prices = {
    apiGatewayPerMillion: 1,
    lambdaRequestsPerMillion: 0.2,
    lambdaArmPerGbSecond: 0.00001,
    sqsFifoPerMillion: 0.5,
    dynamoWritePerMillion: 1,
    dynamoReadPerMillion: 0.25,
    logsPerGb: 0.5,
  };
  const counts = {
    apiGatewayRequests: 2e6,
    lambdaRequests: 3e6,
    lambdaGbSeconds: 100_000,
    sqsRequests: 4e6,
    dynamoWriteUnits: 5e6,
    dynamoReadUnits: 4e6,
    logBytes: 2 * 2 ** 30,
  };

  it('prices every line from its count and adds them up', () => {
    const cost = costOfCounts(counts, prices);
    const expected = { apiGateway: 2, lambdaRequests: 0.6, lambdaCompute: 1, sqs: 2, dynamoWrites: 5, dynamoReads: 1, logs: 1 };
    for (const [line, usd] of Object.entries(expected)) expect(cost.lines[line as keyof typeof expected]).toBeCloseTo(usd, 9);
    expect(cost.total).toBeCloseTo(12.6, 9);
  });

  it('scales a run’s counts to a million receipts', () => {
    // The counts above for 2 million receipts: half of each line per million.
    expect(costPer(2e6, 1e6, counts, prices).total).toBeCloseTo(6.3, 9);
  });

  it('refuses to price per receipt a run with no receipts', () => {
    expect(() => costPer(0, 1e6, counts, prices)).toThrow(/0 receipts/);
  });

  it('has a Tokyo price list, dearer than US East for API Gateway and logs', () => {
    expect(REGION_PRICES['ap-northeast-1'].apiGatewayPerMillion).toBeGreaterThan(REGION_PRICES['us-east-1'].apiGatewayPerMillion);
    expect(REGION_PRICES['ap-northeast-1'].logsPerGb).toBeGreaterThan(REGION_PRICES['us-east-1'].logsPerGb);
  });
});
