import { type LinkRefusal, refusal } from './errors.js';

/**
 * The link request's parameters, read once Shopify's signature has verified. Shopify signs the sorted
 * `key=value` pairs concatenated with no separator, so the same signature fits other splits of the same
 * bytes (`a=AAAlogged_in_customer_id=2m=x` is also `a=AAA` + `logged_in_customer_id=2` + `m=x...`).
 * Only the parameters the link needs and Shopify adds are accepted, each once, each in a form with no
 * `=`: then the signed text splits one way only, and another split is refused before anything happens.
 */

/** What Shopify adds to every proxied request ("Authenticate app proxies", shopify.dev). */
const SHOPIFY_ADDS = ['shop', 'path_prefix', 'timestamp', 'signature', 'logged_in_customer_id'] as const;
/** What the membership system's link button puts in the storefront URL. */
const LINK_CARRIES = ['token', 'member'] as const;
const ALLOWED: ReadonlySet<string> = new Set([...SHOPIFY_ADDS, ...LINK_CARRIES]);

/** A Shopify customer id: digits (Admin API ids are 64-bit integers). */
const CUSTOMER_ID = /^\d{1,20}$/;
const MEMBER_ID = /^[A-Za-z0-9-]{1,64}$/;
const TOKEN = /^[A-Za-z0-9._~-]{1,512}$/;
/** As the webhooks' shopDomains setting: `<shop>.myshopify.com`. */
const SHOP = /^[a-z0-9][a-z0-9-]{0,99}\.myshopify\.com$/;
/** The App Proxy's subpath prefix and subpath (`/apps/points`). */
const PATH_PREFIX = /^\/(apps|a|community|tools)\/[A-Za-z0-9_-]{1,100}$/;

export interface ProxyLinkQuery {
  readonly shop: string;
  readonly pathPrefix: string;
  /** Shopify's `logged_in_customer_id`. */
  readonly customerId: string;
  readonly memberId: string;
  readonly token: string;
}

const bad = (message: string) => ({ ok: false as const, refusal: refusal('invalid_request', message) });

/**
 * The verified query as a link request, or why not. `shopDomains`: the source's shops when configured
 * (empty: any shop, as for its webhooks).
 */
export function readProxyQuery(
  query: URLSearchParams,
  shopDomains: readonly string[],
): { ok: true; value: ProxyLinkQuery } | { ok: false; refusal: LinkRefusal } {
  const names = [...query.keys()];
  // The names are not echoed: they are the sender's text.
  if (names.some((name) => !ALLOWED.has(name))) {
    return bad('the request carries a parameter the link does not take (only token and member, and what Shopify adds)');
  }
  const one = (name: string) => (query.getAll(name).length === 1 ? (query.get(name) ?? '') : undefined);
  const shop = one('shop');
  const pathPrefix = one('path_prefix');
  const customerId = one('logged_in_customer_id');
  const memberId = one('member');
  const token = one('token');
  if ([shop, pathPrefix, customerId, memberId, token].includes(undefined)) {
    return bad('token, member, shop, path_prefix and logged_in_customer_id are each needed once');
  }
  if (!SHOP.test(shop ?? '')) return bad('shop is not a <shop>.myshopify.com domain');
  if (shopDomains.length > 0 && !shopDomains.includes(shop ?? '')) return bad('this shop is not configured for the link');
  if (!PATH_PREFIX.test(pathPrefix ?? '')) return bad('path_prefix is not an App Proxy path');
  if (customerId === '') {
    return { ok: false, refusal: refusal('not_logged_in', 'log in to the shop first, then press the link button again') };
  }
  if (!CUSTOMER_ID.test(customerId ?? '')) return bad('logged_in_customer_id is not a customer id');
  if (!MEMBER_ID.test(memberId ?? '')) return bad('the member parameter is missing or malformed');
  if (!TOKEN.test(token ?? '')) return bad('the token parameter is missing or malformed');
  return {
    ok: true,
    value: { shop: shop ?? '', pathPrefix: pathPrefix ?? '', customerId: customerId ?? '', memberId: memberId ?? '', token: token ?? '' },
  };
}

/** A verified App Proxy request of a logged-in customer (the points page, the redeem POST). */
export interface ProxyCustomerQuery {
  readonly shop: string;
  readonly pathPrefix: string;
  readonly customerId: string;
}

/** The storefront's script may ask for JSON by the query (`format=json`) where it cannot set `Accept`. */
const FORMAT = 'format';
const SHOPIFY_ONLY: ReadonlySet<string> = new Set([...SHOPIFY_ADDS, FORMAT]);

/** Whether the request asks for JSON: `Accept: application/json`, or `format=json` in the query. */
export const asksForJson = (accept: string | undefined, query: URLSearchParams): boolean =>
  (accept ?? '').includes('application/json') || query.get(FORMAT) === 'json';

/**
 * The verified query of a route that takes nothing of its own (points, redeem): only what Shopify adds
 * (and `format=json`), each once (the same one-way split as the link's: `format`'s one value has no
 * `=`), a configured shop, and a logged-in customer.
 */
export function readProxyCustomer(
  query: URLSearchParams,
  shopDomains: readonly string[],
): { ok: true; value: ProxyCustomerQuery } | { ok: false; refusal: LinkRefusal } {
  if ([...query.keys()].some((name) => !SHOPIFY_ONLY.has(name))) {
    return bad('the request carries a parameter this route does not take (only what Shopify adds)');
  }
  const one = (name: string) => (query.getAll(name).length === 1 ? (query.get(name) ?? '') : undefined);
  const shop = one('shop');
  const pathPrefix = one('path_prefix');
  const customerId = one('logged_in_customer_id');
  if (shop === undefined || pathPrefix === undefined || customerId === undefined) {
    return bad('shop, path_prefix and logged_in_customer_id are each needed once');
  }
  if (query.has(FORMAT) && (query.getAll(FORMAT).length !== 1 || query.get(FORMAT) !== 'json')) return bad('format is json or absent');
  if (!SHOP.test(shop)) return bad('shop is not a <shop>.myshopify.com domain');
  if (shopDomains.length > 0 && !shopDomains.includes(shop)) return bad('this shop is not configured');
  if (!PATH_PREFIX.test(pathPrefix)) return bad('path_prefix is not an App Proxy path');
  if (customerId === '') return { ok: false, refusal: refusal('not_logged_in', 'log in to the shop first') };
  if (!CUSTOMER_ID.test(customerId)) return bad('logged_in_customer_id is not a customer id');
  return { ok: true, value: { shop, pathPrefix, customerId } };
}
