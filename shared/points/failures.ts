import { isConfigurationKind, isOpenApiError, type OpenApiError } from '../openapi/index.js';
import type { ProcessOutcome } from '../events/index.js';

/** The OpenApiError of a failed call; anything else is a bug or a crash and is rethrown as it is. */
export function asOpenApiError(e: unknown): OpenApiError {
  if (isOpenApiError(e)) return e;
  throw e;
}

/**
 * A refusal the spec gives no meaning (a 4xx it never shows): retrying cannot change it and nobody
 * could say what to fix from the queue, so the event is parked with the answer recorded (the
 * Outcome_upstream_rejected metric is alarmed) instead of going round to the DLQ.
 */
export const isUnrecognisedRefusal = (e: OpenApiError): boolean => e.kind === 'unrecognised' && e.executed === 'no';

export const rejectedOutcome = (e: OpenApiError): Extract<ProcessOutcome, { kind: 'upstream_rejected' }> => ({
  kind: 'upstream_rejected',
  action: 'ack',
  errorKind: e.kind,
  reason: e.message,
});

/** A failure that proves nothing ran and is not a business answer: back to the queue. */
export function transientOutcome(e: OpenApiError): Extract<ProcessOutcome, { action: 'retry' }> {
  const reason = e.message;
  return isConfigurationKind(e.kind)
    ? { kind: 'configuration_error', action: 'retry', errorKind: e.kind, reason }
    : { kind: 'upstream_error', action: 'retry', errorKind: e.kind, reason };
}

export const unknownOutcome = (e: OpenApiError): Extract<ProcessOutcome, { kind: 'outcome_unknown' }> => ({
  kind: 'outcome_unknown',
  action: 'retry',
  errorKind: e.kind,
  reason: e.message,
});

/** The order's lease went to another attempt before this one booked its result. */
export const leaseLost = (): Extract<ProcessOutcome, { kind: 'lease_lost' }> => ({
  kind: 'lease_lost',
  action: 'retry',
  reason: 'the order lease expired and was taken over',
});

/**
 * A points call that may have run (`executed: 'unknown'`): the lease is kept until it expires, so that
 * by the time anyone searches the history the lost request has landed or died, and the record is
 * flagged so that whoever takes it next searches the history for the marker before calling again.
 * `release` ends the attempt that way.
 */
export async function leaveInDoubt(
  err: OpenApiError,
  release: (lastError: string, opts: { keepLease: true; needsReconcile: true }) => Promise<unknown>,
): Promise<Extract<ProcessOutcome, { kind: 'outcome_unknown' }>> {
  await release(err.message, { keepLease: true, needsReconcile: true });
  return unknownOutcome(err);
}
