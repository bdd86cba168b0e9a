import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLocalQueue,
  createManualClock,
  type LocalQueue,
  type LocalQueueOptions,
  type ManualClock,
} from '../../../../local/queue/index.js';

// biome-ignore lint/suspicious/noConfusingVoidType: replies as a Lambda SQS handler gives them, void included
type Reply = SQSBatchResponse | void | Error | ((event: SQSEvent) => Promise<SQSBatchResponse | void>);

/** A worker that records every batch and answers what the test scripted (default: all succeeded). */
function harness(options: Omit<LocalQueueOptions, 'clock'> = {}) {
  const clock = createManualClock();
  const queue = createLocalQueue({ visibilityTimeoutMs: 30_000, ...options, clock });
  const batches: SQSEvent[] = [];
  const replies: Reply[] = [];
  queue.start(async (event) => {
    batches.push(event);
    const reply = replies.shift();
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply(event);
    return reply;
  });
  const bodies = (event: SQSEvent | undefined) => event?.Records.map((r) => r.body) ?? [];
  return { clock, queue, batches, replies, bodies };
}

const msg = (body: string, groupId = 'g1', deduplicationId = body) => ({ body, groupId, deduplicationId });

let open: LocalQueue[] = [];
afterEach(async () => {
  await Promise.all(open.map((q) => q.close()));
  open = [];
});
function track<T extends { queue: LocalQueue }>(h: T): T {
  open.push(h.queue);
  return h;
}

async function advance(clock: ManualClock, queue: LocalQueue, ms: number): Promise<void> {
  clock.advance(ms);
  await queue.settled();
}

describe('local FIFO queue', () => {
  it('delivers a sent message as an SQS record carrying the FIFO attributes', async () => {
    const { queue, batches, clock } = track(harness({ name: 'events.fifo' }));
    await queue.send(msg('{"a":1}', 'shopify:42', 'shopify:w1'));
    await queue.settled();
    const record = batches[0]?.Records[0];
    expect(record).toMatchObject({
      body: '{"a":1}',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:events.fifo',
      md5OfBody: createHash('md5').update('{"a":1}').digest('hex'),
      attributes: {
        MessageGroupId: 'shopify:42',
        MessageDeduplicationId: 'shopify:w1',
        ApproximateReceiveCount: '1',
        SentTimestamp: String(clock.now()),
        ApproximateFirstReceiveTimestamp: String(clock.now()),
      },
    });
    expect(record?.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record?.receiptHandle.length).toBeGreaterThan(10);
  });

  it('drops a second message with the same deduplication id within five minutes', async () => {
    const { queue, batches, clock } = track(harness());
    await queue.send(msg('first', 'g1', 'd1'));
    await queue.settled();
    await advance(clock, queue, 299_000);
    await queue.send(msg('copy', 'g1', 'd1'));
    await queue.settled();
    expect(batches.flatMap((b) => b.Records.map((r) => r.body))).toEqual(['first']);
    expect(queue.stats().deduplicated).toBe(1);
  });

  it('accepts the same deduplication id again once the five-minute window has passed', async () => {
    const { queue, batches, clock } = track(harness());
    await queue.send(msg('first', 'g1', 'd1'));
    await advance(clock, queue, 300_000);
    await queue.send(msg('again', 'g1', 'd1'));
    await queue.settled();
    expect(batches.flatMap((b) => b.Records.map((r) => r.body))).toEqual(['first', 'again']);
  });

  it('delivers the messages of one group in send order within one batch', async () => {
    const { queue, batches, bodies } = track(harness());
    // Sent in one tick, before the worker can take any: one batch, in order.
    await Promise.all(['m1', 'm2', 'm3'].map((b) => queue.send(msg(b))));
    await queue.settled();
    expect(batches).toHaveLength(1);
    expect(bodies(batches[0])).toEqual(['m1', 'm2', 'm3']);
  });

  it('holds back a group while one of its messages is in flight', async () => {
    let release!: () => void;
    const { queue, batches, replies, bodies } = track(harness({ concurrency: 4 }));
    replies.push(() => new Promise<void>((r) => (release = r)));
    await queue.send(msg('a1', 'A'));
    await new Promise((r) => setImmediate(r));
    await queue.send(msg('a2', 'A'));
    await queue.send(msg('b1', 'B'));
    await new Promise((r) => setImmediate(r));
    // B runs beside the blocked A; a2 waits for a1.
    expect(batches.map(bodies)).toEqual([['a1'], ['b1']]);
    release();
    await queue.settled();
    expect(batches.map(bodies)).toEqual([['a1'], ['b1'], ['a2']]);
  });

  it('redelivers a reported failure after the visibility timeout, holding its group until then', async () => {
    const { queue, batches, replies, clock, bodies } = track(harness());
    replies.push((event) => Promise.resolve({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] }));
    await queue.send(msg('m1'));
    await queue.settled();
    await queue.send(msg('m2'));
    await advance(clock, queue, 29_999);
    expect(batches).toHaveLength(1);
    await advance(clock, queue, 1);
    expect(batches.map(bodies)).toEqual([['m1'], ['m1', 'm2']]);
    expect(batches[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(batches[1]?.Records[1]?.attributes.ApproximateReceiveCount).toBe('1');
  });

  it('deletes the messages of a batch that the worker did not report as failed', async () => {
    const { queue, replies, clock } = track(harness());
    replies.push((event) => Promise.resolve({ batchItemFailures: [{ itemIdentifier: event.Records[1]!.messageId }] }));
    await Promise.all([queue.send(msg('ok', 'A')), queue.send(msg('bad', 'B'))]);
    await queue.settled();
    expect(queue.stats()).toMatchObject({ deleted: 1, waitingRetry: 1 });
    await advance(clock, queue, 30_000);
    expect(queue.stats()).toMatchObject({ deleted: 2, waitingRetry: 0, visible: 0 });
  });

  it('returns the whole batch when the worker throws', async () => {
    const { queue, batches, replies, clock, bodies } = track(harness());
    replies.push(new Error('worker crashed'));
    await Promise.all([queue.send(msg('m1', 'A')), queue.send(msg('m2', 'B'))]);
    await queue.settled();
    expect(queue.stats().waitingRetry).toBe(2);
    await advance(clock, queue, 30_000);
    expect(bodies(batches[1])).toEqual(['m1', 'm2']);
    expect(queue.stats().deleted).toBe(2);
  });

  it('fails the whole batch when the worker names a message that is not in it', async () => {
    const { queue, replies } = track(harness());
    replies.push({ batchItemFailures: [{ itemIdentifier: 'not-a-message-of-this-batch' }] });
    await Promise.all([queue.send(msg('m1', 'A')), queue.send(msg('m2', 'B'))]);
    await queue.settled();
    expect(queue.stats()).toMatchObject({ deleted: 0, waitingRetry: 2 });
  });

  it('moves a message to the dead-letter list after maxReceiveCount receives, then serves the rest of its group', async () => {
    const { queue, batches, replies, clock, bodies } = track(harness({ maxReceiveCount: 3 }));
    replies.push(new Error('Open API down'), new Error('Open API down'), new Error('Open API down'));
    await queue.send(msg('poison'));
    await queue.settled();
    await queue.send(msg('next'));
    await advance(clock, queue, 30_000);
    await advance(clock, queue, 30_000);
    expect(queue.deadLetters()).toEqual([]);
    await advance(clock, queue, 30_000);
    expect(batches.map(bodies)).toEqual([['poison'], ['poison', 'next'], ['poison', 'next'], ['next']]);
    expect(queue.deadLetters()).toMatchObject([{ body: 'poison', groupId: 'g1', receiveCount: 3, lastError: 'Error: Open API down' }]);
  });

  it('redrives dead-lettered messages back with a fresh receive count', async () => {
    const { queue, batches, replies, clock } = track(harness({ maxReceiveCount: 1 }));
    replies.push(new Error('misconfigured'));
    await queue.send(msg('m1'));
    await advance(clock, queue, 30_000);
    expect(queue.stats().deadLettered).toBe(1);
    expect(queue.redrive()).toBe(1);
    await queue.settled();
    expect(queue.deadLetters()).toEqual([]);
    expect(batches).toHaveLength(2);
    expect(batches[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('1');
    expect(queue.stats().deleted).toBe(1);
  });

  it('hands a message to a second worker when the first outlives the visibility timeout, and ignores the late delete', async () => {
    let releaseFirst!: () => void;
    const { queue, batches, replies, clock } = track(harness({ concurrency: 2 }));
    replies.push(() => new Promise<void>((r) => (releaseFirst = r)), new Error('second attempt failed'));
    await queue.send(msg('slow'));
    await new Promise((r) => setImmediate(r));
    clock.advance(30_000);
    await new Promise((r) => setImmediate(r));
    expect(batches).toHaveLength(2);
    releaseFirst();
    await queue.settled();
    // The first run's success came with a stale receipt: the message stays for its retry.
    expect(queue.stats()).toMatchObject({ deleted: 0, waitingRetry: 1 });
  });

  it('waits for idle until every message is deleted or dead-lettered', async () => {
    const { queue, replies, clock } = track(harness({ maxReceiveCount: 2 }));
    replies.push(new Error('transient'));
    await queue.send(msg('m1'));
    let idle = false;
    const waiting = queue.waitForIdle().then(() => (idle = true));
    await queue.settled();
    expect(idle).toBe(false);
    clock.advance(30_000);
    await waiting;
    expect(queue.stats()).toMatchObject({ deleted: 1, visible: 0, waitingRetry: 0 });
  });

  it('gives up waiting for idle after the timeout with a timeout error', async () => {
    const { queue, replies, clock } = track(harness());
    replies.push(new Error('transient'));
    await queue.send(msg('m1'));
    await queue.settled();
    const waiting = queue.waitForIdle({ timeoutMs: 1_000 });
    clock.advance(1_000);
    await expect(waiting).rejects.toMatchObject({ kind: 'timeout' });
  });

  it.each([
    ['an empty body', { body: '', groupId: 'g', deduplicationId: 'd' }],
    ['a body over 256 KiB', { body: 'x'.repeat(262_145), groupId: 'g', deduplicationId: 'd' }],
    ['a body with a control character', { body: 'a\u0001b', groupId: 'g', deduplicationId: 'd' }],
    ['a group id with a space', { body: 'b', groupId: 'shop ify', deduplicationId: 'd' }],
    ['a deduplication id over 128 characters', { body: 'b', groupId: 'g', deduplicationId: 'd'.repeat(129) }],
  ])('refuses %s and queues nothing', async (_label, message) => {
    const { queue } = track(harness());
    await expect(queue.send(message)).rejects.toMatchObject({ kind: 'invalid_message' });
    expect(queue.stats().sent).toBe(0);
    expect(queue.stats().visible).toBe(0);
  });

  it('refuses sends once closed', async () => {
    const { queue } = harness();
    await queue.close();
    await expect(queue.send(msg('late'))).rejects.toMatchObject({ kind: 'closed' });
  });

  it('keeps messages sent before the worker starts and delivers them once it does', async () => {
    const clock = createManualClock();
    const queue = track({ queue: createLocalQueue({ clock }) }).queue;
    await queue.send(msg('early'));
    await queue.settled();
    expect(queue.stats().visible).toBe(1);
    const seen: string[] = [];
    queue.start(async (event) => {
      seen.push(...event.Records.map((r) => r.body));
    });
    await queue.waitForIdle();
    expect(seen).toEqual(['early']);
  });
});

describe('local FIFO queue notifications', () => {
  it('tells about each copy it drops as a duplicate', async () => {
    const dropped: string[] = [];
    const queue = createLocalQueue({ clock: createManualClock(), onDeduplicated: (m) => dropped.push(m.deduplicationId) });
    await queue.send(msg('a', 'g', 'shopify:w1'));
    await queue.send(msg('a', 'g', 'shopify:w1'));
    expect(dropped).toEqual(['shopify:w1']);
    await queue.close();
  });
});

describe('local FIFO queue: ChangeMessageVisibility', () => {
  it('brings a deferred message back after the seconds given, not after the visibility timeout', async () => {
    const h = track(harness({ visibilityTimeoutMs: 180_000 }));
    h.replies.push(async (event) => {
      const r = event.Records[0]!;
      await h.queue.changeVisibility([{ receiptHandle: r.receiptHandle, eventSourceARN: r.eventSourceARN, seconds: 5 }]);
      return { batchItemFailures: [{ itemIdentifier: r.messageId }] };
    });
    await h.queue.send(msg('waiting'));
    await h.queue.settled();
    await advance(h.clock, h.queue, 4_999);
    expect(h.batches).toHaveLength(1);
    await advance(h.clock, h.queue, 1);
    expect(h.batches).toHaveLength(2);
    expect(h.batches[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it('keeps the rest of the group behind a deferred message', async () => {
    const h = track(harness({ visibilityTimeoutMs: 180_000, batchSize: 1 }));
    h.replies.push(async (event) => {
      const r = event.Records[0]!;
      await h.queue.changeVisibility([{ receiptHandle: r.receiptHandle, eventSourceARN: r.eventSourceARN, seconds: 60 }]);
      return { batchItemFailures: [{ itemIdentifier: r.messageId }] };
    });
    await h.queue.send(msg('first'));
    await h.queue.send(msg('second'));
    await advance(h.clock, h.queue, 30_000);
    expect(h.batches.map((b) => h.bodies(b))).toEqual([['first']]);
    await advance(h.clock, h.queue, 30_000);
    expect(h.batches.map((b) => h.bodies(b))).toEqual([['first'], ['first'], ['second']]);
  });

  it('refuses a receipt handle that is not current, as SQS does', async () => {
    const h = track(harness());
    await expect(h.queue.changeVisibility([{ receiptHandle: 'stale', eventSourceARN: 'arn', seconds: 5 }])).rejects.toMatchObject({
      kind: 'invalid_message',
    });
  });
});

describe('pausing (the event source mapping disabled)', () => {
  it('hands out no batch while paused, keeps every message, and delivers them all once resumed', async () => {
    const h = track(harness());
    await h.queue.pause();
    await h.queue.send(msg('a'));
    await h.queue.send(msg('b', 'g2'));
    await h.queue.settled();
    expect(h.batches).toEqual([]);
    expect(h.queue.stats()).toMatchObject({ visible: 2, paused: true, received: 0 });
    await h.queue.resume();
    await h.queue.waitForIdle();
    expect(h.batches.flatMap(h.bodies).sort()).toEqual(['a', 'b']);
    expect(await h.queue.isPaused()).toBe(false);
  });
});

describe('message attributes', () => {
  it('hands a message its attributes as SQS string attributes', async () => {
    const h = track(harness());
    await h.queue.send({ ...msg('a'), attributes: { 'lp-wake-at': '123' } });
    await h.queue.waitForIdle();
    expect(h.batches[0]?.Records[0]?.messageAttributes['lp-wake-at']).toMatchObject({ dataType: 'String', stringValue: '123' });
  });
});
