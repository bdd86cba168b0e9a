/** Why a Smaregi Platform API call failed: `unavailable` is worth retrying later, the others need people. */
export type SmaregiErrorKind = 'unavailable' | 'unauthorized' | 'not_found' | 'invalid_response';

export class SmaregiError extends Error {
  override readonly name = 'SmaregiError';
  constructor(
    readonly kind: SmaregiErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
