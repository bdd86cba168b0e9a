import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { readAll } from './raw-http.js';

/**
 * The AWS services a stage command uses that cannot run here, answered at their HTTP boundary (the
 * SDK finds it through AWS_ENDPOINT_URL_SQS / AWS_ENDPOINT_URL_SECRETS_MANAGER): SQS's JSON protocol
 * (SendMessage, ReceiveMessage, DeleteMessage on FIFO queues kept in memory by URL) and Secrets
 * Manager's GetSecretValue and PutSecretValue; SSM's GetParameter and Lambda's Get/UpdateEventSourceMapping (REST: the
 * worker's pull switch, `npm run pause`). Only what the commands send is implemented; anything else is a 400.
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
  /** A secret's current value (what the last PutSecretValue wrote). */
  secret(name: string): string | undefined;
  setParameter(name: string, value: string): void;
  /** An event source mapping, enabled, under this UUID; its Enabled flag as the last update left it. */
  addMapping(uuid: string): void;
  mappingEnabled(uuid: string): boolean | undefined;
  /** The X-Amz-Target of every call, in order (Lambda's REST calls as `lambda.<METHOD> <path>`). */
  calls: string[];
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startAwsBoundary(): Promise<AwsBoundary> {
  const queues = new Map<string, StoredMessage[]>();
  const secrets = new Map<string, string>();
  const parameters = new Map<string, string>();
  const mappings = new Map<string, boolean>();
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
    if (target === 'secretsmanager.PutSecretValue') {
      const name = String(body.SecretId);
      if (!secrets.has(name)) return { status: 400, body: { __type: 'ResourceNotFoundException', message: 'no such secret' } };
      secrets.set(name, String(body.SecretString));
      return {
        status: 200,
        body: {
          ARN: `arn:aws:secretsmanager:eu-west-1:111111111111:secret:${name}-AbCdEf`,
          Name: name,
          VersionId: randomUUID(),
          VersionStages: ['AWSCURRENT'],
        },
      };
    }
    if (target === 'AmazonSSM.GetParameter') {
      const value = parameters.get(String(body.Name));
      if (value === undefined) return { status: 400, body: { __type: 'ParameterNotFound', message: 'no such parameter' } };
      return { status: 200, body: { Parameter: { Name: body.Name, Type: 'String', Value: value, Version: 1 } } };
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

  /** Lambda's REST API: GET / PUT /2015-03-31/event-source-mappings/{UUID}. */
  function lambdaAnswer(method: string, path: string, body: Record<string, unknown>): { status: number; body: unknown } | undefined {
    const m = /^\/2015-03-31\/event-source-mappings\/([^/?]+)/.exec(path);
    if (!m) return undefined;
    const uuid = decodeURIComponent(m[1]!);
    if (!mappings.has(uuid)) return { status: 404, body: { Type: 'User', message: 'no such mapping' } };
    if (method === 'PUT' && typeof body.Enabled === 'boolean') mappings.set(uuid, body.Enabled);
    return { status: method === 'PUT' ? 202 : 200, body: { UUID: uuid, State: mappings.get(uuid) ? 'Enabled' : 'Disabled' } };
  }

  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const text = await readAll(req);
    const parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    const rest = target === '' ? lambdaAnswer(req.method ?? 'GET', req.url ?? '/', parsed) : undefined;
    calls.push(rest ? `lambda.${req.method} ${req.url}` : target);
    const a = rest ?? answer(target, parsed);
    res.statusCode = a.status;
    res.setHeader('content-type', rest ? 'application/json' : 'application/x-amz-json-1.0');
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    put,
    messages: (url) => queue(url).map((m) => ({ id: m.id, body: m.body, groupId: m.groupId })),
    setSecret: (name, value) => secrets.set(name, value),
    secret: (name) => secrets.get(name),
    setParameter: (name, value) => parameters.set(name, value),
    addMapping: (uuid) => mappings.set(uuid, true),
    mappingEnabled: (uuid) => mappings.get(uuid),
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
export function stubAwsEndpoints(endpoints: {
  dynamodb?: string;
  sqs?: string;
  secretsManager?: string;
  ssm?: string;
  lambda?: string;
}): void {
  if (endpoints.ssm) vi.stubEnv('AWS_ENDPOINT_URL_SSM', endpoints.ssm);
  if (endpoints.lambda) vi.stubEnv('AWS_ENDPOINT_URL_LAMBDA', endpoints.lambda);
  if (endpoints.dynamodb) vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoints.dynamodb);
  if (endpoints.sqs) vi.stubEnv('AWS_ENDPOINT_URL_SQS', endpoints.sqs);
  if (endpoints.secretsManager) vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', endpoints.secretsManager);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example-secret-key');
}
