import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLocalQueue, systemClock } from '../../../../local/queue/index.js';
import { queueMessageFor } from '../../../../shared/queue/index.js';
import { createWorker, workerDepsFromEnv } from '../../../../shared/worker/index.js';
import { purchase, useHarness } from '../points/harness.js';

const h = useHarness();

const env = () => ({
  LEDGER_TABLE: h.dynamo.tableName,
  DYNAMODB_ENDPOINT: h.dynamo.endpoint,
  OPENAPI_BASE_URL: h.emulator.url,
  OPENAPI_CLIENT_ID: 'test-client',
  OPENAPI_CLIENT_SECRET: 'test-secret',
  POWERTOOLS_METRICS_NAMESPACE: 'test',
});
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** One SQS record as Lambda's SQS integration delivers it (SQS itself cannot run here). */
function sqsEvent(body: ReturnType<typeof purchase>): SQSEvent {
  const attributes = {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(Date.now()),
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
    MessageGroupId: queueMessageFor(body).groupId,
    MessageDeduplicationId: body.eventId,
    SequenceNumber: '1',
  };
  const record = { messageId: `m-${body.orderId}`, receiptHandle: 'rh', body: JSON.stringify(body), attributes, messageAttributes: {} };
  return {
    Records: [
      {
        ...record,
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:ap-northeast-1:0:q.fifo',
        awsRegion: 'ap-northeast-1',
      },
    ],
  };
}

describe('the worker made by createWorker', () => {
  it('credits a purchase handed to it as an SQS batch, once', async () => {
    const worker = createWorker(workerDepsFromEnv(env(), { logger: quiet, metrics }));
    const sale = purchase();
    expect((await worker.handle(sqsEvent(sale))).batchItemFailures).toEqual([]);
    expect((await worker.handle(sqsEvent(sale))).batchItemFailures).toEqual([]);
    expect(await h.ledger.getOrder(sale)).toMatchObject({ outcome: 'credited', pointsHint: 50 });
    expect(await h.calls('POST /api/ext/users/{id}/points/calculation')).toBe(1);
  });

  it('resumes pulling an outage paused on its recovery tick, once the Open API answers', async () => {
    const queue = createLocalQueue({ clock: systemClock });
    const worker = createWorker(workerDepsFromEnv(env(), { logger: quiet, metrics, pull: queue }));
    await queue.pause();
    expect(await worker.recover()).toBe('resumed');
    expect(await queue.isPaused()).toBe(false);
    await queue.close();
  });
});
