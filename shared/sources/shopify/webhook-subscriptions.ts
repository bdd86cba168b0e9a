import { header } from '../headers.js';
import { SHOPIFY_TOPICS, type ShopifyTopic } from './webhook-payload.js';
import { SHOPIFY_PRIVACY_TOPICS, type ShopifyPrivacyTopic } from './webhook-privacy.js';
import type { RequestHeaders, SourceSubscriptions, VersionMismatch } from '../types.js';

/**
 * What a Shopify source needs Shopify to send, derived from its settings: the topics it handles
 * (subscribed with the Admin API's webhookSubscriptionCreate, or in shopify.app.toml), the mandatory
 * compliance topics (app configuration only: the Admin API cannot subscribe them), and the API
 * version of both the deliveries and the Admin API calls.
 */

/**
 * The Shopify API version a stage speaks unless its source settings say otherwise. Shopify supports a
 * stable version for about 12 months: docs/runbook.md, "Upgrading the Shopify API version".
 */
export const DEFAULT_SHOPIFY_API_VERSION = '2026-10';

/** A stable version (`2026-10`: January, April, July, October); `unstable` is never for a live shop. */
export const SHOPIFY_API_VERSION = /^20\d\d-(01|04|07|10)$/;

/**
 * Topics that only some settings need. A handled topic not listed here is always subscribed; one listed
 * is subscribed when its test passes (e.g. a customer topic only where late customers are matched).
 */
const TOPIC_ENABLED: Partial<Record<ShopifyTopic, (settings: SubscriptionSettings) => boolean>> = {
  // New customers are only of interest where they are enrolled.
  'customers/create': (settings) => settings.enrolment === 'register',
  // Fulfilment is the moment provisional points are earned, only where the source waits for it.
  'orders/fulfilled': (settings) => settings.earnAfter === 'fulfilled',
  // Each shipment of a split order earns its cumulative share (docs/campaigns.md, partial fulfilments).
  'orders/partially_fulfilled': (settings) => settings.earnAfter === 'fulfilled' && settings.partialFulfilments !== false,
  // An order created with a redemption's code reserves it before payment (konbini, bank transfer).
  'orders/create': (settings) => settings.redemption?.enabled === true,
};

/**
 * Compliance topics (customers/data_request, customers/redact, shop/redact): every app that reads
 * customers or orders must take them, whatever its settings (shared/privacy acts on them).
 */
const COMPLIANCE_TOPICS = Object.keys(SHOPIFY_PRIVACY_TOPICS) as ShopifyPrivacyTopic[];

export interface SubscriptionSettings {
  apiVersion: string;
  enrolment?: 'off' | 'register';
  earnAfter?: unknown;
  partialFulfilments?: boolean;
  redemption?: { enabled: boolean };
}

export function shopifySubscriptions(settings: SubscriptionSettings): SourceSubscriptions {
  const topics = (Object.keys(SHOPIFY_TOPICS) as ShopifyTopic[]).filter((t) => TOPIC_ENABLED[t]?.(settings) ?? true);
  return {
    apiVersion: settings.apiVersion,
    topics,
    complianceTopics: COMPLIANCE_TOPICS,
    // Redemptions make discount codes (discountCodeBasicCreate, discountCodeDeactivate).
    scopes: settings.redemption?.enabled ? ['write_discounts'] : [],
  };
}

/** A delivery sent with another version than the stage's (`X-Shopify-API-Version`): counted and logged, still read. */
export function shopifyVersionMismatch(headers: RequestHeaders, settings: SubscriptionSettings): VersionMismatch | undefined {
  const received = header(headers, 'X-Shopify-API-Version');
  if (!received || received === settings.apiVersion) return undefined;
  // Unsigned header: only a version-shaped value is repeated in logs and metrics.
  return { expected: settings.apiVersion, received: /^[0-9a-z-]{1,20}$/.test(received) ? received : 'invalid' };
}
