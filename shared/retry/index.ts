/** Riding out outages: the circuit breaker in front of the Open API and how long a deferred message waits. */
export { type Admission, type CircuitBreaker, createCircuitBreaker } from './breaker.js';
export { isOutageKind, isUnsentKind, OUTAGE_ERROR_KINDS, type OutageErrorKind, UNSENT_ERROR_KINDS } from './outage.js';
export { budgetDeferralSeconds, deferralFor, isBudgetRefusal, retryReason, type Verdict, type WaitReason } from './deferral.js';
