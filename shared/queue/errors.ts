/** The queue's failures, typed by `kind`. */

export class QueueSendError extends Error {
  override readonly name = 'QueueSendError';
  readonly kind = 'queue_unavailable' as const;
  constructor(cause: unknown) {
    super('the event could not be sent to the queue', { cause });
  }
}

export class VisibilityChangeError extends Error {
  override readonly name = 'VisibilityChangeError';
  readonly kind = 'visibility_change_failed' as const;
  constructor(
    readonly failed: number,
    cause?: unknown,
  ) {
    super(`${failed} message visibility change(s) failed`, cause === undefined ? undefined : { cause });
  }
}
