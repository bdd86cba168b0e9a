export { runDemo, expectedPoints, type DemoResult, type DemoTarget } from './run.js';
export {
  curlFor,
  posCurlScript,
  posReturn,
  posSale,
  shopifyOrderPaid,
  shopifyRefundCreate,
  signPos,
  signShopify,
  type WebhookRequest,
} from './webhooks.js';
export { appProxyLinkPath, type LinkRequestInput, shopifyCustomerCreated } from './customers.js';
export { renderTable, signed } from './table.js';
export { demoCommand } from './command.js';
export { squarePayment, squareRefund, type SquareSigning } from './square.js';
