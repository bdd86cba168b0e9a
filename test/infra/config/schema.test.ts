import { describe, expect, it } from 'vitest';
import {
  parsePipelineConfig,
  parseStageConfig,
  stageProcessingSettings,
  stageTiming,
  UPSTREAM_CEILING_PER_MINUTE,
} from '../../../infra/config/index.js';
import { poisonToDeadLetterSeconds } from '../../../shared/config/timing.js';
import { problemOf, stagingInput } from '../support/stage-input.js';

describe('stage configuration: the one upstream budget', () => {
  it('rejects a budget over the 2,000 requests a minute the Open API recommends', () => {
    const input = stagingInput();
    input.rate = { upstreamPerMinute: UPSTREAM_CEILING_PER_MINUTE + 1 };
    expect(problemOf(input)).toMatch(/rate\.upstreamPerMinute/);
  });

  it('defaults to 1,800 a minute at an assumed mean of 230 ms a call', () => {
    const input = stagingInput();
    delete input.rate;
    expect(parseStageConfig(input).rate).toEqual({ upstreamPerMinute: 1800, upstreamLatencyMs: 230 });
  });

  it('refuses a file still naming budgetPerMinute and maxConcurrency, saying how to write upstreamPerMinute from them', () => {
    const input = stagingInput();
    input.rate = { budgetPerMinute: 950, maxConcurrency: 2 };
    const problem = problemOf(input);
    expect(problem).toMatch(/replaced by rate\.upstreamPerMinute/);
    expect(problem).toMatch(/budgetPerMinute x maxConcurrency \(here 950 x 2 = 1900\)/);
  });

  it('refuses the old maxConcurrency alone too', () => {
    const input = stagingInput();
    input.rate = { upstreamPerMinute: 1800, maxConcurrency: 4 };
    expect(problemOf(input)).toMatch(/replaced by rate\.upstreamPerMinute/);
  });
});

describe('stage configuration: leases and timeouts', () => {
  it('rejects a lease that leaves less than 5 s to send after its 15 s margin', () => {
    const input = stagingInput();
    input.processing = { leaseSeconds: 19 };
    expect(problemOf(input)).toMatch(/the lease \(19 s\) must be >= 20 s: its last 15 s are kept clear of calls/);
  });

  it('rejects an in-doubt horizon shorter than the lease margin, naming processing.inDoubtSeconds', () => {
    const input = stagingInput();
    input.processing = { inDoubtSeconds: 14 };
    expect(problemOf(input)).toMatch(/in-doubt horizon \(14 s\) must be >= the lease's margin[\s\S]*processing\.inDoubtSeconds/);
  });

  it('accepts a lease shorter than the worker timeout: the send window, not the invocation, bounds its calls', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 60 };
    input.processing = { leaseSeconds: 20 };
    expect(parseStageConfig(input, 'stage.json').processing.leaseSeconds).toBe(20);
  });

  it('rejects a lease longer than the visibility timeout (6 x the worker timeout)', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 30 };
    input.processing = { leaseSeconds: 181 };
    expect(problemOf(input)).toMatch(/the visibility timeout \(180 s\) must be >= the lease \(181 s\)/);
  });

  it('rejects a worker timeout too short for the default lease to fit the visibility timeout', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 2 };
    expect(problemOf(input)).toMatch(/the visibility timeout \(12 s\) must be >= the lease \(30 s\)/);
  });

  it('rejects a receive count a set-aside copy could not run in', () => {
    const input = stagingInput();
    input.queue = { maxReceiveCount: 1 };
    expect(problemOf(input)).toMatch(/maxReceiveCount \(1\) must be >= 2: a set-aside copy takes one receive to defer itself, one to run/);
  });

  it('derives a receive count that sends poison to the DLQ within minutes, while waiting spends none', () => {
    const stage = parseStageConfig(stagingInput());
    const timing = stageTiming(stage);
    expect(timing.retryHorizonSeconds).toBe(86_400);
    expect(timing.maxReceiveCount).toBe(6);
    expect(poisonToDeadLetterSeconds(timing.maxReceiveCount)).toBeLessThan(6 * 60);
  });

  it('rejects a refund wait longer than the retry horizon', () => {
    const input = stagingInput();
    input.retry = { horizonSeconds: 3600 };
    input.processing = { refundWaitSeconds: 3601 };
    expect(problemOf(input)).toMatch(/the refund wait \(3601 s\) must be <= the retry horizon \(3600 s\)/);
  });

  it('rejects a horizon whose events could expire from the queue before reaching the DLQ', () => {
    const input = stagingInput();
    input.retry = { horizonSeconds: 4 * 86_400 };
    expect(problemOf(input)).toMatch(/must be < the queue's retention \(345600 s\)/);
  });

  it("rejects a dead-letter retention no longer than the source queue's 4 days", () => {
    const input = stagingInput();
    input.queue = { dlqRetentionDays: 4 };
    expect(problemOf(input)).toMatch(/queue\.dlqRetentionDays/);
  });

  it('rejects a function memory above the bound', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 10_240, timeoutSeconds: 30 };
    expect(problemOf(input)).toMatch(/worker\.memoryMiB/);
  });
});

describe('stage configuration: fields', () => {
  it('rejects an unknown key, so a typo is not silently ignored', () => {
    const input = stagingInput();
    input.productoin = true;
    expect(problemOf(input)).toMatch(/productoin/);
  });

  it('rejects an account id that is not 12 digits', () => {
    const input = stagingInput();
    input.account = '12345';
    expect(problemOf(input)).toMatch(/12 digits/);
  });

  it('rejects a log retention CloudWatch does not offer', () => {
    const input = stagingInput();
    input.observability = { logRetentionDays: 10 };
    expect(problemOf(input)).toMatch(/observability\.logRetentionDays/);
  });

  it('rejects both an alarm e-mail and an existing topic', () => {
    const input = stagingInput();
    input.alarms = { email: 'ops@example.com', topicArn: 'arn:aws:sns:eu-west-1:111111111111:ops' };
    expect(problemOf(input)).toMatch(/either email or topicArn/);
  });

  it('rejects a stage without any webhook source', () => {
    const input = stagingInput();
    input.sources = {};
    expect(problemOf(input)).toMatch(/at least one webhook source/);
  });

  it("rejects source settings the intake's own schema refuses, naming the field", () => {
    const input = stagingInput();
    input.sources.shopify.pointTitle = 'Order {orderNumber}';
    expect(problemOf(input)).toMatch(/shopify\.pointTitle: unknown placeholder/);
  });

  it('rejects an external key the membership service would refuse', () => {
    const input = stagingInput();
    input.sources.pos.externalKey = 'pos card';
    expect(problemOf(input)).toMatch(/pos\.externalKey/);
  });

  it('fills in defaults for what a stage file leaves out', () => {
    const input = stagingInput();
    delete input.processing;
    delete input.queue;
    delete input.worker;
    const stage = parseStageConfig(input);
    expect(stage.processing.insufficientPointsPolicy).toBe('clamp');
    expect(stage.queue.maxReceiveCount).toBeUndefined();
    expect(stageTiming(stage)).toMatchObject({ leaseSeconds: 30, visibilityTimeoutSeconds: 180, refundWaitSeconds: 120 });
    expect(stage.worker).toEqual({ memoryMiB: 512, timeoutSeconds: 30 });
  });

  it('defaults the scheduled audit to daily at 03:00 UTC over the last 3 days, with 15 minutes to run', () => {
    const input = stagingInput();
    delete input.audit;
    expect(parseStageConfig(input).audit).toEqual({ days: 3, hourUtc: 3, memoryMiB: 512, timeoutSeconds: 900 });
  });

  it('rejects an audit hour that is not an hour of the day', () => {
    const input = stagingInput();
    input.audit = { hourUtc: 24 };
    expect(problemOf(input)).toMatch(/audit\.hourUtc/);
  });
});

describe('pipeline configuration', () => {
  const valid = {
    account: '333333333333',
    region: 'eu-west-1',
    connectionArn: 'arn:aws:codeconnections:eu-west-1:333333333333:connection/abc-123',
    repository: 'retailer/loyalty-points-bridge',
    stages: ['staging'],
  };

  it('defaults the branch to main', () => {
    expect(parsePipelineConfig(valid).branch).toBe('main');
  });

  it('rejects a repository that is not owner/name', () => {
    expect(() => parsePipelineConfig({ ...valid, repository: 'loyalty' })).toThrow(/owner\/name/);
  });

  it('rejects a connection ARN of another service', () => {
    expect(() => parsePipelineConfig({ ...valid, connectionArn: 'arn:aws:iam::333333333333:role/x' })).toThrow(/connection ARN/);
  });
});

describe('stage configuration: campaigns', () => {
  const rule = { id: 'double', title: 'ポイント2倍', from: '2026-12-01T00:00:00+09:00', to: '2026-12-02T00:00:00+09:00', multiplier: '2' };

  it('refuses a bad campaign rule at synthesis, naming its id and field', () => {
    const input = { ...stagingInput(), campaigns: [rule, { ...rule, id: 'both', fixedPoints: 5 }] };
    expect(problemOf(input)).toMatch(/campaign 'both' \(campaigns\[1\]\) multiplier: give exactly one of multiplier or fixedPoints/);
  });

  it('hands the rules to the worker as CAMPAIGNS_CONFIG', () => {
    const stage = parseStageConfig({ ...stagingInput(), campaigns: [rule] });
    expect(stageProcessingSettings(stage).campaigns).toEqual([rule]);
  });
});

describe('stage configuration: when points are earned', () => {
  it('refuses a bad earnAfter at synthesis, naming the source and field', () => {
    const input = stagingInput();
    input.sources.shopify.earnAfter = { days: 0 };
    expect(problemOf(input)).toMatch(/shopify\.earnAfter: expected "paid", "fulfilled" or \{"days": N\} with N from 1 to 365/);
  });

  it('accepts earning at fulfilment and N days after payment', () => {
    for (const earnAfter of ['fulfilled', { days: 14 }]) {
      const input = stagingInput();
      input.sources.shopify.earnAfter = earnAfter;
      expect(parseStageConfig(input).sources.shopify).toMatchObject({ earnAfter });
    }
  });
});
