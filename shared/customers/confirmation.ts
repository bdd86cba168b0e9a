import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ProxyLinkQuery } from './proxy-query.js';

/**
 * Values our server makes for one App Proxy page and takes back on its POST: an HMAC with the app's
 * secret (under a label of its own per use, so it is never a valid App Proxy or webhook signature, nor
 * a value of another use) over the fields it is bound to and its expiry. Nothing is stored, so a refused
 * POST uses up nothing, and a value made for another customer, shop or link never verifies. A
 * cross-site page can make the customer's browser send the POST, but cannot read the GET's answer, so
 * it cannot know the value. Two uses: the link's confirmation, the redeem form's request.
 */

const FORM = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, label: string, fields: readonly string[], expiresAt: number): Buffer {
  // Fields never hold a newline (each use's fields are checked forms), so the joined text splits one way only.
  return createHmac('sha256', secret)
    .update([label, ...fields, String(expiresAt)].join('\n'), 'utf8')
    .digest();
}

/** `<expiry>.<mac>`: bound to `fields` under `label`, for `ttlSeconds`, made with the current secret. */
export function makeBoundValue(secret: string, label: string, fields: readonly string[], nowMs: number, ttlSeconds: number): string {
  const expiresAt = Math.floor(nowMs / 1000) + ttlSeconds;
  return `${expiresAt}.${mac(secret, label, fields, expiresAt).toString('base64url')}`;
}

/** Whether `value` was made by us for these very fields and has not expired; any current secret may have made it. */
export function isBoundValue(
  value: string,
  secrets: readonly string[],
  label: string,
  fields: readonly string[],
  nowMs: number,
  ttlSeconds: number,
): boolean {
  const parts = FORM.exec(value);
  if (!parts) return false;
  const expiresAt = Number(parts[1]);
  if (expiresAt < nowMs / 1000 || expiresAt > nowMs / 1000 + ttlSeconds) return false;
  const given = Buffer.from(parts[2] ?? '', 'base64url');
  return secrets.some((secret) => timingSafeEqual(mac(secret, label, fields, expiresAt), given));
}

/** How long a confirmation holds: time to read the page and press the button. */
export const CONFIRM_TTL_SECONDS = 600;

const LABEL = 'loyalty-points-bridge app proxy link confirmation v1';

// The token only by its digest: the value never carries it, and the MAC input has fixed-form fields.
const linkFields = (link: ProxyLinkQuery) => [
  link.shop,
  link.customerId,
  link.memberId,
  createHash('sha256').update(link.token, 'utf8').digest('hex'),
];

/** A fresh value for this link, made with the current secret. */
export function makeConfirmation(secret: string, link: ProxyLinkQuery, nowMs: number): string {
  return makeBoundValue(secret, LABEL, linkFields(link), nowMs, CONFIRM_TTL_SECONDS);
}

/** Whether `value` was made by us for this very link and has not expired; any current secret may have made it. */
export function confirms(value: string, secrets: readonly string[], link: ProxyLinkQuery, nowMs: number): boolean {
  return isBoundValue(value, secrets, LABEL, linkFields(link), nowMs, CONFIRM_TTL_SECONDS);
}
