/** Webhook senders (Shopify, POS, Square): verifying their requests and turning them into canonical events. */
export { unsafeCustomerId } from './path-safe.js';
export { isSourcesConfigError } from './errors.js';
export { loadSources, loadSourcesOfKind, type SourceSet } from './registry.js';
export { loadSourceSettings, type SourceSettingsSet } from './source-settings.js';
export { DEFAULT_SHOPIFY_API_VERSION } from './shopify/webhook-subscriptions.js';
export { SHOPIFY_MAX_BODY_BYTES } from './shopify/webhook.js';
export type {
  ConfiguredSettings,
  ConfiguredSource,
  CustomerLinking,
  Outcome,
  RequestHeaders,
  SignedRequest,
  SourceError,
  SourceSubscriptions,
  VersionMismatch,
} from './types.js';
export { DEFAULT_SMAREGI_WEBHOOK_HEADER, SmaregiSettings, smaregiThinEvent } from './smaregi/webhook.js';
export { smaregiEarnAfterRefusal } from './smaregi/settings.js';
export { EXTERNAL_ID, renderTitle } from './settings.js';
export { EarnAfterSetting, earnAfterFromText } from './earn-after.js';
export { REDEMPTION_DEFAULT_GRACE_SECONDS, REDEMPTION_DEFAULT_VALID_SECONDS, RedemptionSettings } from './redemption-settings.js';
