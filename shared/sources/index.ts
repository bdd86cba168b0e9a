/** Webhook senders (Shopify, POS, Square): verifying their requests and turning them into canonical events. */
export { loadSources, SourcesConfigError, type SourceSet } from './registry.js';
export type { ConfiguredSource, RequestHeaders, SignedRequest, SourceError } from './types.js';
export { SHOPIFY_MAX_BODY_BYTES } from './shopify.js';
