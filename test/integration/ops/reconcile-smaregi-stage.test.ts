import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reconcileSmaregiCommand } from '../../../ops/reconcile-smaregi.js';
import { smaregiStageTarget } from '../../../ops/reconcile-smaregi-aws.js';
import { type SmaregiStandIn, startSmaregiStandIn } from '../../../stand-ins/smaregi/server.js';
import { stubAwsEndpoints } from '../../support/aws-boundary.js';
import { startDynalite, type LocalDynamo } from '../../../kit/dynalite.js';
import { readAll } from '../../support/raw-http.js';
import { smaregiTransaction } from '../../../kit/smaregi.js';
import { synthesisedStage, writeStageOutputsFile } from '../../support/synthesised-outputs.js';

/**
 * `npm run reconcile -- --source smaregi --stage staging`: the real SDK clients of the stage, with the
 * AWS services that cannot run here stubbed at their HTTP boundary (one server speaks SQS's SendMessage
 * and Secrets Manager's GetSecretValue); DynamoDB is dynalite, Smaregi's Platform API the stand-in.
 */
const SECRET = 'loyalty-bridge/staging/smaregi-app/smaregi';
const APP = { client_id: 'staging-app', client_secret: 'staging-app-secret' };

describe('Smaregi reconcile against a deployed stage (--stage)', () => {
  let aws: Server;
  const calls: { target: string; body: Record<string, unknown> }[] = [];
  let dynamo: LocalDynamo;
  let smaregi: SmaregiStandIn;
  let dir: string;
  let outputsFile: string;

  beforeAll(async () => {
    synthesisedStage('staging');
    aws = createServer(async (req, res) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
      calls.push({ target, body });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target === 'secretsmanager.GetSecretValue' && body.SecretId === SECRET) {
        res.end(
          JSON.stringify({
            ARN: `arn:aws:secretsmanager:ap-northeast-1:111111111111:secret:${SECRET}-AbCdEf`,
            Name: SECRET,
            SecretString: JSON.stringify(APP),
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
    const awsUrl = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
    dynamo = await startDynalite();
    smaregi = await startSmaregiStandIn({ contractId: 'sb_staging_contract', clientId: APP.client_id, clientSecret: APP.client_secret });
    dir = mkdtempSync(join(tmpdir(), 'reconcile-smaregi-stage-'));
    const physical = {
      ref: (logicalId: string, type: string) =>
        type === 'AWS::DynamoDB::Table'
          ? dynamo.tableName
          : type === 'AWS::SQS::Queue'
            ? `${awsUrl}/111111111111/${logicalId}.fifo`
            : logicalId,
    };
    outputsFile = writeStageOutputsFile(dir, 'staging', physical);
    stubAwsEndpoints({ dynamodb: dynamo.endpoint, sqs: awsUrl, secretsManager: awsUrl });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await smaregi?.close();
    await dynamo?.stop();
    await new Promise<void>((resolve) => aws.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the contract with the app secret the stack made and sends each transaction the ledger lacks to the stage's queue", async () => {
    smaregi.putTransaction(smaregiTransaction('transaction-sale-tax-included.json', '4001') as never);
    const lines: string[] = [];
    const target = await smaregiStageTarget({ stage: 'staging', source: 'smaregi', outputsFile, smaregiOrigin: smaregi.url });
    const code = await reconcileSmaregiCommand({
      env: {},
      sourceName: 'smaregi',
      since: new Date(Date.now() - 3_600_000),
      until: new Date(Date.now() + 60_000),
      dryRun: false,
      out: { print: (l) => lines.push(l), printError: () => {} },
      now: () => new Date(),
      target,
    });
    const sends = calls.filter((c) => c.target === 'AmazonSQS.SendMessage');
    expect({
      code,
      last: lines.at(-1),
      secrets: calls.filter((c) => c.target === 'secretsmanager.GetSecretValue').map((c) => c.body.SecretId),
      sent: sends.map((s) => (JSON.parse(String(s.body.MessageBody)) as { eventId: string }).eventId),
    }).toEqual({ code: 0, last: 'reconcile: scanned=1 missing=1 enqueued=1', secrets: [SECRET], sent: ['smaregi:transaction:4001'] });
  });

  it('refuses a source the stage does not have as a Smaregi source', async () => {
    await expect(smaregiStageTarget({ stage: 'staging', source: 'shopify', outputsFile })).rejects.toThrow(
      'shopify is not a Smaregi source of stage staging',
    );
  });
});
