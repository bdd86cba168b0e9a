import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stageTarget } from '../../../ops/reconcile-aws.js';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../stand-ins/shopify-admin/index.js';
import { reconcileShopify } from '../../../shared/reconcile/index.js';
import { stubAwsEndpoints } from '../../support/aws-boundary.js';
import { startDynalite, type LocalDynamo } from '../../../kit/dynalite.js';
import { stageOutputs, synthesisedStage, writeStageOutputsFile } from '../../support/synthesised-outputs.js';
import { readAll } from '../../support/raw-http.js';

/**
 * `npm run reconcile -- --stage staging`: the real SDK clients of a stage target, with the AWS
 * services that cannot run here stubbed at their HTTP boundary: one server speaks SQS's JSON protocol
 * (SendMessage) and Secrets Manager's (GetSecretValue). DynamoDB is dynalite through the real SDK,
 * Shopify's Admin API the local stand-in. Endpoints come from the SDK's AWS_ENDPOINT_URL_<SERVICE>.
 */

const TOKEN = 'shpat_stage_token';
const TOKEN_SECRET = 'loyalty-bridge/staging/shopify-admin/shopify';

interface Call {
  target: string;
  body: Record<string, unknown>;
}

describe('reconcile against a deployed stage (--stage)', () => {
  let aws: Server;
  let awsUrl: string;
  const calls: Call[] = [];
  let dynamo: LocalDynamo;
  let shop: ShopifyAdminStandIn;
  let dir: string;
  let outputsFile: string;
  let queueUrl: string;

  beforeAll(async () => {
    // Synthesised first: seconds of CPU would outlast dynalite's keep-alive on an idle socket.
    synthesisedStage('staging');
    aws = createServer(async (req, res) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
      calls.push({ target, body });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target === 'secretsmanager.GetSecretValue' && body.SecretId === TOKEN_SECRET) {
        res.end(
          JSON.stringify({
            ARN: `arn:aws:secretsmanager:eu-west-1:111111111111:secret:${TOKEN_SECRET}-AbCdEf`,
            Name: TOKEN_SECRET,
            SecretString: JSON.stringify({ access_token: TOKEN }),
            VersionId: 'v1',
          }),
        );
      } else if (target === 'AmazonSQS.SendMessage') {
        const md5 = createHash('md5').update(String(body.MessageBody)).digest('hex');
        res.end(JSON.stringify({ MessageId: `m-${calls.length}`, MD5OfMessageBody: md5, SequenceNumber: String(calls.length) }));
      } else {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: `stub: ${target}` }));
      }
    });
    await new Promise<void>((resolve) => aws.listen(0, '127.0.0.1', resolve));
    awsUrl = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
    dynamo = await startDynalite();
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN });
    dir = mkdtempSync(join(tmpdir(), 'reconcile-stage-'));
    // The synthesised staging stack's outputs, resolved to the resources of this test.
    const physical = {
      ref: (logicalId: string, type: string) =>
        type === 'AWS::DynamoDB::Table'
          ? dynamo.tableName
          : type === 'AWS::SQS::Queue'
            ? `${awsUrl}/111111111111/${logicalId}.fifo`
            : logicalId,
    };
    outputsFile = writeStageOutputsFile(dir, 'staging', physical);
    queueUrl = stageOutputs('staging', physical).outputs.QueueUrl!;
    stubAwsEndpoints({ dynamodb: dynamo.endpoint, sqs: awsUrl, secretsManager: awsUrl });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await shop?.close();
    await dynamo?.stop();
    await new Promise<void>((resolve) => aws.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the shop with the token from the stage's secret and sends what the ledger lacks to the stage's queue", async () => {
    const put = await fetch(`${shop.url}/__shopify/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id": 6200000000000000001, "name": "#9", "currency": "EUR", "financial_status": "paid", "created_at": "2026-11-23T00:00:00Z", "customer": {"id": 1001}, "subtotal_price": "49.90", "total_tax": "9.48", "total_price": "59.38"}',
    });
    expect(put.status).toBe(201);
    const target = await stageTarget({ stage: 'staging', source: 'shopify', outputsFile, adminOrigin: shop.url });
    try {
      expect(target.shopDomain).toBe('example-shop-staging.myshopify.com');
      const result = await reconcileShopify(
        {
          ...target,
          now: () => new Date(),
        },
        { since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() + 60_000), dryRun: false },
      );
      expect(result).toMatchObject({ scanned: 1, missing: 1, enqueued: 1 });
    } finally {
      await target.close();
    }
    expect(calls.filter((c) => c.target === 'secretsmanager.GetSecretValue').map((c) => c.body.SecretId)).toEqual([TOKEN_SECRET]);
    const sends = calls.filter((c) => c.target === 'AmazonSQS.SendMessage');
    expect(sends).toHaveLength(1);
    expect(sends[0]!.body).toMatchObject({
      QueueUrl: queueUrl,
      MessageGroupId: 'shopify:shopify:1001',
      MessageDeduplicationId: 'shopify:shopify:order:6200000000000000001',
    });
    // The staging basis is subtotal excluding tax, whole units: 49.90 -> 49.
    expect(JSON.parse(String(sends[0]!.body.MessageBody))).toMatchObject({
      eventId: 'shopify:order:6200000000000000001',
      eligibleAmount: 49,
    });
  });

  it('names the missing stage setting when the source is not reconciled there', async () => {
    await expect(stageTarget({ stage: 'dev', source: 'shopify', outputsFile, adminOrigin: shop.url })).rejects.toThrow(
      'infra/stages/dev.json has no reconcile.shopify',
    );
  });
});
