import { z } from 'zod';
import { SecretName } from './sources.js';

/**
 * Scheduled reconciliation with Shopify, per Shopify source of a stage (keyed by source name):
 * `{"reconcile": {"shopify": {"shopDomain": "example.myshopify.com"}}}`. The Admin API access token
 * lives in a secret the stack creates empty ({"access_token": "shpat_…"}, docs/deploy.md).
 */
export const ReconcileSourceConfig = z.strictObject({
  /** The shop whose Admin API is read. */
  shopDomain: z.string().regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'expected <shop>.myshopify.com'),
  /** Default `<secretPrefix>/shopify-admin/<source>`. */
  accessTokenSecretName: SecretName.optional(),
  /** How often the schedule runs. */
  everyMinutes: z.number().int().min(5).max(1440).default(15),
  /** Each run reads the orders updated in this many hours before it (overlapping runs are harmless). */
  lookbackHours: z.number().int().min(1).max(72).default(3),
  /**
   * Each run stops this many minutes before now: a webhook that just arrived is still in the queue,
   * not yet in the ledger, and would be counted missing (harmless for the points, noise in the metric).
   */
  settleMinutes: z.number().int().min(0).max(60).default(5),
  /** Alarm when this many runs in a row found events missing. */
  alarmAfterRuns: z.number().int().min(1).max(96).default(3),
});
export type ReconcileSourceConfig = z.infer<typeof ReconcileSourceConfig>;

export const ReconcileConfig = z.record(z.string(), ReconcileSourceConfig).default({});

/** Each reconciled source must be a configured Shopify source. */
export function reconcileProblem(stage: {
  sources: Record<string, Record<string, unknown>>;
  reconcile: Record<string, unknown>;
}): string | undefined {
  for (const name of Object.keys(stage.reconcile)) {
    const source = stage.sources[name];
    if (source === undefined) return `reconcile.${name}: no source ${name} is configured`;
    if ((source.kind ?? name) !== 'shopify') return `reconcile.${name}: only Shopify sources can be reconciled`;
  }
  return undefined;
}

export function adminTokenSecretName(
  stage: { stageName: string; secretPrefix?: string | undefined; reconcile: Record<string, ReconcileSourceConfig> },
  source: string,
): string {
  const prefix = stage.secretPrefix ?? `loyalty-bridge/${stage.stageName}`;
  return stage.reconcile[source]?.accessTokenSecretName ?? `${prefix}/shopify-admin/${source}`;
}
