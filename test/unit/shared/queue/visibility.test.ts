import { describe, expect, it } from 'vitest';
import { queueUrlOfArn } from '../../../../shared/queue/index.js';

describe('the queue a record came from', () => {
  it('turns the record’s eventSourceARN into the queue URL SQS expects', () => {
    expect(queueUrlOfArn('arn:aws:sqs:eu-west-1:123456789012:points-events.fifo')).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/points-events.fifo',
    );
  });

  it('refuses an ARN that is not an SQS queue', () => {
    expect(() => queueUrlOfArn('arn:aws:sns:eu-west-1:123456789012:topic')).toThrow(/not an SQS queue ARN/);
  });
});
