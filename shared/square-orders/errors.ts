/** Why a Square Orders API call failed: `unavailable` is worth retrying later, the others need people. */
export type SquareOrdersErrorKind = 'unavailable' | 'unauthorized' | 'not_found' | 'invalid_response';

export class SquareOrdersError extends Error {
  override readonly name = 'SquareOrdersError';
  constructor(
    readonly kind: SquareOrdersErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
