import { join } from 'node:path';
import { loadStageConfig } from '../infra/config/index.js';
import { ConfigurationError, ENV } from '../shared/config/index.js';
import { createRedemptionLedger } from '../shared/ledger/index.js';
import { type RedemptionDeps, redemptionDepsFromEnv } from '../shared/redemption/index.js';
import { DEFAULT_SHOPIFY_API_VERSION } from '../shared/sources/index.js';
import { connectToStage } from './aws.js';
import { dynamoServerClock, type ServerClock } from './clock-skew.js';
import { stageShopDomain, stageShopifyAdmin } from './stage-shopify-admin.js';

/**
 * `npm run redemptions -- list|sweep --stage <name>`: the stage's ledger table (the stack's outputs), its
 * Open API secret and the source's redemption settings (the stage file), and the shop's Admin API with the
 * token the reconciliation reads (a redeeming source configures `reconcile`: infra/config). The same
 * ledger module and sweep as the scheduled function. Needs AWS credentials and a deployed stage.
 */
export async function stageRedemptions(options: {
  stage: string;
  source: string;
  stack?: string;
  outputsFile?: string;
  /** Another origin than https://<shopDomain> (a proxy; the tests' stand-in). */
  adminOrigin?: string;
}): Promise<{ deps: RedemptionDeps; serverClock: ServerClock; close(): Promise<void> }> {
  const stage = loadStageConfig(join(process.cwd(), 'infra'), options.stage);
  const shopDomain = stageShopDomain(stage, options.stage, options.source);
  const aws = await connectToStage(options);
  const shopify = stageShopifyAdmin({
    stage,
    source: options.source,
    shopDomain,
    apiVersion: aws.sources.get(options.source)?.subscriptions?.().apiVersion ?? DEFAULT_SHOPIFY_API_VERSION,
    adminOrigin: options.adminOrigin,
  });
  const close = async () => {
    await shopify.close();
    await aws.close();
  };
  const deps = redemptionDepsFromEnv({ [ENV.LEDGER_TABLE]: aws.tableName }, aws.sources, options.source, {
    openapi: aws.openapi,
    shopify,
    ledger: createRedemptionLedger({ client: aws.documentClient, tableName: aws.tableName, clock: Date.now }),
  });
  if (!deps) {
    await close();
    throw new ConfigurationError('redemption_not_enabled', `stage ${options.stage}'s ${options.source} source does not redeem points`);
  }
  return { deps, serverClock: dynamoServerClock(aws.documentClient, aws.tableName), close };
}
