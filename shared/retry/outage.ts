/**
 * Error kinds that say an upstream service itself is down or overloaded, not an answer about the request:
 * the Open API pipeline retries them within a call and the circuit breaker counts them. The Open API's
 * error kinds include these words (shared/openapi/errors.ts holds the two to the same spelling).
 */
export const OUTAGE_ERROR_KINDS = ['network', 'timeout', 'server'] as const;
export type OutageErrorKind = (typeof OUTAGE_ERROR_KINDS)[number];

/**
 * Error kinds of calls our own client refused before sending (a bad parameter, a lease with too little
 * time left, no slot of the shared budget in time): the upstream never saw them, so they say nothing
 * about it, up or down.
 */
export const UNSENT_ERROR_KINDS = ['invalid_request', 'lease_window_closed', 'budget_spent'] as const;
export const isUnsentKind = (kind: string): boolean => (UNSENT_ERROR_KINDS as readonly string[]).includes(kind);

/** Whether an error kind (an Open API kind, or another upstream's in the same words) is an outage. */
export const isOutageKind = (kind: string): kind is OutageErrorKind => (OUTAGE_ERROR_KINDS as readonly string[]).includes(kind);
