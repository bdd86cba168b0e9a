import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { readAll } from './raw-http.js';

/**
 * The AWS services a stage command uses that cannot run here, answered at their HTTP boundary (the
 * SDK finds it through AWS_ENDPOINT_URL_SQS / AWS_ENDPOINT_URL_SECRETS_MANAGER): SQS's JSON protocol
 * (SendMessage, ReceiveMessage, DeleteMessage on FIFO queues kept in memory by URL) and Secrets
 * Manager's GetSecretValue. Only what the commands send is implemented; anything else is a 400.
 */

interface StoredMessage {
  id: string;
  body: string;
  groupId: string;
  deduplicationId: string;
  receiveCount: number;
  invisibleUntil: number;
  receipt?: string;
}

export interface AwsBoundary {
  url: string;
  /** Puts a message in a queue as SQS holds it (e.g. a dead letter after its receives). */
  put(queueUrl: string, message: { body: string; groupId: string; deduplicationId?: string; receiveCount?: number }): string;
  /** What a queue holds (bodies, in order). */
  messages(queueUrl: string): { id: string; body: string; groupId: string }[];
  setSecret(name: string, value: string): void;
  /** The X-Amz-Target of every call, in order. */
  calls: string[];
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startAwsBoundary(): Promise<AwsBoundary> {
  const queues = new Map<string, StoredMessage[]>();
  const secrets = new Map<string, string>();
  const calls: string[] = [];
  const queue = (url: unknown) => {
    const key = String(url);
    if (!queues.has(key)) queues.set(key, []);
    return queues.get(key)!;
  };
  const put: AwsBoundary['put'] = (queueUrl, m) => {
    const id = randomUUID();
    queue(queueUrl).push({
      id,
      body: m.body,
      groupId: m.groupId,
      deduplicationId: m.deduplicationId ?? id,
      receiveCount: m.receiveCount ?? 0,
      invisibleUntil: 0,
    });
    return id;
  };

  function answer(target: string, body: Record<string, unknown>): { status: number; body: unknown } {
    if (target === 'secretsmanager.GetSecretValue') {
      const value = secrets.get(String(body.SecretId));
      if (value === undefined) return { status: 400, body: { __type: 'ResourceNotFoundException', message: 'no such secret' } };
      return {
        status: 200,
        body: {
          ARN: `arn:aws:secretsmanager:eu-west-1:111111111111:secret:${String(body.SecretId)}-AbCdEf`,
          Name: body.SecretId,
          SecretString: value,
          VersionId: 'v1',
        },
      };
    }
    if (target === 'AmazonSQS.SendMessage') {
      const id = put(String(body.QueueUrl), {
        body: String(body.MessageBody),
        groupId: String(body.MessageGroupId),
        deduplicationId: String(body.MessageDeduplicationId),
      });
      return {
        status: 200,
        body: { MessageId: id, MD5OfMessageBody: md5(String(body.MessageBody)), SequenceNumber: String(calls.length) },
      };
    }
    if (target === 'AmazonSQS.ReceiveMessage') {
      const now = Date.now();
      const visible = queue(body.QueueUrl)
        .filter((m) => m.invisibleUntil <= now)
        .slice(0, Number(body.MaxNumberOfMessages ?? 1));
      for (const m of visible) {
        m.receiveCount += 1;
        m.invisibleUntil = now + Number(body.VisibilityTimeout ?? 30) * 1000;
        m.receipt = randomUUID();
      }
      return {
        status: 200,
        body: {
          Messages: visible.map((m) => ({
            MessageId: m.id,
            ReceiptHandle: m.receipt,
            MD5OfBody: md5(m.body),
            Body: m.body,
            Attributes: {
              MessageGroupId: m.groupId,
              MessageDeduplicationId: m.deduplicationId,
              ApproximateReceiveCount: String(m.receiveCount),
            },
          })),
        },
      };
    }
    if (target === 'AmazonSQS.DeleteMessage') {
      const list = queue(body.QueueUrl);
      const at = list.findIndex((m) => m.receipt === body.ReceiptHandle);
      if (at >= 0) list.splice(at, 1);
      return { status: 200, body: {} };
    }
    return { status: 400, body: { __type: 'InvalidAction', message: `not answered here: ${target}` } };
  }

  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    calls.push(target);
    const text = await readAll(req);
    const a = answer(target, text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
    res.statusCode = a.status;
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    put,
    messages: (url) => queue(url).map((m) => ({ id: m.id, body: m.body, groupId: m.groupId })),
    setSecret: (name, value) => secrets.set(name, value),
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Points the AWS SDK at local stand-ins, service by service (AWS_ENDPOINT_URL_<SERVICE>), with dummy
 * credentials; undo with vi.unstubAllEnvs().
 */
export function stubAwsEndpoints(endpoints: { dynamodb?: string; sqs?: string; secretsManager?: string }): void {
  if (endpoints.dynamodb) vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoints.dynamodb);
  if (endpoints.sqs) vi.stubEnv('AWS_ENDPOINT_URL_SQS', endpoints.sqs);
  if (endpoints.secretsManager) vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', endpoints.secretsManager);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example-secret-key');
}
