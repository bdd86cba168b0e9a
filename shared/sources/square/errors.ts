import { ShopApiError, type ShopApiErrorKind } from '../../http-client/index.js';

/** Why a Square Orders API call failed: `unavailable` is worth retrying later, the others need people. */
export type SquareOrdersErrorKind = ShopApiErrorKind;

export class SquareOrdersError extends ShopApiError {
  override readonly name = 'SquareOrdersError';
}
