import { join } from 'node:path';
import { loadStageConfig, sourcesConfig } from '../infra/config/index.js';
import { createSqsQueue } from '../shared/queue/index.js';
import { DEFAULT_SHOPIFY_API_VERSION, loadSources } from '../shared/sources/index.js';
import { connectToStage } from './aws.js';
import { OpsError } from './errors.js';
import type { ReconcileTarget } from './reconcile-target.js';
import { stageShopDomain, stageShopifyAdmin } from './stage-shopify-admin.js';

/**
 * `npm run reconcile -- --stage <name>`: the stage's ledger and FIFO queue (from the stack's outputs),
 * the shop and the Admin API token secret from the stage file. Needs AWS credentials and a deployed stage.
 */
export async function stageTarget(options: {
  stage: string;
  source: string;
  stack?: string;
  outputsFile?: string;
  /** Another origin than https://<shopDomain> (a proxy; the tests' stand-in). */
  adminOrigin?: string;
}): Promise<ReconcileTarget> {
  const stage = loadStageConfig(join(process.cwd(), 'infra'), options.stage);
  const shopDomain = stageShopDomain(stage, options.stage, options.source);
  const source = loadSources(JSON.stringify(sourcesConfig(stage.sources))).get(options.source);
  if (source === undefined || source.kind !== 'shopify')
    throw new OpsError('aws_target', `${options.source} is not a Shopify source of stage ${options.stage}`);
  const aws = await connectToStage(options);
  const client = stageShopifyAdmin({
    stage,
    source: options.source,
    shopDomain,
    apiVersion: source.subscriptions?.().apiVersion ?? DEFAULT_SHOPIFY_API_VERSION,
    adminOrigin: options.adminOrigin,
  });
  return {
    client,
    ledger: aws.ledger,
    queue: createSqsQueue({ queueUrl: aws.outputs.QueueUrl, client: aws.sqs }),
    source,
    shopDomain,
    async close() {
      await client.close();
      await aws.close();
    },
  };
}
