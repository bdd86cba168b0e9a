import { createHmac, timingSafeEqual } from 'node:crypto';
import { type LinkRefusal, refusal } from './errors.js';

/**
 * Shopify's App Proxy signature, as Shopify documents it ("Authenticate app proxies", shopify.dev):
 * every query parameter but `signature`, decoded, repeated keys joined by commas, `key=value` pairs
 * sorted and concatenated with no separator, HMAC-SHA256 in hex with the app's shared secret.
 * Nothing of the request is trusted before this passes.
 */

/** How far `timestamp` may be from now (either way). */
export const APP_PROXY_MAX_SKEW_SECONDS = 300;

/** The string Shopify signs: `extra=1,2logged_in_customer_id=1path_prefix=/apps/...shop=...timestamp=...`. */
export function appProxyMessage(query: URLSearchParams): string {
  const keys = [...new Set(query.keys())].filter((k) => k !== 'signature');
  return keys
    .map((key) => `${key}=${query.getAll(key).join(',')}`)
    .sort()
    .join('');
}

export function signAppProxyQuery(query: URLSearchParams, secret: string): string {
  return createHmac('sha256', secret).update(appProxyMessage(query), 'utf8').digest('hex');
}

/** null: authentic and fresh. Any of `secrets` may have signed (rotation). */
export function verifyAppProxy(query: URLSearchParams, secrets: readonly string[], nowMs: number): LinkRefusal | null {
  const claimed = query.getAll('signature');
  if (claimed.length === 0 || claimed[0] === '') return refusal('missing_signature', 'the signature parameter is missing');
  const given = claimed.length === 1 && /^[0-9a-f]{64}$/.test(claimed[0] ?? '') ? Buffer.from(claimed[0] ?? '', 'hex') : undefined;
  if (!given) return refusal('invalid_signature', 'signature does not match');
  const authentic = secrets.some((secret) => timingSafeEqual(Buffer.from(signAppProxyQuery(query, secret), 'hex'), given));
  if (!authentic) return refusal('invalid_signature', 'signature does not match');
  const stamp = query.getAll('timestamp');
  const seconds = stamp.length === 1 && /^\d{1,12}$/.test(stamp[0] ?? '') ? Number(stamp[0]) : undefined;
  if (seconds === undefined) return refusal('stale_timestamp', 'the timestamp parameter is missing or malformed');
  if (Math.abs(nowMs / 1000 - seconds) > APP_PROXY_MAX_SKEW_SECONDS) {
    return refusal('stale_timestamp', `the request is more than ${APP_PROXY_MAX_SKEW_SECONDS / 60} minutes old (or from the future)`);
  }
  return null;
}
