import { signAppProxyQuery } from '../../shared/customers/index.js';
import { issueRedeemRequest } from '../../shared/redemption/index.js';
import { bareInteger } from '../senders.js';
import { LOCAL_SHOP, shopifyRequest, type WebhookRequest } from './webhooks.js';

/**
 * The customer side as Shopify sends it: `customers/create` (only the fields intake reads, plus the
 * usual ones, shaped after Shopify's sample), and the App Proxy's forwarded link request, signed as
 * Shopify signs it (sorted `key=value` pairs, HMAC-SHA256 hex with the app's secret).
 */

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export function shopifyCustomerCreated(customerId: string, secret: string, webhookId: string, nowMs: number): WebhookRequest {
  const payload = {
    id: bareInteger(customerId),
    email: null,
    created_at: isoSeconds(nowMs),
    updated_at: isoSeconds(nowMs),
    first_name: null,
    last_name: null,
    state: 'enabled',
    currency: 'JPY',
    admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
  };
  return shopifyRequest('customers/create', payload, secret, webhookId, nowMs);
}

export interface LinkRequestInput {
  /** Shopify's logged_in_customer_id ('' when nobody is logged in). */
  customerId: string;
  member: string;
  token: string;
  secret: string;
  nowMs: number;
}

/** `/proxy/shopify/link?...` as the App Proxy forwards the storefront's `/apps/points/link?token=..&member=..`. */
export function appProxyLinkPath(input: LinkRequestInput): string {
  const query = new URLSearchParams({
    token: input.token,
    member: input.member,
    shop: LOCAL_SHOP,
    logged_in_customer_id: input.customerId,
    path_prefix: '/apps/points',
    timestamp: String(Math.floor(input.nowMs / 1000)),
  });
  query.set('signature', signAppProxyQuery(query, input.secret));
  return `/proxy/shopify/link?${query.toString()}`;
}

/**
 * Shopify's compliance requests, shaped as its published samples (test/fixtures/shopify/customers-redact.json
 * and its siblings): `customers/redact`, `customers/data_request` (with a request id) and `shop/redact`.
 */
export function shopifyPrivacyRequest(
  input: (
    | { topic: 'customers/redact'; customerId: string; orderIds: string[] }
    | { topic: 'customers/data_request'; customerId: string; orderIds: string[]; requestId: string }
    | { topic: 'shop/redact' }
  ) & { /** The shop the signed body names (default: the local shop). */ shopDomain?: string },
  secret: string,
  webhookId: string,
  nowMs: number,
): WebhookRequest {
  const shop = { shop_id: bareInteger('954889'), shop_domain: input.shopDomain ?? LOCAL_SHOP };
  const customer = (id: string) => ({ id: bareInteger(id), email: 'customer@example.com', phone: '555-625-1199' });
  const orders = (ids: string[]) => ids.map(bareInteger);
  const payload =
    input.topic === 'shop/redact'
      ? shop
      : input.topic === 'customers/redact'
        ? { ...shop, customer: customer(input.customerId), orders_to_redact: orders(input.orderIds) }
        : {
            ...shop,
            orders_requested: orders(input.orderIds),
            customer: customer(input.customerId),
            data_request: { id: bareInteger(input.requestId) },
          };
  return shopifyRequest(input.topic, payload, secret, webhookId, nowMs);
}

/**
 * A link as a logged-in customer's browser makes it through the App Proxy: the GET answers the
 * confirmation, the POST of the same signed query with `confirm=<value>` links. An answer other than a
 * confirmation (a refusal) is the GET's; else the POST's.
 */
export async function linkThroughAppProxy(intakeUrl: string, input: LinkRequestInput): Promise<{ status: number; body: string }> {
  const url = `${intakeUrl}${appProxyLinkPath(input)}`;
  const shown = await fetch(url, { headers: { accept: 'application/json' } });
  const text = await shown.text();
  const confirm = shown.status === 200 ? (JSON.parse(text) as { confirm?: unknown }).confirm : undefined;
  if (typeof confirm !== 'string') return { status: shown.status, body: text };
  const linked = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ confirm }).toString(),
  });
  return { status: linked.status, body: await linked.text() };
}

/** `/proxy/shopify/<route>?...` as the App Proxy forwards `/apps/points/<route>` for a logged-in customer (points, redeem). */
export function appProxyPath(route: 'points' | 'redeem', input: { customerId: string; secret: string; nowMs: number }): string {
  const query = new URLSearchParams({
    shop: LOCAL_SHOP,
    logged_in_customer_id: input.customerId,
    path_prefix: '/apps/points',
    timestamp: String(Math.floor(input.nowMs / 1000)),
  });
  query.set('signature', signAppProxyQuery(query, input.secret));
  return `/proxy/shopify/${route}?${query.toString()}`;
}

/** A redemption as the customer's browser sends it through the App Proxy: the form POST, JSON answer. */
export async function redeemThroughAppProxy(
  intakeUrl: string,
  input: { customerId: string; secret: string; nowMs: number; points: number; request: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${intakeUrl}${appProxyPath('redeem', input)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    // The value the points page would have issued to this customer, with the caller's request id (its records' key).
    body: new URLSearchParams({
      points: String(input.points),
      request: issueRedeemRequest(input.secret, { shop: LOCAL_SHOP, customerId: input.customerId }, input.nowMs, input.request),
    }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
