/** Square's Orders API: the order behind a payment, read for what it sold without tax (Japan's basis). */
export {
  createSquareOrdersClient,
  SQUARE_API_VERSION,
  SQUARE_PRODUCTION_ORIGIN,
  type SquareOrdersClient,
  type SquareOrdersClientOptions,
} from './client.js';
export { SquareOrdersError, type SquareOrdersErrorKind } from './errors.js';
export { SquareOrder, subtotalExcludingTax } from './order.js';
export { SQUARE_ORDERS_ENV, SquareOrdersAccess, squareOrdersFromEnv } from './from-env.js';
