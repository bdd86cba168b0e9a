import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { queueMessageFor } from '../../../../shared/queue/index.js';
import { createWorker, workerDepsFromEnv } from '../../../../shared/worker/index.js';
import { purchase, useHarness, workerEnv } from '../points/harness.js';
import { sqsEvent, sqsRecord } from '../../../support/sqs-record.js';

/**
 * The worker's batch: its FIFO groups side by side, each in order. Overlap is seen in the order events
 * finish while the emulator holds one group's answer back (its `delay` fault), never by timing.
 */
const h = useHarness();
const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

let messages = 0;
const GOLD = { externalKey: 'shopify', externalId: 'cust-gold' };
const REGULAR = { externalKey: 'shopify', externalId: 'cust-regular' };
const recordOf = (body: object | string, groupId?: string): SQSRecord => {
  const sequence = ++messages;
  const group = groupId ?? queueMessageFor(body as ReturnType<typeof purchase>).groupId;
  return sqsRecord(body, { id: `batch-${sequence}`, groupId: group, sequence, sentAt: h.clock() });
};

/** A worker whose 'event processed' lines give the order ids in the order their events finished. */
function worker() {
  const finished: string[] = [];
  const note = (message: string, fields?: Record<string, unknown>) => {
    if (message === 'event processed') finished.push(String(fields?.orderId ?? fields?.messageId));
  };
  const logger = { info: note, warn: note, error: note };
  return { finished, worker: createWorker(workerDepsFromEnv(workerEnv(h), { logger, metrics, clock: h.clock })) };
}

describe('a batch of several FIFO groups', () => {
  it('runs the other groups while one group’s call is held, each group in its order', async () => {
    const [a1, a2] = [purchase({ customer: GOLD }), purchase({ customer: GOLD })];
    const [b1, b2] = [purchase({ customer: REGULAR }), purchase({ customer: REGULAR })];
    // The gold customer's first calculation is answered late: alone, the batch would wait on it.
    await h.emulator.addFault({
      method: 'POST',
      path: '^/api/ext/users/member-gold/points/calculation$',
      fault: 'delay',
      times: 1,
      delay_ms: 1500,
    });
    const { finished, worker: w } = worker();
    const result = await w.handle(sqsEvent(recordOf(a1), recordOf(b1), recordOf(a2), recordOf(b2)));
    expect(result.batchItemFailures).toEqual([]);
    expect(finished).toEqual([b1.orderId, b2.orderId, a1.orderId, a2.orderId]);
  });

  it('credits every event of every group once', async () => {
    const sales = [
      purchase({ customer: GOLD }),
      purchase({ customer: REGULAR }),
      purchase({ customer: GOLD }),
      purchase({ customer: REGULAR }),
    ];
    const { worker: w } = worker();
    await w.handle(sqsEvent(...sales.map((s) => recordOf(s))));
    const outcomes = await Promise.all(sales.map(async (s) => (await h.ledger.getOrder(s))?.outcome));
    expect(outcomes).toEqual(['credited', 'credited', 'credited', 'credited']);
  });

  it('fails a failed message and every later message of its group, and no message of another group', async () => {
    const before = purchase({ customer: GOLD });
    const group = queueMessageFor(before).groupId;
    const bad = recordOf('not an event', group);
    const after = purchase({ customer: GOLD });
    const other = [purchase({ customer: REGULAR }), purchase({ customer: REGULAR })];
    const records = [recordOf(before), recordOf(other[0] as object), bad, recordOf(other[1] as object), recordOf(after)];
    const { worker: w } = worker();
    const result = await w.handle(sqsEvent(...records));
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([bad.messageId, records[4]?.messageId]);
    expect((await h.ledger.getOrder(before))?.outcome).toBe('credited');
    expect(await h.ledger.getOrder(after)).toBeUndefined();
    for (const sale of other) expect((await h.ledger.getOrder(sale))?.outcome).toBe('credited');
  });
});
