import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { adminTokenSecretName, loadStageConfig, sourcesConfig } from '../infra/config/index.js';
import { createSecretsManagerReader } from '../shared/config/index.js';
import { createSqsQueue } from '../shared/queue/index.js';
import { createShopifyAdminClient, secretsManagerAdminToken } from '../shared/sources/shopify/index.js';
import { DEFAULT_SHOPIFY_API_VERSION, loadSources } from '../shared/sources/index.js';
import { connectToStage } from './aws.js';
import { OpsError } from './errors.js';
import type { ReconcileTarget } from './reconcile-target.js';

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
  const settings = stage.reconcile[options.source];
  if (settings === undefined) {
    throw new OpsError(
      'aws_target',
      `infra/stages/${options.stage}.json has no reconcile.${options.source} (its shopDomain): see docs/deploy.md`,
    );
  }
  const source = loadSources(JSON.stringify(sourcesConfig(stage.sources))).get(options.source);
  if (source === undefined || source.kind !== 'shopify')
    throw new OpsError('aws_target', `${options.source} is not a Shopify source of stage ${options.stage}`);
  const aws = await connectToStage({
    stage: options.stage,
    ...(options.stack ? { stack: options.stack } : {}),
    ...(options.outputsFile ? { outputsFile: options.outputsFile } : {}),
  });
  const reader = createSecretsManagerReader({ client: new SecretsManagerClient({ region: stage.region }) });
  const origin = options.adminOrigin ? { origin: options.adminOrigin } : {};
  const token = secretsManagerAdminToken(adminTokenSecretName(stage, options.source), reader, {
    shopDomain: settings.shopDomain,
    ...origin,
  });
  const client = createShopifyAdminClient({
    shopDomain: settings.shopDomain,
    ...origin,
    apiVersion: source.subscriptions?.().apiVersion ?? DEFAULT_SHOPIFY_API_VERSION,
    accessToken: () => token.get(),
    accessTokenRejected: (t) => token.rejected(t),
  });
  return {
    client,
    ledger: aws.ledger,
    queue: createSqsQueue({ queueUrl: aws.outputs.QueueUrl, client: aws.sqs }),
    source,
    shopDomain: settings.shopDomain,
    async close() {
      await client.close();
      await aws.close();
    },
  };
}
