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
  // A rate limit waits at least what its Retry-After asked (never parked: failures of the gateway's, not the
  // event's); a refusal of the shared budget waits for the minute its slot is expected in.
  const retryAfter =
    (e.kind === 'rate_limited' || e.kind === 'budget_spent') && e.retryAfterMs !== undefined
      ? { retryAfterSeconds: Math.ceil(e.retryAfterMs / 1000) }
      : {};
  return { kind: 'upstream_error', action: 'retry', errorKind: e.kind, reason, ...retryAfter };
}

/**
 * A points call of the order may still land: nothing of it is sent before `until` (the in-doubt
 * horizon, shared/points/engine), and the next attempt searches the history first.
 */
export const inDoubtOutcome = (errorKind: string, reason: string, until: number): Extract<ProcessOutcome, { kind: 'outcome_unknown' }> => ({
  kind: 'outcome_unknown',
  action: 'retry',
  errorKind,
  reason,
  leaseKept: false,
  until,
});

/** The order's lease went to another attempt before this one booked its result. */
export const leaseLost = (): Extract<ProcessOutcome, { kind: 'lease_lost' }> => ({
  kind: 'lease_lost',
  action: 'retry',
  reason: 'the order lease expired and was taken over',
});
