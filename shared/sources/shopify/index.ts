/** The Shopify Admin API client: the orders and refunds of a time window, and their webhook bodies for replay. */
export { createShopifyAdminClient, type ShopifyAdminClient } from './client.js';
export { parseAdminSecret, secretsManagerAdminToken } from './credentials.js';
export { type AdminAccessToken, type AdminCredentials, createAdminAccessToken } from './token.js';
export { isShopifyAdminError, ShopifyAdminError } from './errors.js';
export { ADJUSTMENTS_LIMIT, REFUNDS_LIMIT } from './queries.js';
export { type AdminOrder, type AdminRefund, legacyId } from './schemas.js';
export { refundMoneyShape } from './webhook-payload.js';
export { shopifySource } from './webhook.js';
export { orderWebhookBody, type ReconcileTopic, refundWebhookBody, webhookRequest } from './to-webhook.js';
export { type SubscribeResult, type SubscriptionChange, subscribeSummary, subscribeTopics, topicEnum } from './subscriptions.js';
export {
  type CodeDiscountNode,
  createDiscountCode,
  deactivateDiscountCode,
  type DiscountCodeInput,
  type DiscountResult,
  discountByCode,
  REDEMPTION_TOKEN_SCOPES,
  shopCurrency,
  type CodeOrder,
  ordersWithCode,
} from './discounts.js';
export { MIN_REDEMPTION_API_VERSION, redemptionApiVersionProblem } from './settings.js';
