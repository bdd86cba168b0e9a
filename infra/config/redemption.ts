import { adminTokenSecretName, type ReconcileSourceConfig } from './reconcile.js';

/**
 * Redemptions of a stage: a Shopify source whose settings say `redemption: {enabled: true, ...}` makes
 * discount codes with the Admin API, reached with the shop domain and token secret its reconciliation
 * uses (`reconcile.<source>`), so a redeeming source must be reconciled too.
 */

type StageLike = {
  stageName: string;
  secretPrefix?: string | undefined;
  sources: Record<string, Record<string, unknown>>;
  reconcile: Record<string, ReconcileSourceConfig>;
};

const redeems = (settings: Record<string, unknown> | undefined) =>
  (settings?.redemption as { enabled?: unknown } | undefined)?.enabled === true;

/**
 * The App Proxy's own Admin API token secret (`<secretPrefix>/shopify-discounts/<source>`): discount
 * scopes only (REDEMPTION_TOKEN_SCOPES), so the internet-facing function never holds the reconciliation's
 * `read_orders` token.
 */
export function discountsTokenSecretName(stage: Pick<StageLike, 'stageName' | 'secretPrefix'>, source: string): string {
  return `${stage.secretPrefix ?? `loyalty-bridge/${stage.stageName}`}/shopify-discounts/${source}`;
}

/**
 * The Shopify source the App Proxy serves (`shopify`), when it redeems: its shop, the reconciliation's
 * Admin token secret (the sweep's) and the App Proxy's discounts-only token secret.
 */
export function redeemingShopify(stage: StageLike):
  | {
      source: string;
      shopDomain: string;
      tokenSecretName: string;
      discountsTokenSecretName: string;
      apiVersion?: string;
      /**
       * The source, or another of the stage (a till's `days`), earns after payment (earnAfter): the points
       * page reads the member's provisional orders.
       */
      earnsLater: boolean;
    }
  | undefined {
  const source = 'shopify';
  const admin = stage.reconcile[source];
  if (!redeems(stage.sources[source]) || admin === undefined) return undefined;
  // The source's Admin API version (checked >= 2025-10 by its settings' schema); absent: the default.
  const apiVersion = stage.sources[source]?.apiVersion;
  return {
    source,
    shopDomain: admin.shopDomain,
    ...(typeof apiVersion === 'string' ? { apiVersion } : {}),
    tokenSecretName: adminTokenSecretName(stage, source),
    discountsTokenSecretName: discountsTokenSecretName(stage, source),
    earnsLater: Object.values(stage.sources).some((s) => {
      const earnAfter = (s as { earnAfter?: unknown } | undefined)?.earnAfter;
      return earnAfter !== undefined && earnAfter !== 'paid';
    }),
  };
}

export function redemptionProblem(stage: Pick<StageLike, 'sources' | 'reconcile'>): string | undefined {
  for (const [name, settings] of Object.entries(stage.sources)) {
    if (!redeems(settings)) continue;
    if (name !== 'shopify') return `sources.${name}.redemption: only the shopify source (the App Proxy's) can redeem`;
    if (stage.reconcile[name] === undefined) {
      return `sources.${name}.redemption: redemption makes discount codes with the Admin API: configure reconcile.${name} (shopDomain, token secret)`;
    }
  }
  return undefined;
}
