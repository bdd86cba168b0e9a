import { describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../local/index.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi } from '../../../kit/smaregi.js';

/**
 * A Smaregi delivery naming many transactions, through `npm start`'s intake: every id queued, in
 * batches of 10 (SendMessageBatch on the local queue as on SQS). The worker is paused so the queue
 * shows what intake sent. Timing is the bench's (`production.smaregiFanOut`), not this test's.
 */
describe('a Smaregi delivery fanning out to many transactions', () => {
  let stack: LocalStack;
  withDemoStack({ handlerLogs: 'compact' }, (made) => {
    ({ stack } = made);
  });

  it('queues all 1,000 ids of one delivery in 100 batch sends and answers 202', async () => {
    await stack.queue.pause();
    const before = stack.queue.stats();
    const ids = Array.from({ length: 1000 }, (_, i) => String(700_000 + i));
    const answer = await deliverSmaregi(stack, ids);
    const after = stack.queue.stats();
    expect(answer.status).toBe(202);
    expect(after.sent - before.sent).toBe(1000);
    expect(after.visible - before.visible).toBe(1000);
    expect(after.batchSends - before.batchSends).toBe(100);
  });

  it('refuses a delivery naming more than 1,000 ids with 400, naming the cap, and queues none of them', async () => {
    await stack.queue.pause();
    const before = stack.queue.stats();
    const ids = Array.from({ length: 1001 }, (_, i) => String(800_000 + i));
    const answer = await deliverSmaregi(stack, ids);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('transactionHeadIds: Too big: expected array to have <=1000 items');
    expect(stack.queue.stats().sent).toBe(before.sent);
  });
});
