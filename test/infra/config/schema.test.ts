import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  parsePipelineConfig,
  parseStageConfig,
  UPSTREAM_CEILING_PER_MINUTE,
} from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';

/** The staging example as written, as a plain object each test may change. */
function stagingInput(): Record<string, any> {
  return JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'staging.json'), 'utf8'));
}

function problemOf(input: unknown): string {
  try {
    parseStageConfig(input, 'stage.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).kind).toBe('config_invalid');
    return (error as ConfigError).message;
  }
  throw new Error('the configuration was accepted');
}

describe('stage configuration: the rate budget', () => {
  it('rejects a budget that, times the maximum concurrency, exceeds 2000 requests per minute', () => {
    const input = stagingInput();
    input.rate = { budgetPerMinute: 1001, maxConcurrency: 2 };
    expect(problemOf(input)).toMatch(/budgetPerMinute x maxConcurrency must be <= 2000/);
  });

  it('accepts a budget that uses the ceiling exactly', () => {
    const input = stagingInput();
    input.rate = { budgetPerMinute: UPSTREAM_CEILING_PER_MINUTE / 4, maxConcurrency: 4 };
    expect(parseStageConfig(input).rate).toEqual({ budgetPerMinute: 500, maxConcurrency: 4 });
  });

  it('rejects a maximum concurrency below the 2 the SQS event source allows', () => {
    const input = stagingInput();
    input.rate = { budgetPerMinute: 100, maxConcurrency: 1 };
    expect(problemOf(input)).toMatch(/rate\.maxConcurrency/);
  });
});

describe('stage configuration: leases and timeouts', () => {
  it('rejects a lease shorter than the worker timeout', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 60 };
    input.processing = { leaseSeconds: 30 };
    expect(problemOf(input)).toMatch(/leaseSeconds must be >= worker\.timeoutSeconds \+ 15/);
  });

  it('rejects a lease equal to the worker timeout: a call sent at the end could land after a takeover searched', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 60 };
    input.processing = { leaseSeconds: 60 };
    expect(problemOf(input)).toMatch(/leaseSeconds must be >= worker\.timeoutSeconds \+ 15/);
  });

  it('accepts a lease of the worker timeout plus the margin', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 60 };
    input.processing = { leaseSeconds: 75 };
    expect(parseStageConfig(input, 'stage.json').processing.leaseSeconds).toBe(75);
  });

  it('rejects a lease longer than the visibility timeout (6 x the worker timeout)', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 30 };
    input.processing = { leaseSeconds: 181 };
    expect(problemOf(input)).toMatch(/leaseSeconds must be <= 6 x worker\.timeoutSeconds/);
  });

  it('rejects a worker timeout too short for the default lease to fit the visibility timeout', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 2 };
    expect(problemOf(input)).toMatch(/leaseSeconds must be <= 6 x worker\.timeoutSeconds/);
  });

  it('rejects a refund wait longer than the receives before the DLQ allow', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 30 };
    input.queue = { maxReceiveCount: 3 };
    input.processing = { refundWaitSeconds: 361 };
    expect(problemOf(input)).toMatch(/refundWaitSeconds must be <= \(queue\.maxReceiveCount - 1\)/);
  });

  it('accepts a refund wait that ends by the last receive', () => {
    const input = stagingInput();
    input.worker = { memoryMiB: 512, timeoutSeconds: 30 };
    input.queue = { maxReceiveCount: 3 };
    input.processing = { refundWaitSeconds: 360 };
    expect(parseStageConfig(input).processing.refundWaitSeconds).toBe(360);
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
    expect(stage.queue.maxReceiveCount).toBe(5);
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
    expect(() =>
      parsePipelineConfig({ ...valid, connectionArn: 'arn:aws:iam::333333333333:role/x' }),
    ).toThrow(/connection ARN/);
  });
});
