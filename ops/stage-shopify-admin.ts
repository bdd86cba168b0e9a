import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { adminTokenSecretName, type StageConfig } from '../infra/config/index.js';
import { createSecretsManagerReader } from '../shared/config/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient, secretsManagerAdminToken } from '../shared/sources/shopify/index.js';
import { OpsError } from './errors.js';

/** The shop a stage reconciles for a source (`reconcile.<source>.shopDomain` in infra/stages/<stage>.json). */
export function stageShopDomain(stage: StageConfig, stageName: string, source: string): string {
  const shopDomain = stage.reconcile[source]?.shopDomain;
  if (shopDomain === undefined) {
    throw new OpsError('aws_target', `infra/stages/${stageName}.json has no reconcile.${source} (its shopDomain): see docs/deploy.md`);
  }
  return shopDomain;
}

/**
 * A deployed stage's Shopify Admin API client for one source: the access token from the source's admin secret
 * in the stage's Secrets Manager, the shop at https://<shopDomain> or `adminOrigin` (a proxy; the tests' stand-in).
 */
export function stageShopifyAdmin(options: {
  stage: StageConfig;
  source: string;
  shopDomain: string;
  apiVersion: string;
  adminOrigin?: string;
}): ShopifyAdminClient {
  const { stage, source, shopDomain } = options;
  const reader = createSecretsManagerReader({ client: new SecretsManagerClient({ region: stage.region }) });
  const origin = options.adminOrigin ? { origin: options.adminOrigin } : {};
  const token = secretsManagerAdminToken(adminTokenSecretName(stage, source), reader, { shopDomain, ...origin });
  return createShopifyAdminClient({
    shopDomain,
    ...origin,
    apiVersion: options.apiVersion,
    accessToken: () => token.get(),
    accessTokenRejected: (t) => token.rejected(t),
  });
}
