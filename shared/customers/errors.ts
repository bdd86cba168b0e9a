/**
 * What a customer operation (enrol, link) can come to besides success: each a typed value with a
 * `kind`, answered to the caller or recorded in the ledger; nothing here carries a secret.
 */
export type LinkRefusalKind =
  /** The app proxy's `signature` is missing or does not verify (401). */
  | 'missing_signature'
  | 'invalid_signature'
  /** `timestamp` missing or more than 5 minutes away from now. */
  | 'stale_timestamp'
  /** Nobody is logged in to the shop (empty `logged_in_customer_id`). */
  | 'not_logged_in'
  /** A parameter is missing, malformed, given twice or not one the link takes. */
  | 'invalid_request'
  /** The confirming POST's `confirm` value is not ours for this customer, member and token, or has expired. */
  | 'invalid_confirmation'
  /** The membership service refused the handover token (unknown, used, not this member's). */
  | 'invalid_token'
  | 'expired_token'
  /** The shop customer is already linked to another member, or the member to another customer. */
  | 'already_linked'
  /** The member does not exist (or withdrew). */
  | 'member_not_found'
  /** The membership service could not be reached, or its answer is unknown: try again. */
  | 'unavailable';

export interface LinkRefusal {
  readonly kind: LinkRefusalKind;
  /** Safe to show to the customer and the shop: never a secret, never an upstream text. */
  readonly message: string;
}

export const LINK_STATUS: Readonly<Record<LinkRefusalKind, number>> = {
  missing_signature: 401,
  invalid_signature: 401,
  stale_timestamp: 403,
  not_logged_in: 403,
  invalid_request: 400,
  invalid_confirmation: 403,
  invalid_token: 400,
  expired_token: 410,
  already_linked: 409,
  member_not_found: 404,
  unavailable: 503,
};

export const refusal = (kind: LinkRefusalKind, message: string): LinkRefusal => ({ kind, message });
