import { KindedError } from '../errors/index.js';

/** The queue's failures, typed by `kind`. */

/** The root of the queue's errors. */
export abstract class QueueError extends KindedError {
  override readonly name: string = 'QueueError';
}

export class QueueSendError extends QueueError {
  override readonly name = 'QueueSendError';
  readonly kind = 'queue_unavailable' as const;
  constructor(cause: unknown) {
    super('the event could not be sent to the queue', { cause });
  }
}

export class VisibilityChangeError extends QueueError {
  override readonly name = 'VisibilityChangeError';
  readonly kind = 'visibility_change_failed' as const;
  constructor(
    readonly failed: number,
    cause?: unknown,
  ) {
    super(`${failed} message visibility change(s) failed`, cause === undefined ? undefined : { cause });
  }
}
