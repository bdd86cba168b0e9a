import { randomUUID } from 'node:crypto';
import { isBoundValue, makeBoundValue } from '../customers/index.js';

/**
 * The redeem form's `request` value: `<request id>.<expiry>.<mac>`, made by the points page for one
 * shop and one logged-in customer, bound to them and to its request id with the app's secret (the link
 * confirmation's scheme, shared/customers/confirmation.ts, under a label of its own). The request id
 * keys the redemption (the same value pressed twice is one redemption); a value made for another
 * customer or shop, expired, or not ours is refused before anything is read or deducted.
 */

/** Time to read the page, press, and press again after a redemption in doubt (its horizon is minutes). */
export const REQUEST_TTL_SECONDS = 3_600;

const LABEL = 'loyalty-points-bridge app proxy redeem request v1';
const REQUEST_ID = /^[A-Za-z0-9_-]{8,64}$/;
const VALUE = /^([A-Za-z0-9_-]{8,64})\.(\d{1,12}\.[A-Za-z0-9_-]{43})$/;

export interface RequestBinding {
  readonly shop: string;
  readonly customerId: string;
}

/** A fresh value for this shop's customer (`requestId`: a new UUID unless given, as a replay harness does). */
export function issueRedeemRequest(secret: string, to: RequestBinding, nowMs: number, requestId: string = randomUUID()): string {
  if (!REQUEST_ID.test(requestId)) throw new Error('a request id is 8-64 letters, digits, - or _');
  return `${requestId}.${makeBoundValue(secret, LABEL, [to.shop, to.customerId, requestId], nowMs, REQUEST_TTL_SECONDS)}`;
}

/** Whether the text has the value's form at all (else the form is malformed: 400, not 403). */
export const looksLikeRedeemRequest = (value: string): boolean => VALUE.test(value);

/** The request id of a value issued to this shop's customer and not expired; undefined otherwise. */
export function issuedRequestId(value: string, secrets: readonly string[], to: RequestBinding, nowMs: number): string | undefined {
  const parts = VALUE.exec(value);
  if (!parts) return undefined;
  const requestId = parts[1] ?? '';
  return isBoundValue(parts[2] ?? '', secrets, LABEL, [to.shop, to.customerId, requestId], nowMs, REQUEST_TTL_SECONDS)
    ? requestId
    : undefined;
}
