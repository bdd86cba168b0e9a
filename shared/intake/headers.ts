import type { RequestHeaders } from '../sources/index.js';

/**
 * The unsigned headers intake uses, each with its bound. Shopify's HMAC covers the body only, so
 * these are whatever the caller says: the webhook id becomes the SQS deduplication id (1-128
 * printable ASCII characters), and all of them are logged and queued with the event. A value outside
 * its rule is refused before any source reads it; the answer names the header, never the value.
 * A header absent here is not read by intake (signature headers are checked by their source).
 */
interface HeaderRule {
  /** As Shopify writes it: what the answer names. */
  readonly name: string;
  readonly pattern: RegExp;
  readonly description: string;
}

const ID = { pattern: /^[A-Za-z0-9._:-]{1,128}$/, description: '1-128 letters, digits, or . _ : -' };

const RULES: Readonly<Record<string, HeaderRule>> = {
  // Keys: lower case, without the `x-` prefix (headers.ts accepts either form).
  'shopify-webhook-id': { name: 'X-Shopify-Webhook-Id', ...ID },
  'shopify-event-id': { name: 'X-Shopify-Event-Id', ...ID },
  'shopify-topic': {
    name: 'X-Shopify-Topic',
    pattern: /^[a-z0-9_]{1,40}(?:\/[a-z0-9_]{1,40}){1,2}$/,
    description: 'a topic such as orders/paid',
  },
  // Not authentication: any sender may write any shop here (docs/security.md).
  'shopify-shop-domain': {
    name: 'X-Shopify-Shop-Domain',
    pattern: /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
    description: 'a host name such as example.myshopify.com',
  },
  'shopify-api-version': { name: 'X-Shopify-API-Version', pattern: /^(?:\d{4}-\d{2}|unstable)$/, description: 'YYYY-MM or unstable' },
  'shopify-triggered-at': { name: 'X-Shopify-Triggered-At', pattern: /^[0-9T:.+Z-]{10,40}$/i, description: 'an ISO 8601 time' },
};

/** The first used header whose value breaks its rule, or undefined. */
export function invalidHeader(headers: RequestHeaders): { path: string; message: string } | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const rule = RULES[key.toLowerCase().replace(/^x-/, '')];
    if (rule && !rule.pattern.test(value.trim())) {
      return { path: `headers.${rule.name}`, message: `${rule.name} must be ${rule.description}` };
    }
  }
  return undefined;
}
