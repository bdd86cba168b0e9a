/**
 * Signed sample webhooks as each sender makes them (Shopify orders, refunds and customers, POS, Square), for the local stack: the
 * banner's curl lines, the demo, the benchmarks and the tests send them.
 */
export { squarePayment, squareRefund, type SquareSigning } from './square.js';
export {
  asApiGatewayEvent,
  curlFor,
  LOCAL_SHOP,
  posCurlScript,
  posReturn,
  posSale,
  type ShopifyOrderInput,
  type ShopifyOrderTopic,
  shopifyOrderWebhook,
  shopifyRefundCreate,
  shopifyRequest,
  signPos,
  signShopify,
  type WebhookRequest,
} from './webhooks.js';
export {
  appProxyLinkPath,
  appProxyPath,
  type LinkRequestInput,
  redeemThroughAppProxy,
  linkThroughAppProxy,
  shopifyCustomerCreated,
  shopifyPrivacyRequest,
} from './customers.js';
