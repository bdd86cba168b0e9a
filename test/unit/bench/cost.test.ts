import { describe, expect, it } from 'vitest';
import { costPer1000Events, PRICES } from '../../../bench/cost.js';

describe('cost per 1000 events', () => {
  it("bills each function its measured time at the production stage's configured memory", () => {
    const cost = costPer1000Events({ workerMsPerEvent: 100, receiverHandlerMs: 0.4, sqsSendMs: 15, dynamoWritesPerEvent: 2 });
    // 1000 x (0.25 GB x 0.016 s + 0.5 GB x 0.1 s) = 54 GB-s (256 and 512 MB in infra/stages/production.json).
    expect(cost.receiverMemoryMiB).toBe(256);
    expect(cost.workerMemoryMiB).toBe(512);
    expect(cost.lines.lambdaCompute).toBeCloseTo(54 * PRICES.lambdaArmPerGbSecond, 6);
  });

  it('adds the per-request lines to the compute line', () => {
    const cost = costPer1000Events({ workerMsPerEvent: 100, receiverHandlerMs: 0.4, dynamoWritesPerEvent: 2 });
    const sum = Object.values(cost.lines).reduce((a, b) => a + b, 0);
    expect(cost.usdPer1000Events).toBeCloseTo(sum, 6);
    expect(cost.lines.dynamodb).toBeCloseTo((2000 / 1e6) * PRICES.dynamoWritePerMillion, 6);
  });

  it('costs more when the worker waits longer on the Open API', () => {
    const fast = costPer1000Events({ workerMsPerEvent: 100, receiverHandlerMs: 0.4, dynamoWritesPerEvent: 2 });
    const slow = costPer1000Events({ workerMsPerEvent: 1000, receiverHandlerMs: 0.4, dynamoWritesPerEvent: 2 });
    expect(slow.usdPer1000Events).toBeGreaterThan(fast.usdPer1000Events);
  });
});
