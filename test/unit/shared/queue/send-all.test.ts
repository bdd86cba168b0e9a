import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalQueue } from '../../../../local/queue/index.js';
import { QueueSendError } from '../../../../shared/queue/errors.js';
import { batchesOf, createSqsQueue, type QueueMessage, sendAll } from '../../../../shared/queue/index.js';
import { readAll } from '../../../support/raw-http.js';

/**
 * SQS itself cannot run here. This server answers SendMessageBatch over SQS's JSON protocol as SQS
 * does, including partial failures (`Failed` entries beside `Successful` ones), so the real SDK
 * client is used. `failures` says which message bodies fail, how many times, and whether by the sender's fault.
 */
let server: Server;
let baseUrl: string;
const stored: string[] = [];
const calls: number[] = [];
let failures = new Map<string, { times: number; senderFault: boolean }>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req)) as { Entries: { Id: string; MessageBody: string }[] };
    calls.push(body.Entries.length);
    const successful = [];
    const failed = [];
    for (const e of body.Entries) {
      const f = failures.get(e.MessageBody);
      if (f && f.times > 0) {
        f.times -= 1;
        failed.push({ Id: e.Id, Code: f.senderFault ? 'InvalidParameterValue' : 'InternalError', SenderFault: f.senderFault });
        continue;
      }
      stored.push(e.MessageBody);
      const md5 = createHash('md5').update(e.MessageBody).digest('hex');
      successful.push({ Id: e.Id, MessageId: `m-${stored.length}`, MD5OfMessageBody: md5, SequenceNumber: String(stored.length) });
    }
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end(JSON.stringify({ Successful: successful, Failed: failed }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  stored.length = 0;
  calls.length = 0;
  failures = new Map();
});

const sqs = () =>
  createSqsQueue({
    queueUrl: `${baseUrl}/123456789012/points-events.fifo`,
    client: new SQSClient({
      region: 'ap-northeast-1',
      endpoint: baseUrl,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example-secret-key' },
      maxAttempts: 1,
    }),
  });
const message = (i: number): QueueMessage => ({ body: `{"n":${i}}`, groupId: `smaregi:order:${i}`, deduplicationId: `smaregi:d-${i}` });
const messages = (n: number) => Array.from({ length: n }, (_, i) => message(i));
const noWait = { sleep: async () => undefined };

describe('sendAll', () => {
  it('sends 25 messages in three SendMessageBatch calls of 10, 10 and 5, in order', async () => {
    await sendAll(sqs(), messages(25), noWait);
    expect(calls).toEqual([10, 10, 5]);
    expect(stored).toEqual(messages(25).map((m) => m.body));
  });

  it('sends again the entries a batch reports failed, and only those, until every one is queued', async () => {
    failures.set(message(3).body, { times: 1, senderFault: false });
    failures.set(message(7).body, { times: 2, senderFault: false });
    await sendAll(sqs(), messages(10), noWait);
    expect(calls).toEqual([10, 2, 1]);
    expect([...stored].sort()).toEqual(
      messages(10)
        .map((m) => m.body)
        .sort(),
    );
    expect(new Set(stored).size).toBe(10);
  });

  it('throws QueueSendError when an entry still fails after its tries, having queued the others', async () => {
    failures.set(message(4).body, { times: 99, senderFault: false });
    await expect(sendAll(sqs(), messages(10), noWait)).rejects.toBeInstanceOf(QueueSendError);
    expect(calls).toEqual([10, 1, 1, 1]);
    expect(stored).toHaveLength(9);
  });

  it('does not send again an entry refused by its own fault, and throws', async () => {
    failures.set(message(2).body, { times: 99, senderFault: true });
    await expect(sendAll(sqs(), messages(10), noWait)).rejects.toBeInstanceOf(QueueSendError);
    expect(calls).toEqual([10]);
  });

  it('keeps a batch under 256 KiB of bodies, however few entries', () => {
    const big = (i: number): QueueMessage => ({ ...message(i), body: 'x'.repeat(100 * 1024) });
    expect(batchesOf([big(1), big(2), big(3), message(4)]).map((b) => b.length)).toEqual([2, 2]);
  });

  it('queues every message on the local queue in batches, as on SQS', async () => {
    const queue = createLocalQueue();
    await sendAll(queue, messages(1000), noWait);
    expect(queue.stats()).toMatchObject({ sent: 1000, batchSends: 100, visible: 1000 });
    await queue.close();
  });

  it('reports an entry the local queue cannot take as failed by its own fault, and queues the rest', async () => {
    const queue = createLocalQueue();
    const bad = { ...message(5), groupId: 'no spaces allowed' };
    const failed = await queue.sendBatch?.([message(1), bad, message(2)]);
    expect(failed).toEqual([{ index: 1, code: 'invalid_message', senderFault: true }]);
    expect(queue.stats()).toMatchObject({ visible: 2 });
    await queue.close();
  });
});
