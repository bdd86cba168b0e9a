import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ProxyLinkQuery } from './proxy-query.js';

/**
 * The link's confirmation value: what the confirming POST must carry, made by our server only, for one
 * shop customer, one member and one handover token, for a few minutes. It is an HMAC over those with the
 * app's secret (under a label of its own, so it is never a valid App Proxy or webhook signature) and its
 * expiry: nothing is stored, so a refused POST uses up nothing, and a value made for another customer,
 * member or token never verifies. A cross-site page can make the customer's browser send the POST, but
 * cannot read the GET's answer, so it cannot know the value.
 */

/** How long a confirmation holds: time to read the page and press the button. */
export const CONFIRM_TTL_SECONDS = 600;

const LABEL = 'loyalty-points-bridge app proxy link confirmation v1';
const FORM = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, link: ProxyLinkQuery, expiresAt: number): Buffer {
  // The token only by its digest: the value never carries it, and the MAC input has fixed-form fields.
  const token = createHash('sha256').update(link.token, 'utf8').digest('hex');
  const text = [LABEL, link.shop, link.customerId, link.memberId, token, String(expiresAt)].join('\n');
  return createHmac('sha256', secret).update(text, 'utf8').digest();
}

/** A fresh value for this link, made with the current secret. */
export function makeConfirmation(secret: string, link: ProxyLinkQuery, nowMs: number): string {
  const expiresAt = Math.floor(nowMs / 1000) + CONFIRM_TTL_SECONDS;
  return `${expiresAt}.${mac(secret, link, expiresAt).toString('base64url')}`;
}

/** Whether `value` was made by us for this very link and has not expired; any current secret may have made it. */
export function confirms(value: string, secrets: readonly string[], link: ProxyLinkQuery, nowMs: number): boolean {
  const parts = FORM.exec(value);
  if (!parts) return false;
  const expiresAt = Number(parts[1]);
  if (expiresAt < nowMs / 1000 || expiresAt > nowMs / 1000 + CONFIRM_TTL_SECONDS) return false;
  const given = Buffer.from(parts[2] ?? '', 'base64url');
  return secrets.some((secret) => timingSafeEqual(mac(secret, link, expiresAt), given));
}
