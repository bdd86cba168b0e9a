export { createShopifyAdminClient, type ShopifyAdminClient, type ShopifyAdminClientOptions, type OrdersWindow } from './client.js';
export { ShopifyAdminError, type ShopifyAdminErrorKind } from './errors.js';
export { secretsManagerAccessToken, ShopifyAdminSecretError } from './credentials.js';
export { orderWebhookBody, refundWebhookBody, webhookRequest, type ReconcileTopic } from './to-webhook.js';
export { ADMIN_API_VERSION, ORDERS_QUERY, REFUND_QUERY, updatedBetween } from './queries.js';
export { type AdminOrder, type AdminRefund, type Cost, legacyId } from './schemas.js';
