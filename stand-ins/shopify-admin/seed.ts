import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { ShopStore } from './store.js';

/**
 * Keeps the stand-in's shop in step with what the local stack received: every Shopify webhook the
 * intake took (202 accepted, or 200 ignored: a test order is still an order of the shop) is stored
 * as the order or refund Shopify would hold. Reconciliation then finds in the stand-in everything
 * that was delivered, plus what was put there without a webhook.
 */
export function recordAcceptedDelivery(store: ShopStore, event: APIGatewayProxyEventV2, result: APIGatewayProxyResultV2<unknown>): void {
  const status = typeof result === 'object' && result !== null ? (result as { statusCode?: number }).statusCode : undefined;
  if (status !== 202 && status !== 200) return;
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const topic = headers['x-shopify-topic'];
  if (topic === undefined || event.body === undefined) return;
  const body = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (topic === 'orders/paid' || topic === 'orders/cancelled') store.putOrder(body);
  // Webhooks may come out of order: a refund before its order waits in the store for it.
  else if (topic === 'refunds/create') store.putRefund(body, { holdIfOrderUnknown: true });
}
