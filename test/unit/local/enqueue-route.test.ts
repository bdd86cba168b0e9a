import { describe, expect, it } from 'vitest';
import { enqueueRoute, LOCAL_ENQUEUE_PATH } from '../../../local/enqueue-route.js';
import { createLocalQueue, type LocalQueue } from '../../../local/queue/index.js';

const route = (queue: LocalQueue | undefined) => enqueueRoute(() => queue)[`POST ${LOCAL_ENQUEUE_PATH}`]!;
const call = async (queue: LocalQueue | undefined, body: string) => {
  const answer = await route(queue)({ body: Buffer.from(body) });
  return { status: answer.status, json: JSON.parse(answer.body.toString()) as Record<string, unknown> };
};
const message = { body: '{"eventId":"shopify:order:1"}', groupId: 'shopify:shopify:1001', deduplicationId: 'shopify:shopify:order:1' };

describe('POST /__local/enqueue', () => {
  it('queues each message as SendMessage would, group and deduplication id kept', async () => {
    const queue = createLocalQueue({});
    const res = await call(queue, JSON.stringify({ messages: [message] }));
    expect(res).toEqual({ status: 200, json: { enqueued: 1 } });
    expect(queue.stats().visible).toBe(1);
    await queue.close();
  });

  it('refuses a message without a group id with 422 naming the field, queueing nothing', async () => {
    const queue = createLocalQueue({});
    const res = await call(queue, JSON.stringify({ messages: [{ body: 'x', deduplicationId: 'd' }] }));
    expect(res.status).toBe(422);
    expect(res.json.error).toContain('messages.0.groupId');
    expect(queue.stats().visible).toBe(0);
    await queue.close();
  });

  it('refuses a body that is not JSON with 400', async () => {
    expect((await call(createLocalQueue({}), '{')).status).toBe(400);
  });

  it('answers 503 while the queue has not started', async () => {
    expect((await call(undefined, JSON.stringify({ messages: [message] }))).status).toBe(503);
  });
});
