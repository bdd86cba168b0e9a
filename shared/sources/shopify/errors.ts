/** Why a call to the Admin API failed. Messages never carry the access token. */
export type ShopifyAdminErrorKind =
  | 'unauthorized' // 401/403: the token is wrong or lacks read_orders
  | 'throttled' // still THROTTLED after every backoff
  | 'http' // another non-2xx answer
  | 'graphql' // the answer's `errors` (not THROTTLED, not INTERNAL_SERVER_ERROR)
  | 'internal' // INTERNAL_SERVER_ERROR in the answer's `errors` (at HTTP 200): transient, and a mutation may have run
  | 'rejected' // a mutation's `userErrors`
  | 'missing_scope' // the app was not granted an access scope a topic needs
  | 'invalid_response' // not the shape the documents ask for, over the answer cap, or pagination that does not end
  | 'timeout' // no complete answer within the call's deadline
  | 'network'; // no answer

export class ShopifyAdminError extends Error {
  override readonly name = 'ShopifyAdminError';
  constructor(
    readonly kind: ShopifyAdminErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export const isShopifyAdminError = (e: unknown): e is ShopifyAdminError => e instanceof ShopifyAdminError;
