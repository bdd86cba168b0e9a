import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { cliCommand } from '../../../ops/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { LOCAL_DEFAULTS } from '../../../kit/local-stack/config.js';
import { type ConfiguredSource, loadSources } from '../../../shared/sources/index.js';
import { writeStageOutputsFile } from '../../support/synthesised-outputs.js';

/**
 * `npm run quarantine -- ... --stage staging`: the AWS path as written (stage file, the stack outputs
 * file `cdk deploy --outputs-file` writes, the AWS SDK's DynamoDB client, the stage's webhook URL).
 * The outputs are the synthesised staging stack's, keys as CloudFormation writes them; AWS itself
 * cannot run here, so the boundary is replaced at its address only: the SDK is pointed at dynalite
 * with AWS_ENDPOINT_URL_DYNAMODB (dummy credentials), and the stage's execute-api origin at a local
 * stack's intake. Nothing in the command is stubbed.
 */
describe('npm run quarantine --stage (the AWS path against stand-ins at the AWS boundary)', () => {
  let stack: LocalStack;
  let dir: string;
  const saved: Record<string, string | undefined> = {};
  const sources = new Map<string, ConfiguredSource>(loadSources('{"shopify":{"amount":{"rule":"minor"}}}'));
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const outputs = join(dir, 'staging-outputs.json');
    const code = await cliCommand(
      ['quarantine', ...args, '--stage', 'staging', '--outputs', outputs],
      {},
      { print: (l) => lines.push(l), printError: (l) => lines.push(l) },
    );
    return { code, lines };
  };

  beforeAll(async () => {
    stack = await startLocalStack({ emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH), receiveOverrides: { sources } });
    dir = mkdtempSync(join(tmpdir(), 'quarantine-stage-'));
    // The outputs of the staging stack as synthesised, resolved to this machine's resources.
    writeStageOutputsFile(dir, 'staging', {
      ref: (logicalId, type) =>
        type === 'AWS::DynamoDB::Table'
          ? logicalId.startsWith('Quarantine')
            ? LOCAL_DEFAULTS.quarantineTable
            : stack.tableName
          : type === 'AWS::SQS::Queue'
            ? `https://sqs.invalid/${logicalId}`
            : logicalId.toLowerCase(),
      apiOrigin: stack.urls.intake,
    });
    // The AWS SDK reads these from the process environment: the boundary's address and dummy keys.
    for (const [k, v] of Object.entries({
      AWS_ENDPOINT_URL_DYNAMODB: stack.urls.dynamodb,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists, and after the fix replays through the stage URL, a delivery the stage quarantined', async () => {
    const request = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '7700000000000000002', name: '#Q2', customerId: '1001', subtotal: '12345678.90', tax: '0.00', currency: 'USD' },
      stack.webhookSecrets.shopify[0]!,
      'quarantine-stage-1',
      Date.now(),
    );
    const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
    const { id } = (await res.json()) as { id: string };

    const listed = await cli('list');
    expect(listed.code).toBe(0);
    expect(listed.lines[0]).toMatch(new RegExp(`^${id}  quarantined  shopify `));

    sources.set('shopify', loadSources(undefined).get('shopify')!);
    const replayed = await cli('replay', id);
    expect(replayed).toEqual({ code: 0, lines: [`${id} replayed: accepted shopify:order:7700000000000000002`] });
  });
});
