/** The Shopify Admin API client: the orders and refunds of a time window, and their webhook bodies for replay. */
export { createShopifyAdminClient, type ShopifyAdminClient } from './client.js';
export { secretsManagerAccessToken } from './credentials.js';
export { ShopifyAdminError } from './errors.js';
export { ADJUSTMENTS_LIMIT, REFUNDS_LIMIT } from './queries.js';
export { type AdminOrder, type AdminRefund, legacyId } from './schemas.js';
export { orderWebhookBody, type ReconcileTopic, refundWebhookBody, webhookRequest } from './to-webhook.js';
