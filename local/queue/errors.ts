export type LocalQueueErrorKind = 'invalid_message' | 'closed' | 'timeout';

export class LocalQueueError extends Error {
  override readonly name = 'LocalQueueError';
  readonly kind: LocalQueueErrorKind;
  constructor(kind: LocalQueueErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export function isLocalQueueError(e: unknown): e is LocalQueueError {
  return e instanceof LocalQueueError;
}
