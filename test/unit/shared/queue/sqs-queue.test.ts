import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueSendError } from '../../../../shared/queue/errors.js';
import { createSqsQueue } from '../../../../shared/queue/sqs-queue.js';
import { readAll } from '../../../support/raw-http.js';

/**
 * SQS itself cannot run here. This server answers SendMessage the way SQS does over its JSON
 * protocol, so the real SDK client (serialisation, endpoint from the queue URL, MD5 check) is used.
 */
interface Received {
  target: string | undefined;
  body: Record<string, unknown>;
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
let failNext = false;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
    received.push({ target: req.headers['x-amz-target'] as string | undefined, body });
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    if (failNext) {
      failNext = false;
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'bad group id' }));
      return;
    }
    const md5 = createHash('md5').update(String(body.MessageBody)).digest('hex');
    res.end(
      JSON.stringify({ MessageId: 'c0ffee00-0000-4000-8000-000000000001', MD5OfMessageBody: md5, SequenceNumber: '18870000000000000001' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function queue() {
  const client = new SQSClient({
    region: 'eu-west-1',
    endpoint: baseUrl,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example-secret-key' },
    maxAttempts: 1,
  });
  return createSqsQueue({ queueUrl: `${baseUrl}/123456789012/points-events.fifo`, client });
}

describe('createSqsQueue', () => {
  it('sends one SendMessage with the body, group id and deduplication id', async () => {
    received.length = 0;
    await queue().send({ body: '{"eventId":"shopify:order:1"}', groupId: 'shopify:shopify:42', deduplicationId: 'shopify:delivery-1' });
    expect(received).toHaveLength(1);
    expect(received[0]?.target).toBe('AmazonSQS.SendMessage');
    expect(received[0]?.body).toMatchObject({
      QueueUrl: `${baseUrl}/123456789012/points-events.fifo`,
      MessageBody: '{"eventId":"shopify:order:1"}',
      MessageGroupId: 'shopify:shopify:42',
      MessageDeduplicationId: 'shopify:delivery-1',
    });
  });

  it('sends a set-aside message its attributes as String message attributes', async () => {
    received.length = 0;
    await queue().send({ body: '{}', groupId: 'aside:g', deduplicationId: 'aside:d', attributes: { 'lp-wake-at': '1795589636578' } });
    expect(received[0]?.body).toMatchObject({
      MessageAttributes: { 'lp-wake-at': { DataType: 'String', StringValue: '1795589636578' } },
    });
  });

  it('reports a refused send as a QueueSendError', async () => {
    failNext = true;
    const error = await queue()
      .send({ body: '{}', groupId: 'g', deduplicationId: 'd' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error).toMatchObject({ kind: 'queue_unavailable' });
  });
});
