/** Riding out outages: the circuit breaker in front of the Open API and how long a deferred message waits. */
export { type Admission, type CircuitBreaker, createCircuitBreaker } from './breaker.js';
export { isOutageKind, OUTAGE_ERROR_KINDS, type OutageErrorKind } from './outage.js';
export { deferralFor, retryReason, type Verdict, type WaitReason } from './deferral.js';
