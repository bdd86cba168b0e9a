import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLocalQueue, systemClock } from '../../../../local/queue/index.js';
import { queueMessageFor } from '../../../../shared/queue/index.js';
import { createWorker, workerDepsFromEnv } from '../../../../shared/worker/index.js';
import { purchase, useHarness, workerEnv } from '../points/harness.js';
import { sqsEvent as eventOf, sqsRecord } from '../../../support/sqs-record.js';

const h = useHarness();

const env = () => workerEnv(h);
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

const sqsEvent = (body: ReturnType<typeof purchase>): SQSEvent =>
  eventOf(sqsRecord(body, { id: `m-${body.orderId}`, groupId: queueMessageFor(body).groupId, sentAt: Date.now() }));

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
