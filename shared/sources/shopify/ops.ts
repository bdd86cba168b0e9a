import type { SenderOps } from '../ops.js';

/**
 * What operations need of Shopify: its alarms are built with what raises them (the quarantine's, the
 * reconcile's per-source ReconcileMissing, the App Proxy's errors), so none here; its runbook sections
 * and its stand-in (the Admin API).
 */
export const SHOPIFY_OPS = {
  alarms: [],
  dashboard: [],
  runbook: ['QuarantinedDeliveries', 'ReconcileShopifyErrors', 'ShopifyAppProxyErrors', 'Upgrading the Shopify API version'],
  standIn: 'shopify-admin',
  readme: 'Shopify',
} as const satisfies SenderOps;
