import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stageSubscribeTarget } from '../../../ops/shopify-aws.js';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from '../../../stand-ins/shopify-admin/index.js';
import { subscribeTopics } from '../../../shared/sources/shopify/index.js';
import { type AwsBoundary, startAwsBoundary, stubAwsEndpoints } from '../../support/aws-boundary.js';
import { stageOutputs, writeStageOutputsFile } from '../../support/synthesised-outputs.js';

/**
 * `npm run shopify -- subscribe --stage staging`: the callback URL from the synthesised staging
 * stack's WebhookUrlshopify output, the shop from the stage file, the Admin API credentials (a Dev
 * Dashboard app's client id and secret) from the stage's admin secret, answered at Secrets Manager's
 * HTTP boundary; Shopify is the Admin stand-in with its client-credentials grant.
 */
describe('npm run shopify -- subscribe --stage', () => {
  let boundary: AwsBoundary;
  let shop: ShopifyAdminStandIn;
  let dir: string;
  let outputsFile: string;
  let webhookUrl: string;
  const physical = { ref: (logicalId: string) => logicalId.toLowerCase() };

  beforeAll(async () => {
    boundary = await startAwsBoundary();
    boundary.setSecret(
      'loyalty-bridge/staging/shopify-admin/shopify',
      JSON.stringify({ client_id: 'app-id', client_secret: 'app-secret' }),
    );
    shop = await startShopifyAdminStandIn({
      accessToken: 'unused-fixed-token',
      clientCredentials: { clientId: 'app-id', clientSecret: 'app-secret' },
    });
    dir = mkdtempSync(join(tmpdir(), 'shopify-stage-'));
    outputsFile = writeStageOutputsFile(dir, 'staging', physical);
    webhookUrl = stageOutputs('staging', physical).outputs.WebhookUrlshopify!;
    stubAwsEndpoints({ secretsManager: boundary.url });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await shop?.close();
    await boundary?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("subscribes the stage's webhook URL with a granted token, and a second run only finds them", async () => {
    const run = async () => {
      const target = await stageSubscribeTarget({ stage: 'staging', source: 'shopify', outputsFile, adminOrigin: shop.url });
      try {
        expect(target.callbackUrl).toBe(webhookUrl);
        return await subscribeTopics(target.client, { topics: target.subscriptions.topics, uri: target.callbackUrl });
      } finally {
        await target.close();
      }
    };
    expect(await run()).toMatchObject({ topics: 4, created: 4, existing: 0 });
    expect(await run()).toMatchObject({ topics: 4, created: 0, existing: 4 });
    expect(webhookUrl).toMatch(/^https:\/\/webhooksapi[0-9a-z]+\.execute-api\.ap-northeast-1\.amazonaws\.com\/webhooks\/shopify$/);
    expect(shop.subscriptions.list().every((s) => s.uri === webhookUrl)).toBe(true);
    expect(shop.tokens?.grants()).toBe(2);
  });
});
