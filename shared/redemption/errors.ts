/** What a redemption can come to besides a code: each a typed value with a kind, answered to the customer. */
export type RedemptionRefusalKind =
  /** The shop does not offer redemptions (the source's `redemption.enabled` is false). */
  | 'not_enabled'
  /** `points` or `request` missing or malformed, or a body that is not the form. */
  | 'invalid_request'
  /** Below the minimum or not a multiple of the step. */
  | 'invalid_points'
  /**
   * The form's `request` was not issued by the points page to this customer of this shop, or has expired
   * (a forged or replayed form, another site's POST): nothing is read or deducted; open the page again.
   */
  | 'request_not_issued'
  /** More than the balance (nothing deducted). */
  | 'insufficient_points'
  /** The shop customer is not linked to a member. */
  | 'not_linked'
  /** The membership service or Shopify cannot be reached; nothing more is lost by trying again. */
  | 'unavailable'
  /**
   * The deduction was sent and its answer proved nothing: it may still be applied. The same request
   * after `retryAfterSeconds` finishes this one redemption; it never deducts twice.
   */
  | 'in_doubt'
  /** The code could not be made; the points were given back. */
  | 'code_unavailable'
  /** This request's code ended unused and its points came back. */
  | 'expired';

export interface RedemptionRefusal {
  readonly kind: RedemptionRefusalKind;
  /** Safe to show to the customer: never an upstream text. */
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export const REDEMPTION_STATUS: Readonly<Record<RedemptionRefusalKind, number>> = {
  not_enabled: 404,
  invalid_request: 400,
  invalid_points: 400,
  request_not_issued: 403,
  insufficient_points: 409,
  not_linked: 403,
  unavailable: 503,
  in_doubt: 503,
  code_unavailable: 503,
  expired: 410,
};

export const redemptionRefusal = (kind: RedemptionRefusalKind, message: string, details?: Record<string, unknown>): RedemptionRefusal => ({
  kind,
  message,
  ...(details ? { details } : {}),
});
