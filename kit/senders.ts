import { createHmac } from 'node:crypto';

/**
 * How the senders sign and write their webhooks, from their own rules (never from intake's verifier):
 * Shopify signs the raw body with the app secret (base64 HMAC-SHA256); the POS signs
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` (docs/pos-format.md). Used by the demo, the
 * banner's curl, the chaos senders and the tests.
 */

export function signShopify(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/** What identifies one Shopify delivery, beside its body and the app secret that signs it. */
export interface ShopifyDelivery {
  topic: string;
  shopDomain: string;
  apiVersion: string;
  webhookId: string;
  eventId: string;
  triggeredAt: string;
}

/** The headers Shopify sends with a webhook (its envelope), the body signed with the app secret. */
export function shopifyHeaders(body: string | Buffer, secret: string, d: ShopifyDelivery): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': d.topic,
    'x-shopify-hmac-sha256': signShopify(body, secret),
    'x-shopify-shop-domain': d.shopDomain,
    'x-shopify-api-version': d.apiVersion,
    'x-shopify-webhook-id': d.webhookId,
    'x-shopify-event-id': d.eventId,
    'x-shopify-triggered-at': d.triggeredAt,
  };
}

export function signPos(body: string | Buffer, secret: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')}`;
}

/** Square: base64 HMAC-SHA256, keyed with the subscription's signature key, of the notification URL + the body. */
export function signSquare(body: string | Buffer, signatureKey: string, notificationUrl: string): string {
  return createHmac('sha256', signatureKey).update(notificationUrl).update(body).digest('base64');
}

const BARE = /"#bare:(-?\d+(?:\.\d+)?)"/g;

/** A placeholder that `jsonWithBareIntegers` writes as a bare JSON integer of any size. */
export const bareInteger = (digits: string): string => `#bare:${digits}`;

/**
 * A placeholder written as a bare JSON number with exactly these digits (`89.99`, `0.0`): Shopify
 * writes refund line amounts as numbers. Throws on anything that is not a plain decimal.
 */
export const bareDecimal = (text: string): string => {
  if (!/^-?\d+(?:\.\d+)?$/.test(text)) throw new Error(`not a plain decimal: ${text}`);
  return `#bare:${text}`;
};

/** JSON with the `bareInteger` / `bareDecimal` values written as bare integers: Shopify's ids are 64-bit numbers in its JSON. */
export function jsonWithBareIntegers(value: unknown): string {
  return JSON.stringify(value).replace(BARE, '$1');
}
