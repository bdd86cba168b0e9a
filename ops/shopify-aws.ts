import { sourcesConfig } from '../infra/config/index.js';
import { webhookUrlOutputKey } from '../infra/outputs.js';
import { loadSources } from '../shared/sources/index.js';
import { type StageOptions, stageStack } from './aws.js';
import { OpsError } from './errors.js';
import { type SubscribeTarget, subscribingSource } from './shopify-target.js';
import { stageShopifyAdmin } from './stage-shopify-admin.js';

/**
 * `npm run shopify -- subscribe --stage <name>`: the shop from the stage file (`reconcile.<source>.shopDomain`,
 * or `--shop`), the Admin API credentials from the source's admin secret, the callback URL from the
 * stack's WebhookUrl<source> output. Needs AWS credentials and a deployed stage.
 */
export async function stageSubscribeTarget(
  options: StageOptions & {
    source: string;
    shopDomain?: string;
    /** Another origin than https://<shopDomain> (the tests' stand-in). */
    adminOrigin?: string;
  },
): Promise<SubscribeTarget> {
  const { stage, stackName, outputs } = await stageStack(options);
  const subscriptions = subscribingSource(loadSources(JSON.stringify(sourcesConfig(stage.sources))), options.source);
  const shopDomain = options.shopDomain ?? stage.reconcile[options.source]?.shopDomain;
  if (shopDomain === undefined) {
    throw new OpsError(
      'aws_target',
      `name the shop: --shop <shop>.myshopify.com, or reconcile.${options.source}.shopDomain in infra/stages/${stage.stageName}.json`,
    );
  }
  const callbackUrl = outputs.all?.[webhookUrlOutputKey(options.source)];
  if (callbackUrl === undefined)
    throw new OpsError('aws_target', `stack ${stackName} has no ${webhookUrlOutputKey(options.source)} output: deploy this version first`);
  const client = stageShopifyAdmin({
    stage,
    source: options.source,
    shopDomain,
    apiVersion: subscriptions.apiVersion,
    adminOrigin: options.adminOrigin,
  });
  return { client, shopDomain, callbackUrl, subscriptions, close: () => client.close() };
}
