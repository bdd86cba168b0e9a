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
  if (isConfigurationKind(e.kind)) return { kind: 'configuration_error', action: 'retry', errorKind: e.kind, reason };
  // A rate limit waits at least what its Retry-After asked (never parked: failures of the gateway's, not the event's).
  const retryAfter =
    e.kind === 'rate_limited' && e.retryAfterMs !== undefined ? { retryAfterSeconds: Math.ceil(e.retryAfterMs / 1000) } : {};
  return { kind: 'upstream_error', action: 'retry', errorKind: e.kind, reason, ...retryAfter };
}

export const unknownOutcome = (e: OpenApiError, leaseKept: boolean): Extract<ProcessOutcome, { kind: 'outcome_unknown' }> => ({
  kind: 'outcome_unknown',
  action: 'retry',
  errorKind: e.kind,
  reason: e.message,
  leaseKept,
});

/** The order's lease went to another attempt before this one booked its result. */
export const leaseLost = (): Extract<ProcessOutcome, { kind: 'lease_lost' }> => ({
  kind: 'lease_lost',
  action: 'retry',
  reason: 'the order lease expired and was taken over',
});

/**
 * Whether the request that failed can still land. The service answered (a 5xx, an answer we cannot
 * read) or closed the connection itself: its handling of the request is over, so the history already
 * shows it if it ran. Our own timeout, or a gateway saying it stopped waiting (502, 504): the service
 * may still be running it.
 */
export function mayStillLand(e: OpenApiError): boolean {
  return e.kind === 'timeout' || e.status === 502 || e.status === 504;
}

/**
 * A points call that may have run (`executed: 'unknown'`); the record is flagged so that whoever takes
 * it next searches the history for the marker before calling again. A request that may still land
 * keeps the lease until it expires, so that by the time anyone searches the history it has landed or
 * died. One that cannot land any more (the service answered or hung up) releases it at once: the next
 * attempt can search now, and finds the marker if the call ran. `release` ends the attempt that way.
 */
export async function leaveInDoubt(
  err: OpenApiError,
  release: (lastError: string, opts: { keepLease: boolean; needsReconcile: true }) => Promise<unknown>,
): Promise<Extract<ProcessOutcome, { kind: 'outcome_unknown' }>> {
  const keepLease = mayStillLand(err);
  await release(err.message, { keepLease, needsReconcile: true });
  return unknownOutcome(err, keepLease);
}
