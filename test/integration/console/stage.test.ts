import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ConsoleServer, startConsoleServer } from '../../../console/index.js';
import { stageConsoleSource } from '../../../console/stage.js';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { handleOf, LOCAL_DEFAULTS, type LocalStack, startLocalStack } from '../../../local/index.js';
import { DeleteCommand, PutCommand } from '../../../shared/dynamodb/index.js';
import { type ConfiguredSource, loadSources } from '../../../shared/sources/index.js';
import { synthesiseRealApp } from '../../infra/support/app.js';
import { deliverShopifyOrder } from '../../support/local-stack.js';
import { readAll } from '../../support/raw-http.js';

/**
 * `npm run console -- --stage staging`: the stage source as written (stage file, the outputs file
 * `cdk deploy --outputs-file` writes, with the keys of the synthesised staging template, the real SDK
 * clients). AWS is replaced at its HTTP boundary only: DynamoDB is a local stack's dynalite, one
 * server speaks SQS's and Secrets Manager's JSON protocols, the stage's webhook URL is the local intake.
 */

interface StoredMessage {
  MessageId: string;
  Body: string;
  ReceiptHandle: string;
  taken: boolean;
}

describe('the console against a deployed stage (--stage), AWS replaced at its boundary', () => {
  let stack: LocalStack;
  let aws: Server;
  let awsUrl = '';
  let dir = '';
  let server: ConsoleServer;
  let close: () => Promise<void>;
  const sources = new Map<string, ConfiguredSource>(loadSources('{"shopify":{"amount":{"rule":"minor"}}}'));
  const dlq: StoredMessage[] = [];
  const resent: Record<string, unknown>[] = [];
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');

  beforeAll(async () => {
    stack = await startLocalStack({ emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH), receiveOverrides: { sources } });
    aws = createServer(async (req, res) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      const reply = (value: unknown) => res.end(JSON.stringify(value));
      if (target === 'secretsmanager.GetSecretValue') {
        const { baseUrl, clientId, clientSecret } = stack.openApi;
        reply({
          Name: body.SecretId,
          SecretString: JSON.stringify({ base_url: baseUrl, client_id: clientId, client_secret: clientSecret }),
          VersionId: 'v1',
        });
      } else if (target === 'AmazonSQS.GetQueueAttributes') {
        const isDlq = String(body.QueueUrl).includes('dlq');
        reply({
          Attributes: {
            ApproximateNumberOfMessages: String(isDlq ? dlq.length : 3),
            ApproximateNumberOfMessagesNotVisible: '1',
            ApproximateNumberOfMessagesDelayed: '0',
          },
        });
      } else if (target === 'AmazonSQS.ReceiveMessage') {
        const keep = body.VisibilityTimeout === 0;
        const messages = dlq.filter((m) => !m.taken).slice(0, 10);
        if (!keep) for (const m of messages) m.taken = true;
        reply({
          Messages: messages.map((m) => ({
            MessageId: m.MessageId,
            ReceiptHandle: m.ReceiptHandle,
            Body: m.Body,
            MD5OfBody: md5(m.Body),
            Attributes: { MessageGroupId: 'shopify:shopify:1002', SentTimestamp: '1764000000000', ApproximateReceiveCount: '5' },
          })),
        });
      } else if (target === 'AmazonSQS.SendMessage') {
        resent.push(body);
        reply({ MessageId: `m-${resent.length}`, MD5OfMessageBody: md5(String(body.MessageBody)), SequenceNumber: '1' });
      } else if (target === 'AmazonSQS.DeleteMessage') {
        dlq.splice(
          dlq.findIndex((m) => m.ReceiptHandle === body.ReceiptHandle),
          1,
        );
        reply({});
      } else {
        res.statusCode = 400;
        reply({ __type: 'InvalidAction', message: `stand-in: ${target}` });
      }
    });
    await new Promise<void>((resolve) => aws.listen(0, '127.0.0.1', resolve));
    awsUrl = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;

    // The output keys as the synthesised staging stack names them (CDK strips the `-` of WebhookUrl-shopify).
    const app = synthesiseRealApp();
    const keys = Object.keys(app.stages.get('staging')!.template.toJSON().Outputs as Record<string, unknown>);
    app.dispose();
    const values: Record<string, string> = {
      LedgerTableName: stack.tableName,
      QuarantineTableName: LOCAL_DEFAULTS.quarantineTable,
      QueueUrl: `${awsUrl}/111111111111/events.fifo`,
      DeadLetterQueueUrl: `${awsUrl}/111111111111/events-dlq.fifo`,
      WebhookUrlshopify: `${stack.urls.intake}/webhooks/shopify`,
    };
    for (const key of Object.keys(values)) expect(keys).toContain(key);
    dir = mkdtempSync(join(tmpdir(), 'console-stage-'));
    const outputsFile = join(dir, 'outputs.json');
    writeFileSync(outputsFile, JSON.stringify({ 'loyalty-bridge-staging': values }));
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', stack.urls.dynamodb);
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', awsUrl);
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', awsUrl);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example-secret-key');
    const source = await stageConsoleSource({ stage: 'staging', outputsFile });
    close = source.close;
    server = await startConsoleServer(source, 0);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await close?.();
    vi.unstubAllEnvs();
    await stack?.close();
    await new Promise<void>((resolve) => aws?.close(() => resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const api = async (path: string, init?: RequestInit) => {
    const res = await fetch(new URL(`api/${path}`, server.url), init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("lists the stage's orders from its ledger table, with the points its history shows", async () => {
    const paid = await deliverShopifyOrder(
      stack,
      { orderId: '8300000000000000001', name: '#8301', customerId: '1001', subtotal: '5000', tax: '500', currency: 'JPY' },
      'console-stage-1',
    );
    expect(paid.status).toBe(202);
    await handleOf(stack).waitForIdle();
    const { body } = await api('orders?source=shopify');
    expect(body.orders).toEqual([
      expect.objectContaining({ orderId: '8300000000000000001', outcome: 'credited', points: 50, eligible: '5000' }),
    ]);
    const timeline = await api('timeline?source=shopify&orderId=8300000000000000001');
    expect(timeline.body.entries).toContainEqual(expect.objectContaining({ what: { key: 'timeline.historyCredit' }, points: 50 }));
  });

  it("shows the stage's backlog and dead letters from SQS, and redrives them through the CLI's redrive", async () => {
    dlq.push({ MessageId: 'dl-1', ReceiptHandle: 'rh-1', Body: '{"source":"shopify","orderId":"8300000000000000009"}', taken: false });
    // The mapping's state needs SSM and Lambda, which this test does not answer: the status still shows the rest.
    expect((await api('status')).body.pulling).toMatchObject({ state: 'unknown' });
    expect((await api('status')).body.backlog).toEqual({ ready: 3, 'in flight or deferred': 1, delayed: 0, 'dead-lettered': 2 });
    const listed = await api('dlq');
    expect(listed.body.messages).toEqual([
      expect.objectContaining({ messageId: 'dl-1', receiveCount: 5, event: { source: 'shopify', orderId: '8300000000000000009' } }),
    ]);
    const moved = await api('redrive', { method: 'POST' });
    expect(moved.body).toEqual({ moved: 1 });
    expect(resent).toEqual([
      expect.objectContaining({ QueueUrl: `${awsUrl}/111111111111/events.fifo`, MessageGroupId: 'shopify:shopify:1002' }),
    ]);
    expect(dlq).toEqual([]);
  });

  it("replays a delivery the stage quarantined to the stage's webhook URL from its template output", async () => {
    const kept = (
      await deliverShopifyOrder(
        stack,
        { orderId: '8300000000000000002', name: '#8302', customerId: '1001', subtotal: '12345678.90', tax: '0.00', currency: 'USD' },
        'console-stage-q',
      )
    ).body as { id: string };
    const { body } = await api('quarantine');
    expect(body.entries).toContainEqual(expect.objectContaining({ id: kept.id, webhookId: 'console-stage-q', state: 'quarantined' }));
    sources.set('shopify', loadSources('{"shopify":{"amount":{"rule":"major_floor"}}}').get('shopify')!);
    const replayed = await api('replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: kept.id }),
    });
    expect(replayed).toEqual({ status: 200, body: { ok: true, result: 'accepted shopify:order:8300000000000000002' } });
  });

  it('sends X-Frame-Options DENY, CSP frame-ancestors none and nosniff with every answer: page, API, refusal, unknown path', async () => {
    const answers = await Promise.all([
      fetch(server.url),
      fetch(new URL('console.js', server.url)),
      fetch(new URL('api/status', server.url)),
      fetch(new URL('api/redrive', server.url), { method: 'POST', headers: { origin: 'http://evil.example' } }),
      fetch(new URL('nowhere', server.url)),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 403, 404]);
    for (const a of answers) {
      await a.arrayBuffer();
      expect(a.headers.get('x-frame-options')).toBe('DENY');
      expect(a.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers a replay whose body is not JSON 400, saying what it takes, not 502 with the parser’s error', async () => {
    const res = await api('replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id": ' });
    expect(res).toEqual({ status: 400, body: { error: 'replay takes {"id": "<quarantine id>"}' } });
  });

  it('shows one unreadable ledger record as an unreadable row, the other orders as before (not a 502 for the panel)', async () => {
    const broken = { pk: 'order#shopify#8300000000000000077', kind: 'order', source: 'shopify', orderId: '8300000000000000077' };
    const { documentClient } = handleOf(stack);
    await documentClient.send(new PutCommand({ TableName: stack.tableName, Item: broken }));
    try {
      const { status, body } = await api('orders?source=shopify');
      expect(status).toBe(200);
      expect(body.orders).toContainEqual(expect.objectContaining({ orderId: '8300000000000000001', outcome: 'credited' }));
      expect(body.orders).toContainEqual(
        expect.objectContaining({
          orderId: '8300000000000000077',
          state: 'unreadable',
          lastError: expect.stringContaining('unreadable record order#shopify#8300000000000000077'),
        }),
      );
    } finally {
      await documentClient.send(new DeleteCommand({ TableName: stack.tableName, Key: { pk: broken.pk } }));
    }
  });

  it('refuses an action posted from another origin', async () => {
    const res = await api('redrive', { method: 'POST', headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
  });
});
