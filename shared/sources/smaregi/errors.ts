import { ShopApiError, type ShopApiErrorKind } from '../../http-client/index.js';

/** Why a Smaregi Platform API call failed: `unavailable` is worth retrying later, the others need people. */
export type SmaregiErrorKind = ShopApiErrorKind;

export class SmaregiError extends ShopApiError {
  override readonly name = 'SmaregiError';
}
