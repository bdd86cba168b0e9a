/** Riding out outages: the circuit breaker in front of the Open API and how long a deferred message waits. */
export { type CircuitBreaker, createCircuitBreaker, isOutage } from './breaker.js';
export { deferralFor, retryReason, type Verdict, type WaitReason } from './deferral.js';
