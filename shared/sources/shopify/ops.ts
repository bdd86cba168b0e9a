import { METRIC } from '../../metrics/index.js';
import type { SenderOps } from '../ops.js';

/**
 * What operations need of Shopify: most of its alarms are built with what raises them (the quarantine's,
 * the reconcile's per-source ReconcileMissing, the App Proxy's errors); here the redemptions' two (codes
 * used around their end, codes named by orders that do not count: docs/redemption.md), its runbook
 * sections and its stand-in (the Admin API).
 */
export const SHOPIFY_OPS = {
  alarms: [
    {
      id: 'RedemptionClawbacks',
      metric: METRIC.redemptionClawbacks,
      periodMinutes: 60,
      threshold: 1,
      evaluation: { periods: 1, datapoints: 1 },
      description:
        "Redeemed points given back were taken again: an order of the code's customer used the code after its points came back (a code used around its end). A shortfall is on the record (npm run redemptions -- list).",
    },
    {
      id: 'RedemptionMisuses',
      metric: METRIC.redemptionMisuses,
      periodMinutes: 60,
      threshold: 1,
      evaluation: { periods: 1, datapoints: 1 },
      description:
        "An order named a redemption's code and counts for nothing: another customer's order, or a second order (npm run redemptions -- list, column misuses).",
    },
  ],
  dashboard: [
    { title: 'Redemptions: points taken again (claw-backs)', metric: METRIC.redemptionClawbacks, label: 'claw-backs' },
    { title: 'Redemptions: orders naming a code that do not count', metric: METRIC.redemptionMisuses, label: 'misuses' },
  ],
  runbook: [
    'QuarantinedDeliveries',
    'ReconcileShopifyErrors',
    'ShopifyAppProxyErrors',
    'RedemptionClawbacks',
    'RedemptionMisuses',
    'Upgrading the Shopify API version',
  ],
  standIn: 'shopify-admin',
  readme: 'Shopify',
} as const satisfies SenderOps;
